package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/fuzzseed"
)

// Fuzz targets for the commands that read files besides dis, as and run:
// the NVIDIA drop-ins, dis's other output forms, check, as -patch and
// fault-injection campaigns. Each drives the tool in-process as the
// command line does.
//
//	tools/fuzz-all.sh ./cmd/gpuisa:FuzzNVTools

// checkNoCrash is the part of the contract every command keeps, whatever
// its message style: no internal error, no stack trace, exit 0 or 1 (2 when
// ok2), and a message with exit 1. prefix is what every stderr line starts
// with ("" for any).
func checkNoCrash(t *testing.T, r cliResult, ok2 bool, prefixes ...string) {
	t.Helper()
	if r.status == exitInternal || bytes.Contains(r.stderr, []byte("internal error")) {
		t.Fatalf("gpuisa %s: internal error (exit %d):\n%s", strings.Join(r.args, " "), r.status, r.stderr)
	}
	if bytes.Contains(r.stderr, []byte("goroutine ")) || bytes.Contains(r.stderr, []byte("panic:")) {
		t.Fatalf("gpuisa %s: a stack trace:\n%s", strings.Join(r.args, " "), r.stderr)
	}
	switch {
	case r.status == 0, r.status == 1, r.status == 2 && ok2:
	default:
		t.Fatalf("gpuisa %s: exit %d:\n%s", strings.Join(r.args, " "), r.status, r.stderr)
	}
	if r.status == 1 && len(r.stderr) == 0 {
		t.Fatalf("gpuisa %s: exit 1 without a message", strings.Join(r.args, " "))
	}
	if len(prefixes) == 0 || r.status == 2 {
		return
	}
	for _, line := range strings.Split(strings.TrimRight(string(r.stderr), "\n"), "\n") {
		ok := line == ""
		for _, p := range prefixes {
			ok = ok || strings.HasPrefix(line, p)
		}
		if !ok {
			t.Fatalf("gpuisa %s: a message of another form:\n%s", strings.Join(r.args, " "), line)
		}
	}
}

// fuzzDir is a fuzz target's directory for the files its executions
// write, made once before f.Fuzz (executions in a fuzzing process run one
// at a time, and each process has its own). It is in memory (/dev/shm)
// where there is one: rewriting a file on a disk file system costs about
// a millisecond (its old blocks are freed through the journal), more than
// most executions, while in memory it costs some 30 microseconds.
func fuzzDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "gpuisa-"+f.Name()+"-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return f.TempDir()
}

// fuzzFiles is a fuzz target's directory (fuzzDir) and the files its
// executions write there for the command to read (the drop-ins, like
// NVIDIA's tools, and run's launch files take no standard input). Each
// file stays open from one execution to the next: rewriting it is a stat,
// a write, a truncate and a stat where os.WriteFile opens it by name,
// truncates, writes and closes it (in /dev/shm, for inputs up to 16 KiB on
// the loaded 2-core machine: 15-43 µs against 24-69 µs); and a file whose
// content has not changed (the mutator changes one argument at a time) is
// not written at all, once a stat shows that nothing else wrote it.
type fuzzFiles struct {
	dir  string
	kept map[string]*keptFile
}

type keptFile struct {
	f    *os.File
	path string
	data []byte      // what the file holds
	st   os.FileInfo // its stat after the last write
}

func newFuzzFiles(f *testing.F) *fuzzFiles {
	ff := &fuzzFiles{dir: fuzzDir(f), kept: map[string]*keptFile{}}
	f.Cleanup(func() {
		for _, k := range ff.kept {
			k.f.Close()
		}
	})
	return ff
}

// write makes the file name in the directory hold data and returns its path.
func (ff *fuzzFiles) write(t *testing.T, name string, data []byte) string {
	k := ff.kept[name]
	if k != nil {
		st, err := os.Stat(k.path)
		switch {
		case err != nil || !os.SameFile(st, k.st):
			k.f.Close() // removed or replaced: made again below
			delete(ff.kept, name)
			k = nil
		case bytes.Equal(k.data, data) && st.Size() == k.st.Size() && st.ModTime().Equal(k.st.ModTime()):
			return k.path // as the last execution left it
		}
	}
	if k == nil {
		p := filepath.Join(ff.dir, name)
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		k = &keptFile{f: f, path: p}
		ff.kept[name] = k
	}
	if _, err := k.f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := k.f.Truncate(int64(len(data))); err != nil {
		t.Fatal(err)
	}
	st, err := k.f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	k.data, k.st = append(k.data[:0], data...), st
	return k.path
}

// nvdisasmOptions and cuobjdumpOptions pick the drop-ins' options from a
// byte's bits.
var (
	nvdisasmOptions  = [][]string{{"-hex"}, {"-novliw"}, {"-c"}, {"-sf"}, {"-raw"}, {"-ndf"}, {"-g"}, {"-plr"}}
	nvdisasmGraphs   = [][]string{nil, {"-cfg"}, {"-bbcfg", "-poff"}, {"-gi"}}
	cuobjdumpOptions = [][]string{{"-sass"}, {"-elf"}, {"-ptx"}, {"-res-usage"}, {"-symbols"}, {"-lelf"}, {"-sort"}, {"-all"}}
)

func pick(opts [][]string, bits byte) []string {
	var out []string
	for i, o := range opts {
		if bits&(1<<i) != 0 {
			out = append(out, o...)
		}
	}
	return out
}

// FuzzNVTools runs the nvdisasm and cuobjdump drop-ins on any bytes (cubins,
// fatbins, host objects, raw sm_5x code with -b), with any mix of their
// options and a function index: messages as NVIDIA's tools print them.
func FuzzNVTools(f *testing.F) {
	for i, s := range fuzzseed.Containers() {
		if len(s.Data) > maxFuzzInput {
			continue
		}
		// options by i; every container once for each tool, so that the
		// baseline (a whole listing a seed) stays short
		f.Add(s.Data, byte(i), byte(i>>3&0x7f), byte(0)) // nvdisasm
		f.Add(s.Data, byte(i), byte(0x80|i>>3), byte(0)) // cuobjdump
		if i%4 == 0 {
			f.Add(s.Data, byte(0x81), byte(0x01), byte(2)) // nvdisasm -hex -plr -cfg -fun 2
			f.Add(s.Data, byte(0x01), byte(0x80), byte(2)) // cuobjdump -sass -fun 2
		}
	}
	for _, s := range rawSeeds() {
		f.Add(s.Data, byte(0x10), byte(0x04), byte(1)) // nvdisasm -raw -b SM50 -fun 1
	}
	files := newFuzzFiles(f)
	f.Fuzz(func(t *testing.T, data []byte, opts, more, fun byte) {
		if len(data) > maxFuzzInput {
			return
		}
		in := files.write(t, "in.bin", data)
		// one tool per execution (bit 7 of more): each costs a whole
		// listing, and the mutator flips the bit as often as any other
		if more&0x80 == 0 {
			args := append([]string{"nvdisasm"}, pick(nvdisasmOptions, opts)...)
			if g := nvdisasmGraphs[more&3]; g != nil {
				args = append(args, g...)
			}
			if more&4 != 0 {
				args = append(args, "-b", []string{"SM50", "SM52", "SM53"}[int(more>>3)%3])
			}
			if fun != 0 {
				args = append(args, "-fun", strconv.Itoa(int(fun)))
			}
			checkNoCrash(t, invoke(nil, append(args, in)...), false, "nvdisasm ")
			return
		}
		args := append([]string{"cuobjdump"}, pick(cuobjdumpOptions, opts^more)...)
		if fun != 0 {
			args = append(args, "-fun", strconv.Itoa(int(fun)))
		}
		checkNoCrash(t, invoke(nil, append(args, in)...), false, "cuobjdump ")
	})
}

// FuzzDisForms lists any bytes in dis's other output forms: JSON lines
// (-json), control-flow graphs (-cfg, as DOT, JSON or SVG) and the old
// sm_2x dialect (-dialect old).
func FuzzDisForms(f *testing.F) {
	for i, s := range fuzzseed.Containers() {
		if len(s.Data) > maxFuzzInput {
			continue
		}
		f.Add(s.Data, byte(i%8))
	}
	for i, s := range rawSeeds() {
		f.Add(s.Data, byte(i%8)|byte(i)<<3)
	}
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		if len(data) > maxFuzzInput {
			return
		}
		var args []string
		switch mode & 7 {
		case 0, 1:
			args = []string{"-json"}
		case 2:
			args = []string{"-cfg"}
		case 3:
			args = []string{"-cfg", "-format", "json"}
		case 4:
			args = []string{"-cfg", "-format", "svg"}
		default:
			args = []string{"-dialect", "old"}
		}
		raw := !isContainer(data) && !isGXP(data)
		if a := mode >> 3; a != 0 {
			args = append(args, "-arch", archByIndex(a-1).Name)
		}
		r := invoke(data, append(append([]string{"dis"}, args...), "-")...)
		// raw bytes without -arch, and forms an architecture has not, are
		// usage errors
		checkNoCrash(t, r, true, "gpuisa dis: ")
		if r.status == 2 && !raw && mode>>3 == 0 && mode&7 < 2 {
			t.Fatalf("dis %v of a container: usage error\n%s", args, r.stderr)
		}
	})
}

// FuzzCheck runs gpuisa check on any bytes: cubins, whole-cubin listings
// and listings of raw code (with -arch), as a kernel or a device function.
func FuzzCheck(f *testing.F) {
	for i, s := range fuzzseed.Containers() {
		if len(s.Data) > maxFuzzInput || !isELF(s.Data) {
			continue
		}
		f.Add(s.Data, byte(i))
		if l := invoke(s.Data, "dis", "-"); l.status == 0 && len(l.stdout) <= maxFuzzInput {
			f.Add(l.stdout, byte(i|4))
		}
	}
	for _, s := range rawSeeds() {
		if l := invoke(s.Data, "dis", "-arch", "sm_52", "-"); l.status == 0 && len(l.stdout) <= 8<<10 {
			f.Add(l.stdout, byte(1))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		if len(data) > maxFuzzInput {
			return
		}
		args := []string{"check"}
		if mode&1 != 0 {
			args = append(args, "-arch", []string{"sm_50", "sm_52", "sm_53"}[int(mode>>4)%3])
		}
		if mode&2 != 0 {
			args = append(args, "-device")
		}
		if mode&4 != 0 {
			args = append(args, "-notes")
		}
		r := invoke(data, append(args, "-")...)
		if r.status == 1 && len(r.stderr) == 0 && bytes.HasSuffix(r.stdout, []byte(" notes\n")) {
			r.stderr = r.stdout // hazards found: listed on standard output, as a linter does
		}
		checkNoCrash(t, r, true)
	})
}

// patchCubin is the cubin FuzzAsPatch patches, and its function names.
const patchCubinFile = "emu/maxwell/testdata/kernels.sm_52.cubin"

// FuzzAsPatch patches a function of a real cubin with any text (as
// -patch), and patches any bytes as the original cubin with a real
// function's listing: errors at line:column or naming the cubin's problem.
func FuzzAsPatch(f *testing.F) {
	orig, err := os.ReadFile(filepath.Join(fuzzseed.Root(), patchCubinFile))
	if err != nil {
		f.Skip(err)
	}
	listing := invoke(orig, "dis", "-").stdout
	// one function's lines: from its label to the next function's
	fn := "saxpy"
	if i := bytes.Index(listing, []byte(".text."+fn)); i >= 0 {
		part := listing[i:]
		if j := bytes.Index(part[1:], []byte(".text.")); j >= 0 {
			part = part[:j+1]
		}
		f.Add([]byte{}, part, fn)
	}
	f.Add([]byte{}, listing, fn)
	f.Add(orig[:len(orig)/2], listing, fn)
	f.Add([]byte{}, []byte("        /*0008*/                   MOV R1, c[0x0][0x20];\n        /*0010*/                   EXIT;\n"), fn)
	files := newFuzzFiles(f)
	f.Fuzz(func(t *testing.T, cubinEdit, text []byte, fun string) {
		if len(text) > maxFuzzInput || len(cubinEdit) > maxFuzzInput {
			return
		}
		c := orig
		if len(cubinEdit) > 0 {
			// the edit overwrites the cubin's start: headers, tables
			c = append([]byte{}, orig...)
			copy(c, cubinEdit)
			if len(cubinEdit) > len(c) {
				c = cubinEdit
			}
		}
		in := files.write(t, "orig.cubin", c)
		out := filepath.Join(files.dir, "out.cubin")
		os.Remove(out) // what an earlier execution wrote
		r := invoke(text, "as", "-patch", in, "-fun", fun, "-o", out, "-")
		checkNoCrash(t, r, true)
		if r.status == 0 {
			// what as -patch writes lists without error
			patched, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if l := invoke(patched, "dis", "-"); l.status != 0 {
				t.Fatalf("dis of the patched cubin: %s", l.stderr)
			}
		}
	})
}

// FuzzInjectFiles reads any campaign file (inject plan, which loads its
// launch file) and any results file (inject summary): a campaign against
// a real launch file, or results lines.
func FuzzInjectFiles(f *testing.F) {
	root := fuzzseed.Root()
	launch := filepath.Join(root, "examples", "maxwell", "saxpy.json")
	if _, err := os.Stat(launch); err != nil {
		f.Skip(err)
	}
	for _, p := range []string{"emu/inject/testdata/vecadd.campaign.json", "examples/inject/maxwell/matmul.campaign.json"} {
		if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
			f.Add(b, []byte{})
		}
	}
	f.Add([]byte(`{"launch": "LAUNCH", "seed": 7, "injections": 10, "experiments": [{"model": "flip1", "bit": 4}, {"model": "stuck-unit", "unit": "fp32", "lane": 3, "value": 1, "window": [5, 2]}]}`),
		[]byte(`{"campaign":"c","id":0,"of":1,"exp":"e","model":"flip1","outcome":"Masked"}`+"\n"))
	f.Add([]byte(`{"launch": "LAUNCH", "experiments": [{"model": "flip2", "group": "fp32"}]}`),
		[]byte("{\"campaign\":\"c\",\"id\":3,\"outcome\":\"SDC\"}\n{\"campaign\":\"c\",\"id\":1}\n{broken"))
	files := newFuzzFiles(f)
	quoted := []byte(strconv.Quote(launch)[1 : len(strconv.Quote(launch))-1])
	f.Fuzz(func(t *testing.T, campaign, results []byte) {
		if len(campaign) > 8<<10 || len(results) > maxFuzzInput {
			return
		}
		c := files.write(t, "c.json", bytes.ReplaceAll(campaign, []byte("LAUNCH"), quoted))
		checkNoCrash(t, invoke(nil, "inject", "plan", c), true, "gpuisa inject: ")
		rf := files.write(t, "results.jsonl", results)
		checkNoCrash(t, invoke(nil, "inject", "summary", rf), true, "gpuisa inject: ")
	})
}
