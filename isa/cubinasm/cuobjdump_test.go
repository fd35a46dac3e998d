package cubinasm

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// teslaFermiCubins returns the Tesla and Fermi cubins of ours: the
// committed examples, two-kernel cubins Write makes with every fact set
// (parameters, barriers, constant banks, shared and local memory), and when
// the oracle is present, cubins Write makes around real code: the 20
// FlexGrip sm_10 programs (without the RET FlexGrip appends) with their
// launch's parameters and constant bank c1, and the complete functions of the sm_20 listings of sass-real.
func teslaFermiCubins(t *testing.T) map[string][]byte {
	cubins := map[string][]byte{}
	for _, p := range []string{"../../examples/tesla/vecadd.cubin", "../../isa/all/testdata/copy.sm_20.cubin"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cubins[p] = b
	}
	write := func(key string, m *cubin.Module) {
		b, err := cubin.Write(m)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		cubins[key] = b
	}
	for _, sm := range []int{10, 11, 12, 13, 20, 21} {
		code := []byte{}
		if sm >= 20 {
			code = bytes.Repeat([]byte{0xe7, 0x1d, 0, 0, 0, 0, 0, 0x80}, 2) // EXIT
		} else {
			code = []byte{0x01, 0x00, 0x00, 0xf0, 0x01, 0xe0, 0x00, 0x00} // a NOP
		}
		m := cubin.DefaultModule(sm, "one", code, 4, 4, 8)
		k := m.Kernels[0]
		k.Name, k.Registers, k.Barriers, k.SharedSize, k.LocalSize = "two", 16, 1, 0x100, 0x20
		k.Params = append(k.Params[:0:0], k.Params...)
		k.Params[1].LogAlign, k.Params[1].Space = 3, 1
		c1 := make([]byte, 0x44)
		c1[0], c1[0x40] = 0x3f, 0x80
		k.Constants = []cubin.ConstBank{{Bank: 1, Data: c1}}
		m.Kernels = append(m.Kernels, k)
		write("Write sm_"+strconv.Itoa(sm), m)
	}
	shared := oracle.SharedDir()
	if shared == "" {
		t.Log(oracle.Absent + ": only the committed and Write-made cubins")
		return cubins
	}
	if dir := filepath.Join(shared, "oracle/flexgrip-apps"); true {
		apps, _ := filepath.Glob(filepath.Join(dir, "*", "launch.json"))
		for i, p := range apps {
			app := filepath.Dir(p)
			var launch struct {
				Params []json.RawMessage `json:"params"`
			}
			lj, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(lj, &launch); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			code, err := os.ReadFile(filepath.Join(app, "program.bin"))
			if err != nil {
				t.Fatal(err)
			}
			// FlexGrip appends a RET after the instruction carrying the end
			// flag; nvcc's code ends at that instruction
			if tsv, err := os.ReadFile(filepath.Join(app, "program.tsv")); err == nil {
				rows := strings.Split(strings.TrimSpace(string(tsv)), "\n")
				if last := strings.Split(rows[len(rows)-1], "\t"); len(last) > 3 && last[3] == "flexgrip-appended" && len(last[1]) == 18 {
					code = code[:len(code)-8]
				}
			}
			sizes := make([]uint32, len(launch.Params))
			for j := range sizes {
				sizes[j] = 4
			}
			m := cubin.DefaultModule(10, filepath.Base(app), code, 8+i%8, sizes...)
			if c1, err := os.ReadFile(filepath.Join(app, "const_c1.bin")); err == nil {
				m.Kernels[0].Constants = []cubin.ConstBank{{Bank: 1, Data: c1}}
			}
			m.Kernels[0].SharedSize = uint64(0x40 * (i % 3))
			write("flexgrip/"+filepath.Base(app), m)
		}
	}
	if dir := filepath.Join(shared, "oracle/sass-real/sm_20-listings"); true {
		lsts, _ := filepath.Glob(filepath.Join(dir, "*.lst"))
		for i, p := range lsts {
			m := &cubin.Module{SM: 20, VirtualSM: 20}
			for j, fn := range compactListing(t, p) {
				k := cubin.DefaultModule(20, fn.name, fn.code, 10+j, 4, 8, 4).Kernels[0]
				k.SharedSize, k.Barriers = uint64(0x80*(i%2)), i%2
				m.Kernels = append(m.Kernels, k)
			}
			if len(m.Kernels) > 0 {
				write("sass-real/"+filepath.Base(p), m)
			}
		}
	}
	return cubins
}

type compactFunc struct {
	name string
	code []byte
}

// compactListing reads the complete functions of a sass-real compact
// listing: "F name lastoffset" lines, each followed by the function's
// instruction words, 16 hex digits each (the low 32-bit word first;
// "F name ? partial" functions are left out).
func compactListing(t *testing.T, path string) []compactFunc {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []compactFunc
	var cur *compactFunc
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 3 && fields[0] == "F":
			cur = nil
			if len(fields) == 3 && fields[2] != "?" && !seen[fields[1]] {
				seen[fields[1]] = true
				out = append(out, compactFunc{name: fields[1]})
				cur = &out[len(out)-1]
			}
		case len(fields) == 1 && len(fields[0]) == 16 && cur != nil:
			// the low word's digits, then the high word's
			lo, err1 := strconv.ParseUint(fields[0][:8], 16, 32)
			hi, err2 := strconv.ParseUint(fields[0][8:], 16, 32)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: bad word %q", path, fields[0])
			}
			cur.code = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(cur.code, uint32(lo)), uint32(hi))
		}
	}
	return out
}

// TestRebuildTeslaFermi: the Tesla and Fermi cubins of ours, listed as
// gpuisa dis -facts lists them (cuobjdump -sass style with .cubin fact
// lines), rebuild byte for byte; a cubin that does not is listed with each
// difference, and must list the same (CUDA 11.8's cuobjdump lists no
// sm_1x/sm_2x cubin, so our listing is the judge). Without the facts the
// code and names still come back, the rest takes defaults.
func TestRebuildTeslaFermi(t *testing.T) {
	cubins := teslaFermiCubins(t)
	same := 0
	for _, k := range sortedKeys(cubins) {
		want := cubins[k]
		wf, err := cubin.Parse(want)
		if err != nil {
			t.Fatal(err)
		}
		listing, errs := all.ListCubinFacts(nil, wf, maxwell.ListOptions{})
		if len(errs) > 0 {
			t.Logf("%s: %d encodings listed as .word: %v", k, len(errs), errs[0])
		}
		if !IsCuobjdumpListing(listing) || IsCubinListing(listing) {
			t.Fatalf("%s: the listing is not recognised as cuobjdump-style", k)
		}
		got, defaulted, err := RebuildCuobjdump(k, listing)
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if len(defaulted) > 0 {
			t.Errorf("%s: functions %v took defaults despite their facts", k, defaulted)
		}
		if bytes.Equal(got, want) {
			same++
		} else {
			for _, d := range Compare(got, want) {
				t.Errorf("%s: %s", k, d)
			}
			gf, err := cubin.Parse(got)
			if err != nil {
				t.Fatalf("%s: rebuilt cubin does not parse: %v", k, err)
			}
			if again, _ := all.ListCubinFacts(nil, gf, maxwell.ListOptions{}); !bytes.Equal(again, listing) {
				t.Errorf("%s: the rebuilt cubin lists differently: %s", k, firstLineDiff(again, listing))
			}
		}
		// without facts: the same code and names, the rest defaulted
		plain, _ := all.ListCubin(nil, wf, maxwell.ListOptions{})
		got, defaulted, err = RebuildCuobjdump(k, plain)
		if err != nil {
			t.Errorf("%s without facts: %v", k, err)
			continue
		}
		if len(defaulted) != len(wf.Functions) {
			t.Errorf("%s without facts: %d functions defaulted, want %d", k, len(defaulted), len(wf.Functions))
		}
		gf, err := cubin.Parse(got)
		if err != nil {
			t.Fatalf("%s: rebuilt cubin does not parse: %v", k, err)
		}
		for i, fn := range wf.Functions {
			if !bytes.Equal(gf.Functions[i].Code, fn.Code) || gf.Functions[i].Name != fn.Name {
				t.Errorf("%s without facts: function %s's code differs", k, fn.Name)
			}
		}
	}
	t.Logf("%d/%d Tesla and Fermi cubins of ours rebuild byte for byte from gpuisa dis -facts listings", same, len(cubins))
	if len(cubins) < 8 {
		t.Errorf("only %d Tesla and Fermi cubins", len(cubins))
	}
}

// TestCubinFactErrors: bad .cubin lines are errors at their line.
func TestCubinFactErrors(t *testing.T) {
	head := "\tcode for sm_20\n\t\tFunction : k\n"
	code := "        /*0000*/        EXIT;\n"
	for _, tc := range []struct{ facts, want string }{
		{"\t.cubin registers=300 barriers=0 parambase=0x20 paramsize=0 shared=0 local=0\n", "3:2: .cubin registers=0x12c out of range"},
		{"\t.cubin registers=4\n", "without barriers="},
		{"\t.cubin bogus x=1\n", "unknown .cubin line"},
		{"\t.cubin const bank=1 at=0x0 data=00ff\n", "before the bank's size line"},
		{"\t.cubin const bank=1 size=0x4\n\t.cubin const bank=1 at=0x2 data=00ff00\n", "run past"},
		{"\t.cubin class=32 eflags=0xa000a\n", "is for sm_10"},
		{"\t.cubin class=16 eflags=0x140014\n", "want 32 or 64"},
		{"\t.cubin param ordinal=0 offset=0 size=4 logalign=0 space=0 cbank=0x1f smem=0 index=0 extra=1\n", "unknown .cubin field extra"},
		{"\t.cubin registers=4 registers=5\n", "given twice"},
	} {
		_, _, err := RebuildCuobjdump("f.s", []byte(head+tc.facts+code))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.facts, err, tc.want)
		}
	}
	// facts outside a function are text outside a function
	if _, _, err := RebuildCuobjdump("f.s", []byte("\tcode for sm_20\n\t.cubin class=64 eflags=0x140014\n")); err == nil {
		t.Error("a fact before any function was accepted")
	}
}

// TestCuobjdumpUnknownSM: a "code for" line naming no architecture we know
// is an error at that line (FuzzAs in cmd/gpuisa found "sm_1" reported as
// the file's problem, without a position).
func TestCuobjdumpUnknownSM(t *testing.T) {
	for _, sm := range []string{"sm_1", "sm_0", "sm_14", "sm_22", "sm_007"} {
		_, _, err := RebuildCuobjdump("f.s", []byte("\tcode for "+sm+"\nFunction : s\n"))
		if err == nil || !strings.HasPrefix(err.Error(), "f.s:1:1: ") {
			t.Errorf("code for %s: got %v, want an error at f.s:1:1", sm, err)
		}
	}
}
