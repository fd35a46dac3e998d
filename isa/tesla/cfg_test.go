package tesla

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/cfgtest"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// A loop inside an SSY region, a call, a conditional RET and the end
// marker: the graph's blocks and edges.
func TestGraphsLoop(t *testing.T) {
	src := `
	SSY 0x30;
	MVI R1, 0x4;
	IADD32I R1, R1, 0xffffffff;
	CAL.NOINC 0x50;
	ISET.S32.C0 o[0x7f], R1, R124, NE;
	BRA C0.NE, 0x10;
	NOP.S;
	RET C0.EQ;
	MOV R0, R1;
	RET;
	MOV R2, R3;
	RET;
`
	code, err := Assemble("loop.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fns, errs := Graphs(code, 0, "k")
	if len(errs) != 0 || len(fns) != 2 || fns[1].Name != "k@50" {
		t.Fatalf("errors %v, functions %d", errs, len(fns))
	}
	// the assembler puts the end marker on the RET at 0x48, before the
	// subroutine
	want := "0x0-0x8: f0x10\n0x10-0x28: j0x10 f0x30\n0x30-0x38: f0x40\n0x40-0x48:\n"
	if got := fns[0].Graph.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if got := fns[1].Graph.String(); got != "0x50-0x58:\n" {
		t.Errorf("subroutine:\n%s", got)
	}
	if fns[0].Lines[5] != "BRA C0.NE, 0x10;" {
		t.Errorf("text %q", fns[0].Lines[5])
	}
}

// flexgripRows reads an app's program.tsv: NVIDIA's text of each
// instruction of program.bin.
func flexgripRows(t *testing.T, dir string) []cfgtest.Row {
	data, err := os.ReadFile(filepath.Join(dir, "program.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []cfgtest.Row
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		c := strings.Split(line, "\t")
		a, err := strconv.ParseUint(c[0], 16, 64)
		if err != nil || len(c) < 3 {
			t.Fatalf("%s: bad row %q", dir, line)
		}
		rows = append(rows, cfgtest.Row{Addr: a, Text: c[2]})
	}
	return rows
}

// The reduction app's main graph and its division subroutine, checked by
// hand against the cuobjdump listing.
func TestGraphsReduction(t *testing.T) {
	dir := oracle.Path(t, "oracle/flexgrip-apps/reduction")
	code, err := os.ReadFile(filepath.Join(dir, "program.bin"))
	if err != nil {
		t.Fatal(err)
	}
	fns, errs := Graphs(code, 0, "reduction")
	if len(errs) != 0 || len(fns) != 2 || fns[1].Name != "reduction@f0" {
		t.Fatalf("errors %v, functions %d", errs, len(fns))
	}
	want := "0x0-0x48: j0xd0 f0x50\n0x50-0x58: f0x60\n0x60-0xc0: j0x60 f0xc8\n0xc8-0xc8: f0xd0\n0xd0-0xd8: f0xe0\n0xe0-0xe8:\n"
	if got := fns[0].Graph.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if got := fns[1].Graph.String(); got != "0xf0-0x208:\n" {
		t.Errorf("subroutine:\n%s", got)
	}
}

// sassRealKernels cuts sm_10.tsv into kernels: runs of rows whose offsets
// start at 0 and follow each other.
func sassRealKernels(t *testing.T) (codes [][]byte, rows [][]cfgtest.Row) {
	var code []byte
	var rs []cfgtest.Row
	flush := func() {
		if len(rs) > 0 {
			codes, rows = append(codes, code), append(rows, rs)
		}
		code, rs = nil, nil
	}
	for _, r := range readOracle(t, "oracle/sass-real/sm_10.tsv") {
		if r.offset != uint64(len(code)) {
			flush()
			if r.offset != 0 {
				continue // a kernel with a gap: not used
			}
		}
		n := 8
		if r.short {
			n = 4
		}
		for k := 0; k < n; k++ {
			code = append(code, byte(r.value>>(8*k)))
		}
		rs = append(rs, cfgtest.Row{Addr: r.offset, Text: r.text})
	}
	flush()
	return codes, rows
}

// Every branch, SSY and call of the oracle's real sm_10 kernels (the
// FlexGrip apps and the sass-real listings) is where NVIDIA's text says.
func TestGraphsOracle(t *testing.T) {
	var all cfgtest.Stats
	kernels, facts := 0, 0
	check := func(name string, code []byte, rows []cfgtest.Row) {
		fns, _ := Graphs(code, 0, name)
		st, bad := cfgtest.Check(fns, rows)
		for _, b := range bad {
			t.Errorf("%s: %s", name, b)
		}
		all.Add(st)
		kernels++
		for _, r := range rows {
			inst, err := Decode(code[r.Addr:], r.Addr)
			if err != nil {
				continue
			}
			if ok, err := cfgtest.Facts(BranchFacts(inst, r.Addr, 0), r.Text); ok {
				facts++
				if err != nil {
					t.Errorf("%s: %#x %s: %v", name, r.Addr, r.Text, err)
				}
			}
		}
	}
	apps, _ := filepath.Glob(filepath.Join(oracle.Path(t, "oracle/flexgrip-apps"), "*", "program.bin"))
	for _, p := range apps {
		code, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		check(filepath.Base(filepath.Dir(p)), code, flexgripRows(t, filepath.Dir(p)))
	}
	codes, rows := sassRealKernels(t)
	for i := range codes {
		check("sm_10.tsv#"+strconv.Itoa(i), codes[i], rows[i])
	}
	t.Logf("%d kernels: %v; branch facts of %d control instructions checked", kernels, all, facts)
	if kernels < 25 || all.Jumps < 70 || all.Pushes < 15 || all.Calls < 2 {
		t.Errorf("too few cases: %d kernels, %v", kernels, all)
	}
}

// The branch facts of every control instruction of the oracle's sm_1x
// rows are what NVIDIA's text at the row's address shows.
func TestBranchFactsOracle(t *testing.T) {
	control, bad := 0, 0
	for _, rel := range []string{"oracle/sass-real/sm_10.tsv", "oracle/sass-real/sm_12.tsv", "oracle/sass-real/extra/sm_10.flexgrip-vhdl-transcribed.tsv"} {
		for _, r := range readOracle(t, rel) {
			inst, err := DecodeValue(r.value, r.offset)
			if err != nil {
				continue
			}
			ok, err := cfgtest.Facts(BranchFacts(inst, r.offset, 0), r.text)
			if !ok {
				continue
			}
			control++
			if err != nil {
				if bad++; bad <= 20 {
					t.Errorf("%s:%d: %#x %s: %v", rel, r.line, r.value, r.text, err)
				}
			}
		}
	}
	t.Logf("%d/%d control instructions right", control-bad, control)
	if control < 100 {
		t.Errorf("only %d control instructions", control)
	}
}
