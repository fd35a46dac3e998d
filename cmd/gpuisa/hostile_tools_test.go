package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/fuzzseed"
)

// Regression tests for the input paths of the commands main added after
// issue 11's first fixes (check, dis -cfg/-json, as -patch, the NVIDIA
// drop-ins, inject): every file goes through the input limit, and -optf
// files cannot recurse.

// sparseFile makes a file of size bytes that takes no room (or skips).
func sparseFile(t *testing.T, name string, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skip("no sparse files here:", err)
	}
	return p
}

// TestNewPathsLimited: a file over the input limit (here lowered to 1 MiB)
// is refused from its size by every command that reads one, before it is
// read, with a message that says so; standard input that never ends too.
func TestNewPathsLimited(t *testing.T) {
	big := sparseFile(t, "big.cubin", 2<<20)
	small := filepath.Join(t.TempDir(), "k.cubin")
	if err := os.WriteFile(small, readRepo(t, patchCubinFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		stdin bool // read from an endless standard input
		want  string
	}{
		{[]string{"check", big}, false, "more than the limit of 1 MiB"},
		{[]string{"check", "-arch", "sm_52", "-"}, true, "<stdin>: more than the limit of 1 MiB"},
		{[]string{"dis", "-cfg", big}, false, "more than the limit of 1 MiB"},
		{[]string{"dis", "-json", big}, false, "more than the limit of 1 MiB"},
		{[]string{"dis", "-json", "-arch", "sm_52", "-"}, true, "<stdin>: more than the limit of 1 MiB"},
		{[]string{"dis", "-dialect", "old", "-arch", "sm_20", "-"}, true, "<stdin>: more than the limit of 1 MiB"},
		{[]string{"as", "-patch", big, "-fun", "saxpy", "-"}, false, "more than the limit of 1 MiB"},
		{[]string{"as", "-patch", small, "-fun", "saxpy", "-"}, true, "<stdin>: more than the limit of 1 MiB"},
		{[]string{"nvdisasm", big}, false, "nvdisasm fatal   : " + big + ": 2097152 bytes, more than the limit of 1 MiB"},
		{[]string{"cuobjdump", "-sass", big}, false, "cuobjdump fatal   : " + big + ": 2097152 bytes, more than the limit of 1 MiB"},
	} {
		var out, errb bytes.Buffer
		cio := &cmdIO{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, inputLimit: 1 << 20}
		if c.stdin {
			cio.stdin = endless{}
		}
		st := findCommand(c.args[0]).invoke(c.args[1:], cio)
		if st != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("gpuisa %s: exit %d, stderr:\n%s\nwant exit 1 and %q", strings.Join(c.args, " "), st, errb.String(), c.want)
		}
	}
}

// TestOptionsFileLoop: an -optf file that names itself recursed until the
// goroutine stack ran out (a fatal error no recover catches); now its
// nesting is bounded, and an options file over 1 MiB is refused.
func TestOptionsFileLoop(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.optf")
	if err := os.WriteFile(loop, []byte("-optf "+loop+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"nvdisasm", "cuobjdump"} {
		r := invoke(nil, tool, "-optf", loop, "x.cubin")
		if r.status != 1 || !strings.Contains(string(r.stderr), tool+" fatal   : Options files nested more than 8 deep") {
			t.Errorf("%s -optf loop: exit %d, %s", tool, r.status, r.stderr)
		}
	}
	big := sparseFile(t, "big.optf", 2<<20)
	r := invoke(nil, "nvdisasm", "-optf", big, "x.cubin")
	if r.status != 1 || !strings.Contains(string(r.stderr), "more than the limit of 1 MiB") {
		t.Errorf("nvdisasm -optf of 2 MiB: exit %d, %s", r.status, r.stderr)
	}
}

// TestInjectFilesLimited: inject reads a campaign file, and the launch file
// it names, through the launch file limit (16 MiB).
func TestInjectFilesLimited(t *testing.T) {
	big := sparseFile(t, "big.json", 32<<20)
	r := invoke(nil, "inject", "plan", big)
	if r.status != 1 || !strings.Contains(string(r.stderr), "more than the limit of 16 MiB") {
		t.Errorf("inject plan of a 32 MiB campaign: exit %d, %s", r.status, r.stderr)
	}
	c := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(c, []byte(`{"launch": "`+big+`", "injections": 10, "experiments": [{"model": "flip1", "bit": 4}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = invoke(nil, "inject", "plan", c)
	if r.status != 1 || !strings.Contains(string(r.stderr), "more than the limit of 16 MiB") {
		t.Errorf("inject plan of a campaign naming a 32 MiB launch file: exit %d, %s", r.status, r.stderr)
	}
}

// TestSequenceBudget: -budget holds for a sequence's launches together (a
// launch file repeating a long kernel 2^20 times ran each repetition with
// a budget of its own); the same launches run within a larger budget.
func TestSequenceBudget(t *testing.T) {
	// about 196,600 warp-instructions per launch
	count := "MOV32I R0, 0x10000;\nloop:\nIADD32I R0, R0, -0x1;\nISETP.NE.AND P0, PT, R0, RZ, PT;\n@P0 BRA loop;\nEXIT;\n"
	launch := `{"program": "c.s", "arch": "sm_52", "grid": [1], "block": [1], "launches": [{"repeat": 8}]}`
	files := map[string][]byte{"c.s": []byte(count)}
	r := runExpect(t, launch, files, "(repetition 5): block (0,0,0)", "-budget", "1000000")
	// the message names the run's budget, not what this launch had left
	if !strings.Contains(string(r.stderr), "the run's budget of 1000000 warp-instructions, for all its launches: ") ||
		!strings.Contains(string(r.stderr), " by the 5 before this one, ") || !strings.Contains(string(r.stderr), "(launch 6)") {
		t.Errorf("budget message: %s", r.stderr)
	}
	r = invoke(nil, "run", "-budget", "2000000", launchDir(t, launch, files))
	if r.status != 0 || !strings.Contains(string(r.stdout), "8 launches") {
		t.Fatalf("within the budget: exit %d\n%s%s", r.status, r.stdout, r.stderr)
	}
}

// TestSequenceStepErrorsLocated: a step's problem that shows only when a
// later repetition expands its templates, after launches have run, is at
// the step's line and column (FuzzRun found it without a position); one
// that the launch file shows before anything runs is reported before.
func TestSequenceStepErrorsLocated(t *testing.T) {
	files := map[string][]byte{"k.s": []byte("EXIT;\n")}
	head := `{"program": "k.s", "arch": "sm_52", "grid": [1], "block": [1],` + "\n" +
		` "buffers": {"b0": {"bytes": 4}, "b1": {"bytes": 4}},` + "\n"
	launch := head + ` "launches": [{"launches": [{"repeat": 3, "params": [{"ptr": "b{$i}"}]}]}]}`
	r := runExpect(t, launch, files, `launch.json:3:62: step 0 (repetition 0): step 0 (repetition 2): params[0]: ptr to unknown buffer "b2"`)
	if !strings.Contains(string(r.stdout), "2 launches") {
		t.Errorf("the two launches before the problem: %s", r.stdout)
	}
	launch = head + ` "launches": [{}, {"launches": [{"params": [{"ptr": "b3"}]}]}]}`
	r = runExpect(t, launch, files, `launch.json:3:53: launch file: launches: step 1: step 0: params[0]: ptr to unknown buffer "b3"`)
	if len(r.stdout) != 0 {
		t.Errorf("launches ran before the launch file's problem was reported: %s", r.stdout)
	}
}

// TestOutputErrorsLocated: an output that cannot be written (its name
// holds a directory that is a file written before it) is reported at its
// file's line and column; a name with a directory is written, by shader
// launches too (FuzzRun: "c./ut" was an unplaced error from a shader launch).
func TestOutputErrorsLocated(t *testing.T) {
	files := map[string][]byte{"k.s": []byte("EXIT;\n")}
	launch := `{"program": "k.s", "arch": "sm_52", "grid": [1], "block": [1], "buffers": {"b": {"bytes": 4}},` + "\n" +
		` "outputs": [{"buffer": "b", "file": "c"},` + "\n" + ` {"buffer": "b", "file": "c/x"}, {"buffer": "b", "file": "d./e"}]}`
	p := launchDir(t, launch, files)
	out := filepath.Join(filepath.Dir(p), "out")
	r := invoke(nil, "run", "-out", out, p)
	checkContract(t, r, false)
	if r.status != 1 || !strings.Contains(string(r.stderr), `launch.json:3:26: outputs[1]: file c/x: mkdir `) {
		t.Errorf("exit %d, stderr:\n%s", r.status, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "d.", "e")); err != nil {
		t.Errorf("the output after the one that failed: %v", err)
	}
}

// TestCampaignErrorsLocated: a campaign file's problems name the file and
// the line:column of the value they are about, as a launch file's do.
func TestCampaignErrorsLocated(t *testing.T) {
	launch := filepath.Join(fuzzseedRoot(t), "examples", "maxwell", "saxpy.json")
	for _, c := range []struct{ text, want string }{
		{`{"launch": "L",` + "\n" + ` "injections": 10,` + "\n" + ` "experiments": [{"model": "flip1", "bit": 40}]}`, "c.json:3:18: campaign file: experiments[0]: flip1: bit is 0..31"},
		{`{"launch": "L",` + "\n" + ` "injections": -1, "experiments": [{"model": "flip1"}]}`, "c.json:2:16: campaign file: injections -1 is not in 0..1e8"},
		{`{"launch": 5}`, "c.json:1:12: campaign file: json: cannot unmarshal number"},
		{`{"launch": "L",` + "\n" + ` "experiments": [`, "c.json:2:18: campaign file: unexpected EOF"},
	} {
		p := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(p, []byte(strings.Replace(c.text, `"L"`, `"`+launch+`"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := invoke(nil, "inject", "plan", p)
		if r.status != 1 || !strings.Contains(string(r.stderr), c.want) {
			t.Errorf("%s: exit %d, %s; want %q", c.text, r.status, r.stderr, c.want)
		}
	}
}

func fuzzseedRoot(t *testing.T) string {
	root := fuzzseed.Root()
	if root == "" {
		t.Skip("no module root")
	}
	return root
}

// TestInjectShaderFilesLimited: a shader campaign hashes every file its
// launch names; a huge one (or a device) was read whole, now through the
// launch's 1 GiB limit.
func TestInjectShaderFilesLimited(t *testing.T) {
	big := sparseFile(t, "big.bin", 2<<30)
	dir := t.TempDir()
	gxp := filepath.Join(fuzzseedRoot(t), "examples", "usse", "sum_v.gxp")
	launch := filepath.Join(dir, "l.json")
	if err := os.WriteFile(launch, []byte(`{"program": "`+gxp+`", "arch": "sgx543", "count": 4,
  "memory": [{"addr": "0x100", "file": "`+big+`"}], "memory_bytes": "0x1000"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "c.json")
	if err := os.WriteFile(c, []byte(`{"launch": "l.json", "injections": 10, "experiments": [{"model": "flip1", "bit": 4}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke(nil, "inject", "plan", c)
	if r.status != 1 || !strings.Contains(string(r.stderr), "more than the limit of 1 GiB") {
		t.Errorf("inject plan of a shader launch naming a 2 GiB file: exit %d, %s", r.status, r.stderr)
	}
}
