package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
	"github.com/gpuisa/gpuisa/internal/fuzzseed"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// Regression tests for the root causes of issue 11 (hostile input), each
// built from the input the issue reports; docs/limits.md describes the
// limits they check.

// launchDir writes a launch file and its files to a new directory and
// returns the launch file's path.
func launchDir(t *testing.T, launch string, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "launch.json")
	if err := os.WriteFile(p, []byte(launch), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runExpect runs a launch file and wants exit status 1 with every message
// in the contract and one containing want.
func runExpect(t *testing.T, launch string, files map[string][]byte, want string, flags ...string) cliResult {
	t.Helper()
	p := launchDir(t, launch, files)
	r := invoke(nil, append(append([]string{"run"}, flags...), p)...)
	checkContract(t, r, false)
	if r.status != 1 || !strings.Contains(string(r.stderr), want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and %q", r.status, r.stderr, want)
	}
	return r
}

// spin is an sm_5x kernel that never ends (a barrier keeps every warp
// yielding).
const spin = "loop:\nBAR.SYNC 0x0;\nBRA loop;\nEXIT;\n"

// TestTextureSizeOverflow: a texture of 65535^3 texels x 65535 layers of
// rgba32f (2^68 bytes, which wrapped; make panicked) and one of 64 GiB
// (allocated before the check, then out of memory) are rejected before
// anything is allocated, at the texture's line and column.
func TestTextureSizeOverflow(t *testing.T) {
	for _, tex := range []string{
		`{"format": "rgba32f", "size": [65535, 65535, 65535], "layers": 65535}`,
		`{"format": "rgba32f", "size": [65535, 65535, 16]}`,
		`{"format": "r8ui", "size": [65535, 65535, 65535], "levels": 16}`,
	} {
		start := time.Now()
		r := runExpect(t, `{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "textures": {"t": `+tex+`}}`, map[string][]byte{"p.s": []byte("EXIT;\n")}, "launch.json:2:")
		if !strings.Contains(string(r.stderr), "bytes of global memory") {
			t.Errorf("stderr %s", r.stderr)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v", tex, d)
		}
	}
}

// TestLaunchBudget: a grid of [65535,65535,1] ran until killed, printing
// nothing; now the launch-wide budget stops it, and -timeout too.
func TestLaunchBudget(t *testing.T) {
	files := map[string][]byte{"p.s": []byte("EXIT;\n")}
	launch := `{"program": "p.s", "arch": "sm_52", "grid": [65535, 65535, 1], "block": [32]}`
	runExpect(t, launch, files, "launch budget used up", "-budget", "100000")
	start := time.Now()
	runExpect(t, launch, files, "time limit reached", "-timeout", "300ms")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("-timeout 300ms took %v", d)
	}
	// max_steps of 2^64-1 no longer means "no limit": the budget holds
	runExpect(t, `{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [64], "max_steps": "0xffffffffffffffff"}`,
		map[string][]byte{"p.s": []byte(spin)}, "launch budget used up", "-budget", "1000000")
}

// TestSmallBudget: a budget under 65536 warp-instructions stops a launch
// near it; a block used to run 65536 between looks at the launch's
// counters whatever -budget said (found with FuzzRunKernel, whose fuzzed
// endless loops ran 65536 with its budget of 20000).
func TestSmallBudget(t *testing.T) {
	for _, loop := range []string{spin, "loop:\nBRA loop;\nEXIT;\n"} {
		r := runExpect(t, `{"program": "p.s", "arch": "sm_52", "grid": [2], "block": [64]}`,
			map[string][]byte{"p.s": []byte(loop)}, "launch budget used up", "-budget", "1000", "-workers", "1")
		m := regexp.MustCompile(`(\d+) warp-instructions \(`).FindSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("no count of warp-instructions:\n%s", r.stdout)
		}
		// a warp's turn (up to 4096) is charged at once
		if n, _ := strconv.Atoi(string(m[1])); n > 1000+4096 {
			t.Errorf("-budget 1000 ran %d warp-instructions", n)
		}
	}
}

// TestRunawayStopsQuickly: the per-block step limit stops a runaway block
// of 1024 threads within seconds (it took 16-20 s at 2^26 steps).
func TestRunawayStopsQuickly(t *testing.T) {
	// CPU time, not wall time: on a loaded shared machine the wall time
	// says more about the load than about the limit
	start := benchcpu.Now()
	runExpect(t, `{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1024]}`,
		map[string][]byte{"p.s": []byte(spin)}, "step limit reached")
	if d := benchcpu.Now() - start; d > 20*time.Second {
		t.Errorf("the runaway block stopped after %v of CPU time", d)
	}
}

// TestArchLimits: shapes and sizes past the architecture's are rejected
// before running: sm_1x grids are 2-D and at most 65535 a side, shared
// memory is 16 KiB (sm_1x) or 48 KiB (sm_5x), a constant bank 64 KiB.
func TestArchLimits(t *testing.T) {
	tesla := map[string][]byte{"p.s": []byte("RET;\n")}
	mx := map[string][]byte{"p.s": []byte("EXIT;\n")}
	for _, c := range []struct {
		launch string
		files  map[string][]byte
		want   string
	}{
		{`{"program": "p.s", "arch": "sm_10", "grid": [1073741824], "block": [1]}`, tesla, "sm_10 allows at most [65535,65535,1]"},
		{`{"program": "p.s", "arch": "sm_10", "grid": [2, 2, 2], "block": [1]}`, tesla, "sm_10 allows at most [65535,65535,1]"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1], "shared_bytes": "0x40000000"}`, mx, "allows at most 49152"},
		{`{"program": "p.s", "arch": "sm_10", "grid": [1], "block": [1], "shared_bytes": 16384}`, tesla, "allows at most 16384"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [2048]}`, mx, "launch.json:1:59: block [2048,1,1]: sm_52 allows at most [1024,1024,64]"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "memory": [{"space": "constant", "bank": 1, "addr": "0x3fffff00", "bytes": 256}]}`, mx, "constant image of 0x100 bytes at 0x3fffff00 ends past"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "memory": [{"space": "shared", "addr": "0xff00", "bytes": 512}]}`, mx, "shared image"},
	} {
		runExpect(t, c.launch, c.files, c.want)
	}
}

// TestSilentDamage: what used to be ignored or misread is an error naming
// its place in the launch file.
func TestSilentDamage(t *testing.T) {
	mx := map[string][]byte{"p.s": []byte("EXIT;\n")}
	for _, c := range []struct {
		launch string
		files  map[string][]byte
		want   string
	}{
		// written outside -out DIR
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "buffers": {"b": {"bytes": 16}}, "outputs": [{"buffer": "b", "file": "../x.bin"}]}`, mx, "launch.json:2:72: launch file: outputs[0]: file \"../x.bin\" is not a plain name"},
		// shared memory read as global
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "outputs": [{"space": "shared", "addr": 0, "bytes": 16, "file": "s.bin"}]}`, mx, "launch.json:2:25: launch file: outputs[0]: space \"shared\": outputs and expectations read global memory"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "expect": [{"space": "shared", "words": "w.tsv"}]}`, mx, "outputs and expectations read global memory"},
		// a 64-bit value for a u32 parameter
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1],
  "params": [{"u32": "0xffffffffffffffff"}]}`, mx, "launch.json:2:22: launch file: params[0]: u32 \"0xffffffffffffffff\" out of range"},
		// what the sm_1x runner ignored
		{`{"program": "v.cubin", "grid": [1], "block": [1], "params": [{"u32": 1}]}`,
			map[string][]byte{"v.cubin": readRepo(t, "examples/tesla/vecadd.cubin")}, "the launch gives 1 parameters, the kernel takes 4"},
		{`{"program": "p.s", "arch": "sm_10", "link": ["x.cubin"], "grid": [1], "block": [1]}`,
			map[string][]byte{"p.s": []byte("RET;\n"), "x.cubin": readRepo(t, "examples/tesla/vecadd.cubin")}, "\"link\" is an sm_5x extension"},
		{`{"program": "p.s", "arch": "sm_10", "grid": [1], "block": [1], "textures": {"t": {"format": "r32f", "size": [4]}}}`,
			map[string][]byte{"p.s": []byte("RET;\n")}, "sm_5x extensions"},
		{`{"program": "p.s", "arch": "sm_10", "grid": [1], "block": [1], "surfaces": {"s": {"format": "r32f", "size": [4]}}}`,
			map[string][]byte{"p.s": []byte("RET;\n")}, "sm_5x extensions"},
	} {
		runExpect(t, c.launch, c.files, c.want, "-out", filepath.Join(t.TempDir(), "out"))
	}
}

// TestHugeFiles: a program, a memory image or a buffer file larger than its
// limit is rejected from its size, before it is read (sparse files: the
// test reads nothing either).
func TestHugeFiles(t *testing.T) {
	prog := sparseFile(t, "prog.bin", 300<<20)
	img := sparseFile(t, "img.bin", 3<<30)
	for _, c := range []struct{ launch, want string }{
		{`{"program": "` + prog + `", "arch": "sm_52", "grid": [1], "block": [1]}`, "more than the limit of 256 MiB"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1], "memory": [{"addr": 0, "file": "` + img + `"}]}`, "3221225472 bytes, more than the limit of 1 GiB"},
		{`{"program": "p.s", "arch": "sm_52", "grid": [1], "block": [1], "buffers": {"b": {"file": "` + img + `"}}}`, "buffer \"b\": " + img + ": 3221225472 bytes, more than the limit of 1 GiB"},
	} {
		runExpect(t, c.launch, map[string][]byte{"p.s": []byte("EXIT;\n")}, c.want)
	}
}

// endless is a reader that never ends (dis of /dev/zero or an endless pipe
// read it all before any check).
type endless struct{}

func (endless) Read(b []byte) (int, error) { clear(b); return len(b), nil }

// TestEndlessInput: dis and as read through the input limit.
func TestEndlessInput(t *testing.T) {
	// sm_10, sm_20 and sgx543 list raw code as they read it: the same limit
	// stops the stream, and at most maxPrintedErrors decode errors print
	for _, args := range [][]string{{"-arch", "sm_52", "-"}, {"-"}, {"-arch", "sm_10", "-"}, {"-arch", "sm_20", "-"}, {"-arch", "sgx543", "-"}} {
		var out, errb bytes.Buffer
		cio := &cmdIO{stdin: endless{}, stdout: io.Discard, stderr: &errb, inputLimit: 1 << 20}
		if st := findCommand("dis").invoke(args, cio); st != 1 || !strings.Contains(errb.String(), "<stdin>: more than the limit of 1 MiB") {
			t.Errorf("dis %v: exit %d, %s", args, st, errb.String())
		}
		if n := strings.Count(errb.String(), "\n"); n > maxPrintedErrors+2 {
			t.Errorf("dis %v: %d lines of errors", args, n)
		}
		_ = out
	}
	var out, errb bytes.Buffer
	cio := &cmdIO{stdin: endless{}, stdout: &out, stderr: &errb, inputLimit: 1 << 20}
	if st := findCommand("as").invoke([]string{"-arch", "sm_52", "-"}, cio); st != 1 || !strings.Contains(errb.String(), "more than the limit") {
		t.Errorf("as: exit %d, %s", st, errb.String())
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		var out, errb bytes.Buffer
		cio := &cmdIO{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, inputLimit: 1 << 20}
		if st := findCommand("dis").invoke([]string{"/dev/zero"}, cio); st != 1 || !strings.Contains(errb.String(), "/dev/zero: more than the limit") {
			t.Errorf("dis /dev/zero: exit %d, %s", st, errb.String())
		}
	}
}

// TestCompressionRatio: a fatbin declaring a payload far larger than its
// compressed bytes (the 199 KiB fatbin holding a 48 MiB cubin) is
// rejected at the size field's offset.
func TestCompressionRatio(t *testing.T) {
	var fb []byte
	for _, s := range fuzzseed.Embedded() {
		if s.Name == "seeds.fatbin" {
			fb = append([]byte(nil), s.Data...)
		}
	}
	le := binary.LittleEndian
	e0 := uint64(le.Uint16(fb[6:])) // the first entry follows the container header
	csize := uint64(le.Uint32(fb[e0+0x10:]))
	le.PutUint64(fb[e0+0x38:], 255*csize)
	r := invoke(fb, "dis", "-")
	checkContract(t, r, false)
	if r.status != 1 || !strings.Contains(string(r.stderr), "offset 0x48: decompressed size") {
		t.Fatalf("exit %d: %s", r.status, r.stderr)
	}
}

// TestRoundTripCases: the round-trip failures at the command line:
// Fermi words that do not decode (listed as comments, so as dropped them
// and moved every later address), listings made with -base (branch
// targets moved), -nvn listings and lines with trailing comments.
func TestRoundTripCases(t *testing.T) {
	le := binary.LittleEndian
	words := func(ws ...uint64) []byte {
		var b []byte
		for _, w := range ws {
			b = le.AppendUint64(b, w)
		}
		return b
	}
	fermi := words(0x2800440400005de4, 0x6000000140000007, 0x0000000f0000000f, 0x4000000140001de7, 0x8000000000001de7)
	mx := assembleText(t, "sm_52", "BRA 0x28;\nMOV R1, c[0x3][0x10];\nIPA R5, a[0x84], R4;\nNOP;\nEXIT;\n")
	for _, c := range []struct {
		arch string
		code []byte
		args []string
	}{
		{"sm_20", fermi, nil},
		{"sm_20", fermi, []string{"-base", "0x100"}},
		{"sm_52", mx, []string{"-base", "0x100"}},
		{"sm_52", mx, []string{"-nvn"}},
	} {
		l := invoke(c.code, append(append([]string{"dis", "-arch", c.arch}, c.args...), "-")...)
		checkContract(t, l, false)
		back := invoke(l.stdout, "as", "-arch", c.arch, "-")
		if back.status != 0 || !bytes.Equal(back.stdout, c.code) {
			t.Errorf("%s %v: dis | as: exit %d %s\n% x\nwant\n% x\n%s", c.arch, c.args, back.status, back.stderr, back.stdout, c.code, l.stdout)
		}
	}
	for _, arch := range []string{"sm_10", "sm_20", "sm_52", "sgx543"} {
		nop := "NOP"
		if arch == "sgx543" {
			nop = "nop"
		}
		plain := invoke([]byte(nop+" ;\n"), "as", "-arch", arch, "-")
		noted := invoke([]byte("        /*0000*/ "+nop+" ; /* a note */ // another\n"), "as", "-arch", arch, "-")
		if plain.status != 0 || noted.status != 0 || !bytes.Equal(plain.stdout, noted.stdout) {
			t.Errorf("%s: a trailing comment: exit %d %s", arch, noted.status, noted.stderr)
		}
	}
}

// TestMaxwellControlWord: as took any control word, making code its own
// dis rejected: barriers on a fixed-latency instruction, and on the NOPs
// that pad a bundle.
func TestMaxwellControlWord(t *testing.T) {
	for _, text := range []string{
		"/* 0x001f8000fc0000e0 */\nMOV R1, R2;\nNOP;\nNOP;\n", // write barrier 7 -> 0 on MOV
		"/* 0x0 */\nLD R10, [0x1];\n",                         // the padding NOPs get barrier 0
	} {
		r := invoke([]byte(text), "as", "-arch", "sm_52", "-")
		checkContract(t, r, false)
		if r.status != 1 || !strings.Contains(string(r.stderr), "cannot have") {
			t.Errorf("%q: exit %d %s", text, r.status, r.stderr)
		}
	}
}

// TestBaseChecked: -base that is unaligned or leaves 32 bits is a usage
// error (dis printed targets as rejected), and so is -base for a cubin.
func TestBaseChecked(t *testing.T) {
	code := make([]byte, 64)
	for _, args := range [][]string{
		{"-arch", "sm_52", "-base", "0x3"},
		{"-arch", "sm_10", "-base", "0x2"},
		{"-arch", "sgx543", "-base", "0x4"},
		{"-arch", "sm_20", "-base", "0xffffffffffffff00"},
		{"-arch", "sm_20", "-base", "0xfffffff0"},
	} {
		r := invoke(code, append(append([]string{"dis"}, args...), "-")...)
		if r.status != 2 || !strings.Contains(string(r.stderr), "-base") {
			t.Errorf("%v: exit %d %s", args, r.status, r.stderr)
		}
	}
	r := invoke(readRepo(t, "examples/tesla/vecadd.cubin"), "dis", "-base", "0x100", "-")
	if r.status != 2 || !strings.Contains(string(r.stderr), "-base is for raw code") {
		t.Errorf("cubin with -base: exit %d %s", r.status, r.stderr)
	}
}

// TestNVNStreamed: dis -nvn annotates as it writes: the same text as
// AnnotateNVN of the whole listing, in pieces of any size.
func TestNVNStreamed(t *testing.T) {
	code := assembleText(t, "sm_52", strings.Repeat("MOV R1, c[0x3][0x10];\nIPA R5, a[0x84], R4;\nLDC R2, c[0x2][0x8];\n", 40))
	plain := invoke(code, "dis", "-arch", "sm_52", "-")
	want := maxwell.AnnotateNVN(nil, plain.stdout)
	got := invoke(code, "dis", "-arch", "sm_52", "-nvn", "-")
	if !bytes.Equal(got.stdout, want) {
		t.Fatalf("dis -nvn differs from AnnotateNVN")
	}
	for _, piece := range []int{1, 7, 100} {
		var b bytes.Buffer
		w := maxwell.NewNVNWriter(&b)
		for s := plain.stdout; len(s) > 0; s = s[min(piece, len(s)):] {
			w.Write(s[:min(piece, len(s))])
		}
		w.Close()
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("pieces of %d bytes: differs", piece)
		}
	}
}

// TestInternalErrorGuard: the last line of defence turns a panic into one
// line and exit status 3, on the command's goroutine and in a run's
// workers. (The fuzz targets' corpora, run by go test, show that no input
// reaches it: checkContract fails on status 3.)
func TestInternalErrorGuard(t *testing.T) {
	var errb bytes.Buffer
	st := guard(&errb, "dis", func() int { var m map[string]int; m["x"]++; return 0 })
	if st != exitInternal || !strings.HasPrefix(errb.String(), "gpuisa: internal error: dis: assignment to entry in nil map at ") ||
		!strings.HasSuffix(errb.String(), "(please report)\n") || strings.Contains(errb.String(), "goroutine") {
		t.Errorf("exit %d: %q", st, errb.String())
	}
	errb.Reset()
	if st := internalRunError(&errb, io.EOF); st != 0 || errb.Len() != 0 {
		t.Errorf("an ordinary error: exit %d %q", st, errb.String())
	}
	if st := internalRunError(&errb, errors.Join(errTestPanic)); st != 0 {
		t.Errorf("exit %d", st)
	}
}

var errTestPanic = errors.New("not a panic")

func readRepo(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fuzzseed.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assembleText(t *testing.T, arch, text string) []byte {
	t.Helper()
	r := invoke([]byte(text), "as", "-arch", arch, "-")
	if r.status != 0 {
		t.Fatalf("as: %s", r.stderr)
	}
	return r.stdout
}

// TestRawListingStreamed: raw sm_1x, sm_2x and sgx543 listings (about 30
// times the code) were built whole; every ISA now writes them in pieces
// and keeps at most isa.MaxListedErrors decode errors, so listing 1 MiB of
// code holds a small multiple of it, not the listing.
func TestRawListingStreamed(t *testing.T) {
	// the streaming listers run a part of the code per core, two rounds
	// at a time: memory is per core, not per byte of code
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range []struct {
		arch  string
		size  int
		limit uint64
	}{
		// 4 MiB of code: a listing held whole would be about 120 MiB
		{"sm_10", 4 << 20, 48 << 20},
		{"sm_20", 4 << 20, 48 << 20},
		{"sgx543", 4 << 20, 48 << 20},
		// the texts and the errors of every word are held (isa/maxwell)
		{"sm_52", 1 << 20, 32 << 20},
	} {
		code := make([]byte, c.size)
		for i := range code {
			code[i] = byte(i * 7 / 3) // varied words, many of them invalid
		}
		peak := peakHeap(func() {
			cio := &cmdIO{stdin: bytes.NewReader(code), stdout: io.Discard, stderr: io.Discard}
			findCommand("dis").invoke([]string{"-arch", c.arch, "-"}, cio)
		})
		if peak > c.limit {
			t.Errorf("%s: listing %d MiB of code took %d KiB of heap", c.arch, c.size>>20, peak>>10)
		}
		t.Logf("%s: %d MiB of code, %d KiB of heap at most", c.arch, c.size>>20, peak>>10)
	}
}

// peakHeap is the most live heap seen while f runs, above what was live
// before (sampled every millisecond, with frequent collections).
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		most := uint64(0)
		for {
			runtime.ReadMemStats(&m)
			most = max(most, m.HeapAlloc)
			select {
			case <-done:
				peak <- most
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	p := <-peak
	if p < base.HeapAlloc {
		return 0
	}
	return p - base.HeapAlloc
}
