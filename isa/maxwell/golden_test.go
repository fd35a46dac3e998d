package maxwell

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// Golden data made by cmd/mxdiff from our own random and field-walking words:
// nvdisasm's verdict and text for each, and nvdisasm's listing of a raw file.
// These tests need nothing outside the repository.

// Baselines for the committed golden data; raise them as the spec grows.
const (
	baseGolden52    = 43596
	baseGolden50    = 39596
	baseGoldenAsm52 = 40004
	baseGoldenCtrl  = 12000
)

type goldenRow struct {
	word uint64
	ctrl Ctrl
	text string
}

func readGolden(tb testing.TB, path string) []goldenRow {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []goldenRow
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		rows = append(rows, goldenRow{parseHex(f[0]), Ctrl(parseHex(f[1])), f[2]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}

func goldenAddr(i int) uint64 { return uint64(i/3*BundleSize + 8 + 8*(i%3)) }

func testGolden(t *testing.T, file string, sm int, base, asmBase int) {
	rows := readGolden(t, file)
	var tl, as tally
	for i, r := range rows {
		pc := goldenAddr(i)
		ok, d := checkText(r.word, r.ctrl, sm, pc, r.text)
		key := mnemonic(r.text)
		if r.text == "INVALID" {
			key = "INVALID"
		}
		tl.add(key, ok, d)
		if !ok || r.text == "INVALID" || asmBase == 0 {
			continue
		}
		inst, _ := Decode(r.word, r.ctrl, sm, pc)
		w, _, err := EncodeText(r.text, pc, sm, nil)
		m := CareMask(inst)
		aok := err == nil && w&m == r.word&m
		ad := ""
		if !aok {
			ad = r.text + ": " + hexOrErr(w, err)
		}
		as.add(key, aok, ad)
	}
	tl.report(t, file, base)
	if asmBase > 0 {
		as.report(t, "as("+file+")", asmBase)
	}
}

func TestGoldenSM52(t *testing.T) {
	testGolden(t, "testdata/nvdisasm_sm52.tsv.gz", 52, baseGolden52, baseGoldenAsm52)
}

// TestGoldenCtrl: random control fields (barriers, wait masks, reuse, stall 0).
func TestGoldenCtrl(t *testing.T) {
	testGolden(t, "testdata/nvdisasm_sm52_ctrl.tsv.gz", 52, baseGoldenCtrl, 0)
}

func TestGoldenSM50(t *testing.T) {
	testGolden(t, "testdata/nvdisasm_sm50.tsv.gz", 50, baseGolden50, 0)
}

// TestGoldenListing disassembles a raw file at base 0xfc00 (so addresses cross
// 0x10000) and compares the whole listing with nvdisasm's, line by line.
func TestGoldenListing(t *testing.T) {
	code, err := os.ReadFile("testdata/listing_sm52.bin")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/listing_sm52.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, errs := Disassemble(nil, code, 0xfc00, 52)
	t.Logf("%d words rejected that nvdisasm accepts", len(errs))
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	same := 0
	for i := range wl {
		if i < len(gl) && gl[i] == wl[i] {
			same++
		} else if i < len(gl) && testing.Verbose() && os.Getenv("MXDUMP") != "" {
			t.Logf("line %d:\n\twant %q\n\tgot  %q", i+1, wl[i], gl[i])
		}
	}
	t.Logf("listing: %d/%d lines identical", same, len(wl))
	if len(gl) != len(wl) || same != len(wl) {
		t.Errorf("listing: %d/%d lines identical, %d lines printed", same, len(wl), len(gl))
	}
}

// TestListingText: every instruction line of a listing carries exactly the
// text Print gives, also when the listing reuses texts of repeated words.
func TestListingText(t *testing.T) {
	var ws []uint64
	for _, r := range readGolden(t, "testdata/nvdisasm_sm52_ctrl.tsv.gz")[:3000] {
		ws = append(ws, r.word)
	}
	ws = append(ws, ws...) // repeats: the second half comes from the text cache
	rows := readGolden(t, "testdata/nvdisasm_sm52_ctrl.tsv.gz")[:3000]
	var code []byte
	for i, w := range ws {
		if i%3 == 0 {
			var c uint64
			for s := 0; s < 3; s++ {
				c |= uint64(rows[(i+s)%len(rows)].ctrl) << (21 * uint(s))
			}
			code = binary.LittleEndian.AppendUint64(code, c)
		}
		code = binary.LittleEndian.AppendUint64(code, w)
	}
	out, _ := Disassemble(nil, code, 0, 52)
	lines := strings.Split(string(out), "\n")
	k := 0
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "/*") || strings.HasPrefix(strings.TrimSpace(l), "/* 0x") {
			continue
		}
		b := k / 3
		ctrl := binary.LittleEndian.Uint64(code[b*BundleSize:])
		w := ws[k]
		pc := uint64(b*BundleSize + 8 + 8*(k%3))
		k++
		inst, err := Decode(w, CtrlField(ctrl, (k-1)%3), 52, pc)
		want := ".word " + "0x" + strings.TrimLeft(string(appendUpperHexLower(nil, w)), "0")
		if err == nil {
			want = Print(inst, pc)
		}
		text := strings.TrimSpace(l[strings.Index(l, "*/")+2 : strings.LastIndex(l, "/* 0x")])
		if text != want {
			t.Fatalf("word %d %#x: listing %q, Print %q", k-1, w, text, want)
		}
	}
	if k != len(ws) {
		t.Fatalf("%d instruction lines, want %d", k, len(ws))
	}
}

func TestDecodeErrorNamesAddress(t *testing.T) {
	const bad = 0xffffffffffffffff // no form has these fixed bits
	_, e1 := Decode(bad, NeutralCtrl, 52, 0x1238)
	_, e2 := Decode(bad, NeutralCtrl, 52, 0x40)
	d1, ok1 := e1.(*isa.DecodeError)
	d2, ok2 := e2.(*isa.DecodeError)
	if !ok1 || !ok2 {
		t.Fatalf("errors %T %T, want *isa.DecodeError", e1, e2)
	}
	if d1.Addr != 0x1238 || d2.Addr != 0x40 || d1 == d2 || d1.Len != 8 || !errors.Is(e1, isa.ErrInvalid) {
		t.Errorf("got %+v and %+v", d1, d2)
	}
}

func TestDecodeSuccessDoesNotAllocate(t *testing.T) {
	const mov = 0x4c98078000870001 // MOV R1, c[0x0][0x20]
	if n := testing.AllocsPerRun(100, func() { Decode(mov, NeutralCtrl, 52, 8) }); n != 0 {
		t.Errorf("Decode allocates %v times", n)
	}
}

// TestGoldenQuestions: operands nvdisasm prints as ??? (DEPBAR's scoreboard
// 6 and 7, the register past R255 of a CAS pair) sit in a column computed
// from the whole file, and a VOTE writing RZ names no register; the
// listings of a raw file of such words under four flag sets are nvdisasm's,
// byte for byte.
func TestGoldenQuestions(t *testing.T) {
	code, err := os.ReadFile("testdata/questions_sm52.bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		opts ListOptions
	}{
		{"questions_sm52.txt", ListOptions{}},
		{"questions_sm52_vliw.txt", ListOptions{NoHex: true, VLIW: true}},
		{"questions_sm52_novliw.txt", ListOptions{NoHex: true}},
		{"questions_sm52_raw.txt", ListOptions{Raw: true, VLIW: true}},
	} {
		want, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		got, errs := ListRaw(nil, code, 0xff80, 52, c.opts)
		if len(errs) != 0 {
			t.Errorf("%s: %d words rejected, first %v", c.file, len(errs), errs[0])
		}
		if d := firstDiff(strings.Split(string(got), "\n"), strings.Split(string(want), "\n")); d != "" {
			t.Errorf("%s: %s", c.file, d)
		}
	}
	// the streaming writer lays the same lines out
	var b bytes.Buffer
	if _, err := WriteListing(&b, code, 0xff80, 52); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("testdata/questions_sm52.txt")
	if d := firstDiff(strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")); d != "" {
		t.Errorf("WriteListing: %s", d)
	}
}
