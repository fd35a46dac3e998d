package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

const lineinfoDir = "../../isa/maxwell/testdata/lineinfo"

// goldenSets are the flag sets whose NVIDIA listings build.sh committed.
var goldenSets = map[string]string{
	"plain":        "",
	"novliw-hex-c": "-novliw -hex -c",
	"g-hex-c":      "-g -hex -c",
	"gi-c":         "-gi -c",
	"raw-sf-c":     "-raw -sf -c",
	"ndf-fun1-c":   "-ndf -fun 1 -c",
	"cfg":          "-cfg",
	"bbcfg-poff":   "-bbcfg -poff",
	"cfg-poff":     "-cfg -poff",
}

// readGolden splits a committed listing file into name → listing.
func readGolden(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var name string
	var b strings.Builder
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "==> ") && strings.HasSuffix(line, " <==") {
			if name != "" {
				out[name] = b.String()
			}
			name = strings.TrimSuffix(strings.TrimPrefix(line, "==> "), " <==")
			b.Reset()
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out[name] = b.String()
	return out
}

// The committed line-info corpus (16 kernels, -lineinfo and -G builds) lists
// as nvdisasm 11.8 listed it, for every committed flag set.
func TestNvdisasmGolden(t *testing.T) {
	cubins, _ := filepath.Glob(filepath.Join(lineinfoDir, "cubin", "*.cubin"))
	if len(cubins) < 30 {
		t.Fatalf("%d cubins in the line-info corpus", len(cubins))
	}
	for tag, flags := range goldenSets {
		want := readGolden(t, filepath.Join(lineinfoDir, "nvdisasm", tag+".txt.gz"))
		ok := 0
		for _, c := range cubins {
			args := append([]string{"nvdisasm"}, strings.Fields(flags)...)
			code, got, stderr := runCLI(t, "", append(args, c)...)
			w, found := want[filepath.Base(c)]
			switch {
			case !found:
				t.Errorf("%s: no golden listing for %s", tag, c)
			case code != 0:
				t.Errorf("%s %s: exit %d: %s", flags, c, code, stderr)
			case got != w:
				t.Errorf("%s %s: listing differs from nvdisasm's:\n%s", flags, filepath.Base(c), firstDiff(w, got))
			default:
				ok++
			}
		}
		t.Logf("nvdisasm %-16s %d/%d", flags, ok, len(cubins))
	}
}

// firstDiff shows the first line where two listings differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\nwant " + w + "\ngot  " + g
		}
	}
	return ""
}

func itoa(n int) string {
	s := ""
	for ; n > 0 || s == ""; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// Command-line errors are nvdisasm's, word for word.
func TestNvdisasmCommandLine(t *testing.T) {
	c := filepath.Join(lineinfoDir, "cubin", "vecadd.li.cubin")
	for _, tc := range []struct {
		args   string
		code   int
		stderr string
	}{
		{"-foo " + c, 1, "nvdisasm fatal   : Unknown option 'foo'\n"},
		{"--b SM52 " + c, 1, "nvdisasm fatal   : Unknown option '-b'\n"},
		{"-b", 1, "nvdisasm fatal   : argument expected after '-b'\n"},
		{"-hex=true " + c, 1, "nvdisasm fatal   : no argument expected after '-hex'\n"},
		{"-b SM99 " + c, 1, "nvdisasm fatal   : Value 'SM99' is not defined for option 'binary'\n"},
		{"-cfg -bbcfg " + c, 1, "nvdisasm fatal   : Specify either -cfg or -bbcfg option\n"},
		{"-bbcfg -plr " + c, 1, "nvdisasm fatal   : Specify either -cfg or -plr option\n"},
		{"-lrm count -ndf " + c, 1, "nvdisasm fatal   : Life range printing is not supported with -ndf option\n"},
		{"-cfg -ndf " + c, 1, "nvdisasm fatal   : Control flow graph printing is not supported with -ndf option\n"},
		{"-cfg -bbcfg -ndf " + c, 1, "nvdisasm fatal   : Control flow graph printing is not supported with -ndf option\n"},
		{"-cfg -bbcfg -plr " + c, 1, "nvdisasm fatal   : Specify either -cfg or -plr option\n"},
		{"-cfg -plr -ndf " + c, 1, "nvdisasm fatal   : Life range printing is not supported with -ndf option\n"},
		{"-fun x " + c, 1, "nvdisasm fatal   : 'x': expected a number\n"},
		{"-fun 99 -c " + c, 1, "nvdisasm error   : No symbol with index 99\nnvdisasm warning : Dataflow analysis disabled due to previous warnings\n"},
		{"nonexistent.cubin", 1, "nvdisasm fatal   : Cannot open object file nonexistent.cubin\n"},
		{"-optf nonexistent.opts " + c, 1, "nvdisasm fatal   : Could not open options file 'nonexistent.opts'\n"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"nvdisasm"}, strings.Fields(tc.args)...)...)
		if code != tc.code || stderr != tc.stderr {
			t.Errorf("nvdisasm %s: exit %d, stderr %q; want %d, %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
	// no file, two files and -h print the help; -V the version
	for _, args := range [][]string{{"nvdisasm"}, {"nvdisasm", "-h"}, {"nvdisasm", c, c}, {"nvdisasm", "--help", "-V"}} {
		code, out, _ := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "Usage  : nvdisasm [options] <image file>") || !strings.Contains(out, "--print-line-info-inline") {
			t.Errorf("%v: exit %d, help:\n%s", args, code, out)
		}
	}
	if code, out, _ := runCLI(t, "", "nvdisasm", "-V"); code != 0 || !strings.Contains(out, "release 11.8, V11.8.86") {
		t.Errorf("-V: %d %q", code, out)
	}
	// long spellings, '=' values and options files mean the same as short ones
	opts := filepath.Join(t.TempDir(), "opts")
	os.WriteFile(opts, []byte("-g\n--print-code\n"), 0o644)
	_, a, _ := runCLI(t, "", "nvdisasm", "--print-line-info", "-c", c)
	_, b, _ := runCLI(t, "", "nvdisasm", "-optf="+opts, c)
	if a != b || !strings.Contains(a, "//## File") {
		t.Errorf("--print-line-info -c and -optf differ or lack line info:\n%s\n%s", a, b)
	}
}

// Against the live tool when it is installed: oracle cubins (a sample;
// GPUISA_LIVE_ALL=1 for all), for flag sets that carry no line info.
func TestNvdisasmLive(t *testing.T) {
	nv := "/opt/cuda118/usr/bin/nvdisasm"
	if _, err := exec.LookPath(nv); err != nil {
		t.Skip("nvdisasm 11.8 not installed")
	}
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	cubins, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	// nvdisasm takes a third of a second a file: a sample unless asked for
	// all (mxdiff -tools runs every flag set on every file)
	if os.Getenv("GPUISA_LIVE_ALL") == "" {
		var sample []string
		for i := 0; i < len(cubins); i += 19 {
			sample = append(sample, cubins[i])
		}
		cubins = sample
	}
	for _, flags := range []string{"", "-hex -novliw", "-c -sf", "-raw", "-ndf -fun 1"} {
		ok := 0
		for _, c := range cubins {
			want, err := exec.Command(nv, append(strings.Fields(flags), c)...).Output()
			if err != nil {
				t.Fatalf("nvdisasm %s %s: %v", flags, c, err)
			}
			_, got, _ := runCLI(t, "", append(append([]string{"nvdisasm"}, strings.Fields(flags)...), c)...)
			if got != string(want) {
				t.Errorf("nvdisasm %s %s:\n%s", flags, c, firstDiff(string(want), got))
			} else {
				ok++
			}
		}
		t.Logf("nvdisasm %-12s %d/%d oracle cubins", flags, ok, len(cubins))
	}
}

// cuobjdump's listings of the corpus (cubins, a fatbin, a host object).
func TestCuobjdumpGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(lineinfoDir, "cubin", "*"))
	for tag, flags := range map[string]string{"sass": "-sass", "symbols-res-usage": "-symbols -res-usage", "lelf-lptx": "-lelf -lptx", "elf": "-elf"} {
		want := readGolden(t, filepath.Join(lineinfoDir, "cuobjdump", tag+".txt.gz"))
		ok, n := 0, 0
		for _, c := range files {
			if _, listed := want[filepath.Base(c)]; !listed {
				t.Errorf("cuobjdump %s: %s has no golden listing", flags, filepath.Base(c))
				continue
			}
			n++
			args := append([]string{"cuobjdump"}, strings.Fields(flags)...)
			code, got, stderr := runCLI(t, "", append(args, c)...)
			switch w := want[filepath.Base(c)]; {
			case code != 0:
				t.Errorf("cuobjdump %s %s: exit %d: %s", flags, c, code, stderr)
			case got != w:
				t.Errorf("cuobjdump %s %s:\n%s", flags, filepath.Base(c), firstDiff(w, got))
			default:
				ok++
			}
		}
		t.Logf("cuobjdump %-20s %d/%d", flags, ok, n)
	}
}

// Fermi's two listing styles through dis -dialect, and -cfg's formats.
func TestDisDialectAndGraphs(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "shl.bin")
	os.WriteFile(bin, []byte{0x03, 0x1c, 0x00, 0x14, 0x00, 0xc0, 0x00, 0x60}, 0o644)
	_, old, _ := runCLI(t, "", "dis", "-arch", "sm_20", "-dialect", "old", bin)
	_, cur, _ := runCLI(t, "", "dis", "-arch", "sm_20", bin)
	if old != "\t/*0000*/     /*0x14001c036000c000*/ \tSHL R0, R0, 0x5;\n" || !strings.Contains(cur, "SHL R0, R0, 0x5;") || !strings.Contains(cur, "/* 0x6000c00014001c03 */") {
		t.Errorf("dialects:\n%q\n%q", old, cur)
	}
	if code, _, _ := runCLI(t, "", "dis", "-arch", "sm_52", "-dialect", "old", bin); code != 2 {
		t.Errorf("-dialect old on sm_52: exit %d", code)
	}
	c := filepath.Join(lineinfoDir, "cubin", "reduce.li.cubin")
	want := readGolden(t, filepath.Join(lineinfoDir, "nvdisasm", "bbcfg-poff.txt.gz"))["reduce.li.cubin"]
	_, dot, _ := runCLI(t, "", "nvdisasm", "-bbcfg", "-novliw", c) // dis lists -novliw unless -vliw
	_, disDot, _ := runCLI(t, "", "dis", "-cfg", c)
	if disDot != dot || !strings.HasPrefix(want, "digraph f {") {
		t.Errorf("dis -cfg is not nvdisasm -bbcfg's DOT")
	}
	_, js, _ := runCLI(t, "", "dis", "-cfg", "-format", "json", c)
	if !strings.Contains(js, `"function": "reduce_sum"`) || !strings.Contains(js, `"kind": "jump"`) {
		t.Errorf("json graph:\n%s", js)
	}
	_, svg, _ := runCLI(t, "", "dis", "-cfg", "-format", "svg", c)
	if !strings.HasPrefix(svg, "<svg ") || !strings.Contains(svg, "BAR.SYNC") {
		t.Errorf("svg:\n%.300s", svg)
	}
}

// TestNvdisasmLifeRanges compares -plr and -lrm count with nvdisasm's
// listings of the -lineinfo builds. gpuisa's life ranges do not match
// nvdisasm's everywhere yet (see liveness.go): the files listed in
// lifeRangesSame must stay identical, and the count must not drop.
func TestNvdisasmLifeRanges(t *testing.T) {
	cubins, _ := filepath.Glob(filepath.Join(lineinfoDir, "cubin", "*.li.cubin"))
	for _, set := range []struct{ tag, flags string }{{"plr-c", "-plr -c"}, {"lrm-count-hex-c", "-lrm count -hex -c"}} {
		want := readGolden(t, filepath.Join(lineinfoDir, "nvdisasm", set.tag+".txt.gz"))
		ok := 0
		for _, c := range cubins {
			name := filepath.Base(c)
			code, got, stderr := runCLI(t, "", append(append([]string{"nvdisasm"}, strings.Fields(set.flags)...), c)...)
			if code != 0 {
				t.Errorf("%s %s: exit %d: %s", set.flags, name, code, stderr)
				continue
			}
			if got == want[name] {
				ok++
			} else if lifeRangesSame[set.tag][name] {
				t.Errorf("%s %s: differs from nvdisasm's:\n%s", set.flags, name, firstDiff(want[name], got))
			}
		}
		t.Logf("nvdisasm %-20s %d/%d", set.flags, ok, len(cubins))
		if ok < len(lifeRangesSame[set.tag]) {
			t.Errorf("%s: %d/%d identical, want at least %d", set.flags, ok, len(cubins), len(lifeRangesSame[set.tag]))
		}
	}
}

// lifeRangesSame are, per golden set, the -lineinfo builds whose life
// ranges gpuisa lists exactly as nvdisasm. Between them they pin the rules
// of isa/maxwell/liveness.go: the count column's width (bitonic, vecadd:
// 8 registers), a loop's carried registers live all through it (matmul),
// SLOT 0/1 pairs with the first row of their stretch (hotspot, reduce,
// stencil), a forward conditional branch's target set carried on the
// fall-through path (stencil, warpreduce), and with -hex a pair's second
// hex word and the control word inside a pair (hotspot, reduce).
var lifeRangesSame = map[string]map[string]bool{
	"plr-c": {"bitonic.li.cubin": true, "histogram.li.cubin": true, "hotspot.li.cubin": true, "matmul.li.cubin": true, "nbody.li.cubin": true, "pathfinder.li.cubin": true,
		"reduce.li.cubin": true, "saxpy.li.cubin": true, "stencil.li.cubin": true, "transpose.li.cubin": true, "vecadd.li.cubin": true, "warpreduce.li.cubin": true},
	"lrm-count-hex-c": {"bitonic.li.cubin": true, "hotspot.li.cubin": true, "pathfinder.li.cubin": true, "reduce.li.cubin": true, "saxpy.li.cubin": true, "vecadd.li.cubin": true},
}

// A cubin with a word nvdisasm rejects lists nothing: the errors, then (not
// with -ndf) the dataflow warning; with -novliw the VLIW rejections go.
// (nvdisasm 11.8 on saxpy.li.cubin with its second bundle's last two
// control fields marked as dual issues.)
func TestNvdisasmRejectedCubin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(lineinfoDir, "cubin", "saxpy.li.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Sections[f.Functions[0].Section]
	off := sec.Offset + 32
	ctrl := binary.LittleEndian.Uint64(data[off:])
	for k := 1; k < 3; k++ {
		ctrl = ctrl&^(0x1f<<(21*k)) | 0x10<<(21*k)
	}
	binary.LittleEndian.PutUint64(data[off:], ctrl)
	path := filepath.Join(t.TempDir(), "p.cubin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	errs := "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000048\n" +
		"nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000050\n" +
		"nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000058\n"
	for _, tc := range []struct {
		flags, stderr string
		code          int
	}{
		{"", errs + "nvdisasm warning : Dataflow analysis disabled due to previous warnings\n", 1},
		{"-ndf", errs, 1},
		{"-cfg", errs + "nvdisasm warning : Dataflow analysis disabled due to previous warnings\n", 1},
		{"-novliw", "", 0},
	} {
		code, out, stderr := runCLI(t, "", append(append([]string{"nvdisasm"}, strings.Fields(tc.flags)...), path)...)
		if code != tc.code || stderr != tc.stderr || (code != 0) != (out == "") {
			t.Errorf("nvdisasm %s: exit %d, stderr %q, %d bytes out; want %d, %q", tc.flags, code, stderr, len(out), tc.code, tc.stderr)
		}
	}
}

var symbolDirectives = regexp.MustCompile(`<entry>[^|]*?raw:\\l\.text\.raw:`)

// nvdisasm 11.8 crashes on -cfg and -bbcfg of raw code (-b); gpuisa graphs
// the code as one function named raw, the graph the same code gets as the
// only function of a cubin.
func TestNvdisasmRawGraph(t *testing.T) {
	c := filepath.Join(lineinfoDir, "cubin", "reduce.li.cubin")
	data, err := os.ReadFile(c)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil || len(f.Functions) != 1 {
		t.Fatalf("%s: %v, %d functions", c, err, len(f.Functions))
	}
	fn := f.Functions[0]
	raw := filepath.Join(t.TempDir(), "reduce.bin")
	os.WriteFile(raw, fn.Code, 0o644)
	for _, flags := range [][]string{{"-cfg"}, {"-bbcfg", "-poff"}} {
		_, fromCubin, _ := runCLI(t, "", append(append([]string{"nvdisasm"}, flags...), c)...)
		code, got, errText := runCLI(t, "", append(append([]string{"nvdisasm", "-b", "SM52"}, flags...), raw)...)
		// raw code has no symbol, so no .global/.type/.size/.other lines
		want := symbolDirectives.ReplaceAllString(strings.ReplaceAll(fromCubin, fn.Name, "raw"), "<entry>.text.raw:")
		if code != 0 || got != want || !strings.Contains(got, "BAR.SYNC") {
			t.Errorf("nvdisasm -b SM52 %v: exit %d, %s\ngot:\n%.400s\nwant:\n%.400s", flags, code, errText, got, want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.bin")
	os.WriteFile(bad, fn.Code[:40], 0o644)
	if code, out, errText := runCLI(t, "", "nvdisasm", "-b", "SM52", "-cfg", bad); code != 1 || out != "" || !strings.Contains(errText, "nvdisasm error") {
		t.Errorf("truncated raw code: exit %d, out %q, err %q", code, out, errText)
	}
}

// bfsCode is the code of the bfs example's first function repeated to at
// least n bytes (raw sm_52 code of real instructions).
func bfsCode(t *testing.T, n int) []byte {
	t.Helper()
	data, err := os.ReadFile("../../examples/maxwell/bfs.sm_52.cubin")
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil || len(f.Functions) == 0 {
		t.Fatalf("bfs.sm_52.cubin: %v, %d functions", err, len(f.Functions))
	}
	var code []byte
	for len(code) < n {
		code = append(code, f.Functions[0].Code...)
	}
	return code
}

// nvdisasm -b SM52 -hex -novliw of raw code lists what dis -arch sm_52
// lists, also when written to a regular file (at computed offsets, from
// every core: enough code for more than one worker), after what the file
// held; with a word that does not decode it writes nothing and reports
// the error. Against the live tool when it is installed.
func TestNvdisasmRawToFile(t *testing.T) {
	code := bfsCode(t, 5000*32) // more than 4,096 bundles: every core lays out
	dir := t.TempDir()
	raw := filepath.Join(dir, "code.bin")
	os.WriteFile(raw, code, 0o644)
	args := []string{"nvdisasm", "-b", "SM52", "-hex", "-novliw", raw}
	status, want, errText := runCLI(t, "", "dis", "-arch", "sm_52", raw)
	if status != 0 || errText != "" || !strings.Contains(want, "/* 0x") {
		t.Fatalf("dis: status %d, %s", status, errText)
	}
	if status, got, errText := runCLI(t, "", args...); status != 0 || errText != "" || got != want {
		t.Fatalf("%v to a buffer: status %d, %s; same as dis: %v", args, status, errText, got == want)
	}
	toFile := func(args []string) (int, string, string) {
		return runToFile(t, filepath.Join(dir, "out.s"), args, nil)
	}
	if status, got, errText := toFile(args); status != 0 || errText != "" || got != "prefix\n"+want {
		t.Fatalf("%v to a file: status %d, %s; same as dis: %v", args, status, errText, got == "prefix\n"+want)
	}
	bad := filepath.Join(dir, "bad.bin")
	os.WriteFile(bad, append(code, 1, 2, 3), 0o644) // a tail shorter than a bundle
	badArgs := []string{"nvdisasm", "-b", "SM52", "-hex", "-novliw", bad}
	if status, got, errText := toFile(badArgs); status != 1 || got != "prefix\n" || errText != "nvdisasm error   : Unaligned instruction found\n" {
		t.Fatalf("%v to a file: status %d, %d bytes written, stderr %q", badArgs, status, len(got)-7, errText)
	}
	nv := "/opt/cuda118/usr/bin/nvdisasm"
	if _, err := exec.LookPath(nv); err != nil {
		t.Skip("nvdisasm 11.8 not installed: the live comparison skips")
	}
	live, err := exec.Command(nv, args[1:]...).Output()
	if err != nil || string(live) != want {
		t.Fatalf("live nvdisasm %v: %v; same listing: %v", args[1:], err, string(live) == want)
	}
}

// patchedBfs is the bfs example's cubin with words written over its code:
// patch gets its code sections by name and the cubin's bytes to change.
func patchedBfs(t *testing.T, patch func(text map[string]cubin.Section, data []byte)) string {
	data, err := os.ReadFile("../../examples/maxwell/bfs.sm_52.cubin")
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]cubin.Section{}
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".text.") {
			text[s.Name] = s
		}
	}
	patch(text, data)
	path := filepath.Join(t.TempDir(), "bfs_patched.cubin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// putBRA writes a BRA to target (relative to its section) at offset at of
// section s.
func putBRA(data []byte, s cubin.Section, at, target int64) {
	off := uint64(target-(at+8)) & 0xffffff
	binary.LittleEndian.PutUint64(data[int64(s.Offset)+at:], 0xe24000000007000f|off<<20)
}

// branchTargetsCubin is the bfs example's cubin with branches patched into
// its first two functions, to the function's end, before its start,
// between instructions, to the function's first instruction (its symbol
// names it), to a plain label and past the end.
func branchTargetsCubin(t *testing.T) string {
	return patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
		a, b := text[".text.bfs_commit"], text[".text.bfs_expand"]
		putBRA(data, a, 0x08, int64(a.Size))
		putBRA(data, a, 0x28, -0x40)
		putBRA(data, a, 0x48, 0x8)
		putBRA(data, a, 0x68, 0x3)
		putBRA(data, b, 0x08, 0x30)
		putBRA(data, b, 0x28, int64(b.Size)+8)
		putBRA(data, b, 0x48, int64(b.Size))
	})
}

// brxCubin is the bfs example's cubin with a BRX c[0x3][R0+0x8], which no
// jump table lists, over the instruction at 0x48 of bfs_commit.
func brxCubin(t *testing.T) string {
	return patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
		binary.LittleEndian.PutUint64(data[text[".text.bfs_commit"].Offset+0x48:], 0xe250000000000020|0xf|0x3<<36|0x8<<20)
	})
}

// checkNvdisasmGolden compares gpuisa nvdisasm ARGS... with nvdisasm's
// listing in testdata/golden, and with the live tool when it is installed.
func checkNvdisasmGolden(t *testing.T, golden string, args ...string) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("testdata", golden))
	if err != nil {
		t.Fatal(err)
	}
	status, got, _ := runCLI(t, "", append([]string{"nvdisasm"}, args...)...)
	if status != 0 || got != string(want) {
		t.Fatalf("nvdisasm %v: status %d; the listing differs from nvdisasm's:\n%s", args, status, firstDiff(string(want), got))
	}
	nv := "/opt/cuda118/usr/bin/nvdisasm"
	if _, err := exec.LookPath(nv); err != nil {
		return
	}
	if live, err := exec.Command(nv, args...).Output(); err != nil || string(live) != got {
		t.Fatalf("live nvdisasm %v: %v; the listing differs:\n%s", args, err, firstDiff(string(live), got))
	}
}

// nvdisasm labels only branch targets in their section, at an
// instruction or its end (nvdisasm 11.8 on the patched cubin:
// testdata/branch_targets.nvdisasm.txt): a target outside is printed as
// its address, one a symbol names by the symbol, and a function end that a
// branch labelled takes no second label.
func TestNvdisasmBranchTargets(t *testing.T) {
	checkNvdisasmGolden(t, "branch_targets.nvdisasm.txt", "-hex", "-novliw", branchTargetsCubin(t))
}

// A cubin with a branch through constant memory that no jump table lists:
// nvdisasm warns, gives up its dataflow analysis, and then refuses -plr as
// it refuses -cfg (nvdisasm 11.8 on the patched bfs example).
func TestNvdisasmLifeRangesWithoutDataflow(t *testing.T) {
	path := brxCubin(t)
	warn := "nvdisasm warning : Section '.text.bfs_commit', pc= 0x48, Indirect branch address must go via symbolic table base in constant memory (missing relocator information?)\n" +
		"nvdisasm warning : Dataflow analysis disabled due to previous warnings\n"
	for flags, last := range map[string]string{
		"-plr":            "nvdisasm error   : Cannot print life ranges as flow analysis is disabled\n",
		"-plr -lrm count": "nvdisasm error   : Cannot print life ranges as flow analysis is disabled\n",
		"-cfg":            "nvdisasm error   : Cannot print control flow graph as flow analysis is disabled\n",
	} {
		status, out, errText := runCLI(t, "", append(append([]string{"nvdisasm"}, strings.Fields(flags)...), path)...)
		if status != 1 || out != "" || errText != warn+last {
			t.Errorf("nvdisasm %s: status %d, %d bytes listed, stderr:\n%s", flags, status, len(out), errText)
		}
	}
}

// After such a warning nvdisasm gives up its dataflow analysis in that
// function only: the others keep their annotations (bfs_expand's SYNCs).
func TestNvdisasmDataflowPerFunction(t *testing.T) {
	checkNvdisasmGolden(t, "indirect_branch.nvdisasm.txt", brxCubin(t))
}

// dis lists a cubin as nvdisasm -hex -novliw does there too: with a JMX
// after the BRX in bfs_commit, no (*"INDIRECT_CALL"*) annotation on it.
func TestDisDataflowPerFunction(t *testing.T) {
	path := patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
		at := text[".text.bfs_commit"].Offset
		binary.LittleEndian.PutUint64(data[at+0x48:], 0xe250000000000020|0xf|0x3<<36|0x8<<20)  // BRX c[0x3][R0+0x8]
		binary.LittleEndian.PutUint64(data[at+0x68:], 0xe200000000000020|0xf|0x3<<36|0x10<<20) // JMX c[0x3][R0+0x10]
	})
	want, err := os.ReadFile(filepath.Join("testdata", "indirect_call.nvdisasm.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if status, got, _ := runCLI(t, "", "dis", path); status != 0 || got != string(want) {
		t.Fatalf("dis: status %d; the listing differs from nvdisasm -hex -novliw's:\n%s", status, firstDiff(string(want), got))
	}
	checkNvdisasmGolden(t, "indirect_call.nvdisasm.txt", "-hex", "-novliw", path)
}

// With a word that does not decode as well, nvdisasm lists nothing and
// reports the decoding error first, then its warnings, then (without
// -ndf) that it gave up its dataflow analysis; -cfg adds no message of its
// own (nvdisasm 11.8 on the patched bfs example).
func TestNvdisasmWarningsAfterErrors(t *testing.T) {
	path := patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
		binary.LittleEndian.PutUint64(data[text[".text.bfs_commit"].Offset+0x48:], 0xe250000000000020|0xf|0x3<<36|0x8<<20)
		binary.LittleEndian.PutUint64(data[text[".text.bfs_level"].Offset+0x30:], ^uint64(0))
	})
	errLine := "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000030\n"
	warn := "nvdisasm warning : Section '.text.bfs_commit', pc= 0x48, Indirect branch address must go via symbolic table base in constant memory (missing relocator information?)\n"
	gaveUp := "nvdisasm warning : Dataflow analysis disabled due to previous warnings\n"
	for flags, want := range map[string]string{
		"":     errLine + warn + gaveUp,
		"-cfg": errLine + warn + gaveUp,
		"-plr": errLine + warn + gaveUp,
		"-ndf": errLine + warn,
	} {
		status, out, errText := runCLI(t, "", append(append([]string{"nvdisasm"}, strings.Fields(flags)...), path)...)
		if status != 1 || out != "" || errText != want {
			t.Errorf("nvdisasm %s: status %d, %d bytes listed, stderr:\n%s\nwant:\n%s", flags, status, len(out), errText, want)
		}
	}
}

// putRel writes the branch word op (its target field clear) at offset at
// of section s, branching to target (relative to the section).
func putRel(data []byte, s cubin.Section, at int64, op uint64, target int64) {
	off := uint64(target-(at+8)) & 0xffffff
	binary.LittleEndian.PutUint64(data[int64(s.Offset)+at:], op|off<<20)
}

// Branch words for putRel.
const (
	opBRA   = 0xe24000000007000f // BRA
	opBRAP0 = 0xe24000000000000f // @P0 BRA
	opSSY   = 0xe290000000000000
	opPBK   = 0xe2a0000000000000
	opCAL   = 0xe260000000000040
	opPEXIT = 0xe230000000000000
)

// nvdisasm refuses -cfg, -bbcfg and -plr of a cubin with a direct branch
// it cannot place (nvdisasm 11.8 on the bfs example with branches patched
// in; the golden stderr is what it printed, and the live tool is compared
// too when installed). Each reachable BRA to no instruction of its
// function (before its start, past its end, not a multiple of 8) or JMP to
// an immediate address gets "No constant branch target expected", each
// one to the function's end "Non local immediate branch (needs a SIBCALL
// annotation?)", the first kind first; status 1, nothing listed. A control
// word's address is a good target, and branches nvdisasm does not reach
// from the entry are not looked at. Under -plr only, and only when no
// branch is refused, each reachable stack push (SSY, PBK, ...) to no
// instruction gets "Branch stack push operation must use label" twice.
// strayOperation matches the operation's name in nvdisasm's "Could not
// establish the target" error, which holds stray bytes.
var strayOperation = regexp.MustCompile(`target of '(?s:.*?)' branch operation`)

func TestNvdisasmRefusedBranches(t *testing.T) {
	const (
		nonConstant = "nvdisasm error   : No constant branch target expected\n"
		nonLocal    = "nvdisasm error   : Non local immediate branch (needs a SIBCALL annotation?)\n"
		push        = "nvdisasm error   : Branch stack push operation must use label\n"
		noTarget    = "nvdisasm error   : Could not establish the target of '' branch operation\n"
		brxWarn     = "nvdisasm warning : Section '.text.bfs_commit', pc= 0x48, Indirect branch address must go via symbolic table base in constant memory (missing relocator information?)\n" +
			"nvdisasm warning : Dataflow analysis disabled due to previous warnings\n"
	)
	type put struct {
		fun    string // c, e, l: bfs_commit, bfs_expand, bfs_level
		at     int64
		op     uint64
		target int64 // -1: the function's end
	}
	all := []string{"-cfg", "-bbcfg", "-plr", "-plr -lrm count", "-cfg -poff"}
	for _, c := range []struct {
		name string
		puts []put
		args []string          // extra arguments (-fun)
		want map[string]string // flags → stderr ("": status 0)
	}{
		{"end", []put{{"c", 0x48, opBRA, -1}}, nil, map[string]string{"*": nonLocal}},
		{"guarded end", []put{{"c", 0x48, opBRAP0, -1}}, nil, map[string]string{"*": nonLocal}},
		{"past the end", []put{{"c", 0x48, opBRA, 0x188}}, nil, map[string]string{"*": nonConstant}},
		{"before the start", []put{{"c", 0x48, opBRA, -0x40}}, nil, map[string]string{"*": nonConstant}},
		{"between instructions", []put{{"c", 0x48, opBRA, 0x4c}}, nil, map[string]string{"*": nonConstant}},
		{"control word", []put{{"c", 0x48, opBRA, 0x40}}, nil, map[string]string{"*": ""}},
		{"first instruction", []put{{"c", 0x48, opBRA, 0x8}}, nil, map[string]string{"*": ""}},
		{"JMP", []put{{"c", 0x48, 0xe21000000007000f | 0x8<<20, -2}}, nil, map[string]string{"*": nonConstant}},
		// after an unconditional BRA, 0x68 is not reached
		{"unreached", []put{{"c", 0x48, opBRA, 0x100}, {"c", 0x68, opBRA, -1}}, nil, map[string]string{"*": ""}},
		// reached through the BRA: past the end, not the end at 0x68
		{"reached", []put{{"c", 0x48, opBRA, 0x100}, {"c", 0x68, opBRA, -1}, {"c", 0x108, opBRA, 0x188}}, nil, map[string]string{"*": nonConstant}},
		// reached only through a CAL's or an SSY's target
		{"CAL target", []put{{"c", 0x48, opCAL, 0x100}, {"c", 0x68, opBRA, 0x68}, {"c", 0x108, opBRA, -1}}, nil, map[string]string{"*": nonLocal}},
		{"SSY target", []put{{"c", 0x48, opSSY, 0x100}, {"c", 0x68, opBRA, 0x68}, {"c", 0x108, opBRA, 0x188}}, nil, map[string]string{"*": nonConstant}},
		{"every branch", []put{{"c", 0x48, opBRAP0, 0x188}, {"c", 0x68, opBRAP0, -1}, {"c", 0xa8, opBRAP0, -8}, {"c", 0xc8, opBRAP0, -1}, {"c", 0xe8, opBRAP0, 0x3}}, nil,
			map[string]string{"*": nonConstant + nonConstant + nonConstant + nonLocal + nonLocal}},
		{"every function", []put{{"c", 0x48, opBRA, -1}, {"e", 0x48, opBRA, -1}, {"l", 0x68, opBRA, 0x400}}, nil,
			map[string]string{"*": nonConstant + nonLocal + nonLocal}},
		{"-fun", []put{{"c", 0x48, opBRA, -1}, {"e", 0x48, opBRA, 0x400}}, []string{"-fun", "1"}, map[string]string{"*": nonLocal}},
		{"push", []put{{"c", 0x48, opSSY, 0x188}, {"e", 0x48, opPBK, 0x3}}, nil,
			map[string]string{"*": "", "-plr": push + push + push + push, "-plr -lrm count": push + push + push + push}},
		{"push to the end", []put{{"c", 0x48, opSSY, -1}}, nil, map[string]string{"*": ""}},
		{"push and branch", []put{{"c", 0x48, opSSY, 0x188}, {"c", 0x68, opBRAP0, -1}}, nil, map[string]string{"*": nonLocal}},
		// -plr: one line per EXIT after a PEXIT to the end (3 after 0x48,
		// 1 after 0xc8; two PEXITs count each EXIT once), in a function
		// without EIATTR_INDIRECT_BRANCH_TARGETS only; a bad push instead
		{"PEXIT to the end", []put{{"c", 0x48, opPEXIT, -1}}, nil,
			map[string]string{"*": "", "-plr": noTarget + noTarget + noTarget, "-plr -lrm count": noTarget + noTarget + noTarget}},
		{"PEXIT late", []put{{"c", 0xc8, opPEXIT, -1}}, nil, map[string]string{"*": "", "-plr": noTarget, "-plr -lrm count": noTarget}},
		{"two PEXITs", []put{{"c", 0x48, opPEXIT, -1}, {"c", 0x68, opPEXIT, -1}}, nil,
			map[string]string{"*": "", "-plr": noTarget + noTarget + noTarget, "-plr -lrm count": noTarget + noTarget + noTarget}},
		{"PEXIT and push", []put{{"c", 0x48, opPEXIT, -1}, {"c", 0x68, opSSY, 0x188}}, nil,
			map[string]string{"*": "", "-plr": push + push, "-plr -lrm count": push + push}},
		{"PEXIT with listed targets", []put{{"e", 0x48, opPEXIT, -1}}, nil, map[string]string{"*": ""}},
		// an unresolved BRX's refusal, or a decoding error, comes instead
		{"BRX", []put{{"c", 0x48, 0xe250000000000020 | 0xf | 0x3<<36 | 0x8<<20, -2}, {"e", 0x48, opBRA, -1}}, nil, map[string]string{
			"*":               brxWarn + "nvdisasm error   : Cannot print control flow graph as flow analysis is disabled\n",
			"-plr":            brxWarn + "nvdisasm error   : Cannot print life ranges as flow analysis is disabled\n",
			"-plr -lrm count": brxWarn + "nvdisasm error   : Cannot print life ranges as flow analysis is disabled\n",
		}},
		{"decoding error", []put{{"c", 0x48, opBRA, -1}, {"l", 0x30, ^uint64(0), -2}}, nil, map[string]string{
			"*": "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000030\n" +
				"nvdisasm warning : Dataflow analysis disabled due to previous warnings\n",
		}},
	} {
		path := patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
			for _, p := range c.puts {
				s := text[map[string]string{"c": ".text.bfs_commit", "e": ".text.bfs_expand", "l": ".text.bfs_level"}[p.fun]]
				switch p.target {
				case -1:
					putRel(data, s, p.at, p.op, int64(s.Size))
				case -2: // the word as it is
					binary.LittleEndian.PutUint64(data[int64(s.Offset)+p.at:], p.op)
				default:
					putRel(data, s, p.at, p.op, p.target)
				}
			}
		})
		for _, flags := range all {
			want, ok := c.want[flags]
			if !ok {
				want = c.want["*"]
			}
			args := append(append(append([]string{"nvdisasm"}, c.args...), strings.Fields(flags)...), path)
			status, out, errText := runCLI(t, "", args...)
			if want != "" && (status != 1 || out != "" || errText != want) || want == "" && (status != 0 || errText != "") {
				t.Errorf("%s: %v: status %d, %d bytes listed, stderr:\n%swant:\n%s", c.name, args[1:], status, len(out), errText, want)
			}
			nv := liveNvdisasm()
			if nv == "" {
				continue
			}
			cmd := exec.Command(nv, args[1:]...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			live, _ := cmd.Output()
			liveStatus := cmd.ProcessState.ExitCode()
			// nvdisasm names the branch operation with whatever bytes
			// its buffer holds ('', 'H', '8\x04\x96D'): not compared
			liveErr := strayOperation.ReplaceAllString(stderr.String(), "target of '' branch operation")
			if liveStatus != status || liveErr != errText || want != "" && string(live) != out {
				t.Errorf("%s: live nvdisasm %v: status %d, %d bytes listed, stderr:\n%s", c.name, args[1:], liveStatus, len(live), stderr.String())
			}
		}
	}
}
