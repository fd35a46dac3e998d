package usse

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// vita3kClass names our decode the way the oracle listings do (the class of
// the first matching Vita3K pattern).
func vita3kClass(in Inst) string {
	switch n := in.Name(); n {
	case "vmad2":
		return "VMAD2"
	case "vnmad32":
		return "V32NMAD"
	case "vnmad16":
		return "V16NMAD"
	case "ld", "st":
		return "VLDST"
	case "branch":
		return "BR"
	case "lapc", "setl", "savl", "idf", "wdf", "emit", "mutex", "ldrstr":
		return "SPEC"
	default:
		return strings.ToUpper(n)
	}
}

type oracleWord struct {
	where string
	word  uint64
	class string
}

// listingWords reads "P000 fa44070000000000 PHAS" lines.
func listingWords(t *testing.T, path string) []oracleWord {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []oracleWord
	sc := bufio.NewScanner(fh)
	prog := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "== ") {
			prog = strings.Fields(line)[1]
		}
		f := strings.Fields(line)
		if len(f) != 3 || len(f[1]) != 16 || (f[0][0] != 'P' && f[0][0] != 'S') {
			continue
		}
		w, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, oracleWord{prog + " " + f[0], w, f[2]})
	}
	return out
}

func allOracleWords(t *testing.T) []oracleWord {
	a := listingWords(t, oracle.Path(t, "oracle/usse/vita3k_shader_tests_programs.txt"))
	return append(a, listingWords(t, oracle.Path(t, "oracle/usse/libvita2d/LISTING.txt"))...)
}

// TestOracleClasses decodes every instruction word of the oracle listings
// (9 test GXPs, 7 libvita2d GXPs) and compares the instruction class.
func TestOracleClasses(t *testing.T) {
	words := allOracleWords(t)
	ok := 0
	for _, w := range words {
		in, err := DecodeWord(w.word, 0)
		switch {
		case err != nil:
			t.Errorf("%s %016x (%s): %v", w.where, w.word, w.class, err)
		case vita3kClass(in) != w.class:
			t.Errorf("%s %016x: class %s, oracle says %s", w.where, w.word, vita3kClass(in), w.class)
		default:
			ok++
		}
	}
	t.Logf("oracle classes: %d/%d words match", ok, len(words))
}

// TestOracleRoundTrip: for every oracle word, parse(print(w)) encodes to w.
func TestOracleRoundTrip(t *testing.T) {
	words := allOracleWords(t)
	ok := 0
	for _, w := range words {
		if checkRoundTrip(t, w.word) {
			ok++
		}
	}
	t.Logf("oracle round trip: %d/%d words bit-exact", ok, len(words))
}

func checkRoundTrip(t *testing.T, w uint64) bool {
	t.Helper()
	in, err := DecodeWord(w, 0)
	if err != nil {
		t.Errorf("%016x: %v", w, err)
		return false
	}
	text := Print(in, 0)
	back, err := ParseInst(text)
	if err != nil {
		t.Errorf("%016x: %q does not parse: %v", w, text, err)
		return false
	}
	if back.Raw != w {
		t.Errorf("%016x: %q assembles to %016x", w, text, back.Raw)
		return false
	}
	if again := Print(back, 0); again != text {
		t.Errorf("%016x: %q reprints as %q", w, text, again)
		return false
	}
	return true
}

var imgLine = regexp.MustCompile(`^\s*\d+: 0x([0-9A-F]{16})\s+(.*)$`)

// TestSGX540SpecialGroup checks the op1 0x1F group, which SGX543 shares with
// the SGX540, against Imagination's own disassembler output: the operation,
// predicate, end flag, branch targets (low 20 bits; the listing prints only
// target&7), limm destinations and immediates, and the full operands of
// ldr/str/idf/wdf (IMG's #decimal read as our 0xhex).
func TestSGX540SpecialGroup(t *testing.T) {
	dir := oracle.Path(t, "oracle/usse/sgx540-ukernel")
	files, _ := filepath.Glob(filepath.Join(dir, "*-disasm.txt"))
	total, ok := 0, 0
	seen := map[uint64]bool{}
	for _, fn := range files {
		data, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			m := imgLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			w, _ := strconv.ParseUint(m[1], 16, 64)
			if w>>59 != 0x1f || seen[w] {
				continue
			}
			seen[w] = true
			total++
			if msg := compareIMG(w, strings.TrimSpace(m[2])); msg != "" {
				t.Errorf("%016x %q: %s", w, m[2], msg)
				continue
			}
			ok++
		}
	}
	t.Logf("SGX540 0x1F group: %d/%d distinct words agree with IMG's disassembler", ok, total)
}

var imgDecimal = regexp.MustCompile(`#\d+`)

var imgPred = map[string]uint32{"p0": 1, "p1": 2, "p2": 3, "p3": 4, "!p0": 5, "!p1": 6}

func compareIMG(w uint64, text string) string {
	in, err := DecodeWord(w, 0)
	if err != nil {
		return err.Error()
	}
	f := strings.Fields(strings.ReplaceAll(text, ",", " "))
	var pred uint32
	if p, ok := imgPred[f[0]]; ok {
		pred, f = p, f[1:]
	}
	mn := f[0]
	base := strings.SplitN(mn, ".", 2)[0]
	got := in.Name()
	want := map[string]string{"nop": "nop", "ba": "branch", "br": "branch", "lapc": "lapc",
		"wdf": "wdf", "idf": "idf", "ldr": "ldrstr", "str": "ldrstr", "smlsi": "smlsi",
		"emitpds": "emit", "emitvtx": "emit", "invalid_mutex_number": "mutex"}[base]
	if base == "mov" {
		switch {
		case len(f) > 1 && f[1] == "pclink":
			want = "setl"
		case len(f) > 2 && f[2] == "pclink":
			want = "savl"
		default:
			want = "limm"
		}
	}
	if got != want {
		return "we decode " + got + ", IMG prints " + mn
	}
	if br, _ := in.Field("br"); want == "branch" && (base == "br") != (br == 1) {
		return "ba/br differ"
	}
	if p, has := in.Field("pred"); has && p != pred {
		return "predicate differs"
	}
	switch want {
	case "branch":
		if strings.HasSuffix(mn, ".savelink") {
			if v, _ := in.Field("savelink"); v != 1 {
				return "savelink not set"
			}
		}
		off, _ := in.Field("off")
		tgt := f[len(f)-1]
		neg := strings.HasPrefix(tgt, "-")
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(tgt, "-"), "#0x"), 16, 32)
		if err != nil {
			return "unreadable target"
		}
		low := uint64(off) & 7
		if neg {
			low = uint64(-int64(off)) & 7
		}
		if low != v&7 {
			return "branch target differs"
		}
	case "limm":
		imm, _ := in.Field("imm")
		ours := strings.Fields(strings.ReplaceAll(Print(in, 0), ",", " "))
		if _, isPred := imgPred[ours[0]]; isPred {
			ours = ours[1:]
		}
		if len(f) < 3 || len(ours) < 2 || strings.Contains(f[1], "[") {
			break // indexed destinations print differently in IMG syntax
		}
		if f[1] != ours[1] {
			return "limm destination differs: " + ours[1]
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(f[2], "#0x"), 16, 32)
		if err != nil || uint32(v) != imm {
			return "limm immediate differs"
		}
	}
	if want == "emit" {
		// IMG: [incp (always #0 here, not modelled) /* incp */], [registers,] side-band
		ops := strings.Split(strings.SplitN(text, " ", 2)[1], ",")
		if strings.TrimSpace(ops[0]) != "#0 /* incp */" {
			return "unexpected incp operand " + ops[0]
		}
		var img []string
		for _, o := range ops[1:] {
			o = strings.TrimSpace(o)
			if strings.HasPrefix(o, "#") {
				v, err := strconv.ParseUint(strings.TrimPrefix(o[1:], "0x"), map[bool]int{true: 16, false: 10}[strings.HasPrefix(o, "#0x")], 32)
				if err != nil {
					return "unreadable immediate " + o
				}
				o = "0x" + strconv.FormatUint(v, 16)
			}
			img = append(img, o)
		}
		ours := Print(in, 0)
		mnem, args, _ := strings.Cut(ours, " ")
		if args != strings.Join(img, ", ") {
			return "operands " + args + ", IMG " + strings.Join(img, ", ")
		}
		if strings.Contains(mn, ".tasks.taske") != strings.Contains(mnem, ".tasks.taske") {
			return "task flags differ: " + mnem
		}
	}
	switch want {
	case "ldrstr", "idf", "wdf", "setl", "savl", "smlsi":
		// operands in our spelling: #N is 0xN, drc is part of idf/wdf only
		img := strings.Join(f[1:], ", ")
		img = imgDecimal.ReplaceAllStringFunc(img, func(d string) string {
			v, _ := strconv.ParseUint(d[1:], 10, 32)
			return "0x" + strconv.FormatUint(v, 16)
		})
		img = strings.TrimSuffix(img, ", bif")
		ours := Print(in, 0)
		if i := strings.IndexByte(ours, ' '); i >= 0 {
			ours = ours[i+1:]
		}
		if img != ours {
			return "operands " + ours + ", IMG " + img
		}
	}
	if !strings.Contains(mn, ".end") == strings.Contains(Print(in, 0), ".end") {
		return "end flag differs: " + Print(in, 0)
	}
	return ""
}
