package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/fuzzseed"
)

// runFiles are the programs a fuzzed launch file may name, by the names
// its seeds use: Maxwell kernels (plain, textures and surfaces,
// relocatable ones to link), a Tesla cubin and a Tesla listing.
var runFiles = map[string]string{
	"k52.cubin":    "emu/maxwell/testdata/kernels.sm_52.cubin",
	"tex52.cubin":  "emu/maxwell/testdata/texsurf.sm_52.O3.cubin",
	"link.cubin":   "emu/maxwell/testdata/link.rel.sm_52.cubin",
	"ext.cubin":    "emu/maxwell/testdata/ext_fn.rel.sm_52.cubin",
	"vecadd.cubin": "examples/tesla/vecadd.cubin",
	"saxpy.s":      "emu/tesla/testdata/saxpy.s",
	"sum_v.gxp":    "examples/usse/sum_v.gxp",
	"tint_f.gxp":   "examples/usse/tint_f.gxp",
}

// runSeeds are launch files using runFiles and a.bin, b.bin (the fuzzed
// data): every section of a launch file appears in one of them.
var runSeeds = []string{
	`{"program": "k52.cubin", "kernel": "saxpy", "grid": [3], "block": [128],
	  "buffers": {"x": {"file": "a.bin"}, "y": {"file": "b.bin", "bytes": 4000}},
	  "params": [{"u32": 1000}, {"f32": 1.5}, {"ptr": "x"}, {"ptr": "y"}],
	  "outputs": [{"buffer": "y", "file": "y.out"}, {"space": "global", "addr": "0x100", "bytes": 64, "file": "g.out"}],
	  "expect": [{"output": "y.out", "file": "b.bin", "type": "f32", "max_ulp": 1}]}`,
	`{"program": "tex52.cubin", "arch": "sm_52", "kernel": "texmore", "grid": [1], "block": [32],
	  "buffers": {"out": {"bytes": 8192}},
	  "textures": {
	    "a3": {"file": "a.bin", "fill": 1, "format": "rgba32f", "size": [6, 5, 4], "filter": "linear", "normalized": true, "address": ["wrap"]},
	    "arr": {"fill": "0x7f", "format": "r32ui", "size": [5, 4], "layers": 3, "levels": 2},
	    "mip": {"file": "b.bin", "fill": 2, "format": "rgba8unorm", "size": [16, 16], "levels": 5,
	            "filter": "linear", "mip_filter": "linear", "normalized": true, "address": ["mirror", "clamp"], "border": [0, 1, 0.5, 1]}},
	  "surfaces": {"s": {"buffer": "out", "format": "r32f", "size": [16, 16]}},
	  "params": [{"ptr": "out"}, {"tex": "a3"}, {"tex": "arr"}, {"tex": "mip"}, {"f32": "0.70932055"}, {"f32": "1.3810182"}],
	  "outputs": [{"buffer": "out", "file": "out.bin"}]}`,
	`{"program": "link.cubin", "link": ["ext.cubin"], "arch": "sm_52", "kernel": "fptr", "grid": [1], "block": [64],
	  "buffers": {"in": {"file": "a.bin"}, "out": {"bytes": 256}},
	  "params": [{"ptr": "in"}, {"ptr": "out"}],
	  "outputs": [{"buffer": "out", "file": "o.bin"}],
	  "expect": [{"output": "o.bin", "file": "b.bin", "type": "u32"}]}`,
	`{"program": "saxpy.s", "arch": "sm_10", "grid": [8], "block": [128],
	  "buffers": {"x": {"file": "a.bin"}, "y": {"file": "b.bin"}},
	  "params": [{"ptr": "x"}, {"ptr": "y"}, {"f32": "1.7320508"}, {"u32": 1000}],
	  "outputs": [{"buffer": "y", "file": "y.out.bin"}],
	  "expect": [{"output": "y.out.bin", "file": "b.bin", "type": "f32", "max_ulp": 0}]}`,
	`{"program": "vecadd.cubin", "grid": [2, 1, 1], "block": ["0x40", 1], "shared_bytes": 16, "local_bytes": 64,
	  "global_bytes": "0x10000", "max_steps": 100000,
	  "memory": [{"space": "global", "addr": "0x0", "file": "a.bin"},
	             {"space": "constant", "bank": 1, "addr": "0x4", "file": "b.bin", "bytes": 64},
	             {"space": "shared", "addr": "0x100", "bytes": 16, "fill": 3},
	             {"space": "global", "addr": "0x200000000", "bytes": 64, "fill": "0x11"}],
	  "buffers": {"a": {"file": "a.bin"}, "b": {"bytes": 256}, "c": {"bytes": 256, "fill": "0xab"}},
	  "params": [{"ptr": "a"}, {"ptr": "b"}, {"ptr": "c"}, {"u32": 64}],
	  "outputs": [{"buffer": "c", "file": "c.out.bin"}, {"space": "global", "addr": "0x200000000", "bytes": 16, "file": "far.out.bin"}],
	  "expect": [{"output": "far.out.bin", "file": "a.bin", "type": "u8"},
	             {"space": "global", "words": "b.bin", "type": "f32", "max_ulp": 2, "alt": true}]}`,
	// a sequence: repeats, expressions, a group repeated while a buffer says so
	`{"program": "k52.cubin", "grid": [2], "block": [64],
	  "buffers": {"x": {"file": "a.bin"}, "y": {"bytes": 1024}, "c": {"bytes": 16}},
	  "launches": [
	    {"kernel": "saxpy", "repeat": 3, "params": [{"u32": "{$i*64+64}"}, {"f32": 1.5}, {"ptr": "x"}, {"ptr": "y"}]},
	    {"repeat": 2, "zero": ["c"], "while": {"buffer": "c", "type": "u32"},
	     "launches": [{"kernel": "saxpy", "grid": [1], "params": [{"u32": 16}, {"f32": 2}, {"ptr": "y"}, {"ptr": "x"}]}]}],
	  "outputs": [{"buffer": "y", "file": "y.out"}],
	  "expect": [{"output": "y.out", "file": "b.bin", "type": "f32", "max_ulp": 4}]}`,
}

// shaderSeeds are PS Vita shader launch files (docs/usse-launch.md).
var shaderSeeds = []string{
	`{"program": "sum_v.gxp", "arch": "sgx543", "count": 4, "uniforms": {"uWeights": [1, 0.5, 0.25, 2]},
	  "attributes": {"aAddr": ["0x100", "0x110", "0x120", "0x130", "0x140"]}, "registers": {"sa4": "0x41200000"},
	  "memory": [{"addr": "0x100", "file": "a.bin"}], "memory_bytes": "0x1000", "max_steps": 1000,
	  "outputs": [{"reg": "o0", "components": 2, "format": "f32", "file": "o0.out"}, {"reg": "r8", "components": 1, "format": "raw", "file": "r8.out"}],
	  "expect": [{"output": "o0.out", "file": "b.bin", "type": "f32"}]}`,
	`{"program": "tint_f.gxp", "arch": "sgx543", "type": "fragment", "uniforms": {"uTint": {"values": [1, 0.5, 2, 1]}},
	  "inputs": {"TEXCOORD0": {"file": "a.bin", "format": "f16"}, "COLOR0": {"values": [1, 1, 1, 0.5, 0.25, 1], "components": 3}},
	  "textures": {"tex": {"file": "b.bin", "format": "rgba8unorm", "size": [4, 4], "filter": "nearest", "address": ["wrap", "clamp"]}},
	  "outputs": [{"name": "COLOR", "file": "c.out"}, {"name": "COLOR", "as": "uchar4", "file": "c8.out"}],
	  "expect": [{"output": "c8.out", "file": "b.bin", "type": "u8"}]}`,
}

// maxDeclared bounds what a fuzzed launch may declare (memory, outputs,
// textures) so that executions stay fast: every byte declared is
// allocated, cleared and often written to an output file. The seeds
// declare at most 129 KiB; hostile_test.go covers the limits themselves.
const maxDeclared = 1 << 20

// declared is what a parsed launch asks for in memory, roughly.
func declared(l *emu.Launch) uint64 {
	var n uint64
	add := func(x emu.Num) {
		if v, err := x.Uint(0); err == nil {
			n += min(v, 1<<40)
		}
	}
	add(l.GlobalBytes)
	add(l.SharedBytes)
	if v, err := l.LocalBytes.Uint(0); err == nil {
		n += min(v, 1<<30) * 1024
	}
	for _, m := range l.Memory {
		add(m.Bytes)
		if a, err := m.Addr.Uint(0); err == nil && a < emu.MaxMemory && m.Space != "constant" {
			n += a
		}
	}
	for _, b := range l.Buffers {
		add(b.Bytes)
	}
	for _, o := range l.Outputs {
		add(o.Bytes)
		if a, err := o.Addr.Uint(0); err == nil && a < emu.MaxMemory {
			n += a
		}
	}
	for _, m := range []map[string]emu.Image{l.Textures, l.Surfaces} {
		for _, im := range m {
			if b, err := emu.ImageBytes(im); err == nil {
				n += b
			}
		}
	}
	return n
}

// newRunFiles is a fuzz target's fuzzFiles with the files every execution
// uses (the programs) written to it once: each execution then writes only
// its own files, instead of making, filling and removing a fresh temporary
// directory (executions in a fuzzing process run one at a time, and each
// process has its own directory).
func newRunFiles(f *testing.F, fixed map[string][]byte) *fuzzFiles {
	files := newFuzzFiles(f)
	for name, data := range fixed {
		if err := os.WriteFile(filepath.Join(files.dir, name), data, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	return files
}

// fuzzRunBudget is the launch-wide budget (warp-instructions) of a fuzzed
// run: every seed of FuzzRun and FuzzRunKernel (on every architecture) ends
// the same way with it as with 200000 (the longest that finishes, collatz.s,
// runs 5940; those that do not finish loop until a budget stops them), and
// a mutated endless loop stops after about 8000 (with 20000 it ran 65536,
// the budget being looked at only every 65536 warp-instructions of a block
// until TestSmallBudget's fix).
const fuzzRunBudget = "8000"

// runInDir writes the launch and the data files to the directory of
// files (made by newRunFiles with the files in fixed) and runs it with
// small limits; it checks the contract and that nothing was written outside
// the -out directory.
func runInDir(t *testing.T, files *fuzzFiles, fixed map[string][]byte, launch []byte, data map[string][]byte) cliResult {
	dir := files.dir
	for name, b := range data {
		files.write(t, name, b)
	}
	lp := files.write(t, "launch.json", launch)
	out := filepath.Join(dir, "out")
	if err := os.RemoveAll(out); err != nil { // what an earlier execution wrote
		t.Fatal(err)
	}
	r := invoke(nil, "run", "-budget", fuzzRunBudget, "-timeout", "5s", "-workers", "1", "-out", out, lp)
	checkContract(t, r, false)
	// outputs stay inside -out DIR
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p == out {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return nil
		}
		name := filepath.Base(p)
		if _, ok := data[name]; ok || p == lp {
			return nil
		}
		if _, ok := fixed[name]; ok {
			return nil
		}
		os.Remove(p) // so that later executions (and minimising) start clean
		t.Fatalf("run wrote %s, outside -out %s", p, out)
		return nil
	})
	return r
}

// programFiles reads runFiles once per process.
var programFiles = func() map[string][]byte {
	m := map[string][]byte{}
	for name, rel := range runFiles {
		if b, err := os.ReadFile(filepath.Join(fuzzseed.Root(), rel)); err == nil {
			m[name] = b
		}
	}
	return m
}()

// FuzzRun loads and runs any launch file, end to end as gpuisa run does:
// its files, buffers, images, textures, surfaces, parameters, outputs and
// expectations, with mutated data files.
func FuzzRun(f *testing.F) {
	for i, s := range runSeeds {
		f.Add([]byte(s), []byte(strings.Repeat("\x01\x00\x80\x3f", 256)), []byte(fmt.Sprintf("addr\texp\n0x%x\t0x3f800000\n", 256*i)))
	}
	for _, s := range shaderSeeds {
		f.Add([]byte(s), []byte(strings.Repeat("\x00\x3c\x00\x38", 16)), []byte(strings.Repeat("\x40\x80\xc0\xff", 16)))
	}
	files := newRunFiles(f, programFiles)
	// the mutator changes one argument at a time, so the launch is often
	// the last one's: its size check (a tenth of the time) is not redone
	var last []byte
	var tooBig bool
	f.Fuzz(func(t *testing.T, launch, a, b []byte) {
		if len(launch) > 4096 || len(a) > 16<<10 || len(b) > 16<<10 {
			return
		}
		if last == nil || !bytes.Equal(launch, last) {
			l, err := emu.ParseLaunch(launch)
			last, tooBig = append(last[:0:0], launch...), err == nil && declared(l) > maxDeclared
		}
		if tooBig {
			return
		}
		runInDir(t, files, programFiles, launch, map[string][]byte{"a.bin": a, "b.bin": b})
	})
}

// runArchs are the architectures the emulators run.
var runArchs = []string{"sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_50", "sm_52", "sm_53"}

// FuzzRunKernel runs mutated programs (raw code, cubins, fatbins and
// listings) under a fixed launch on every runnable architecture.
func FuzzRunKernel(f *testing.F) {
	for i, s := range kernelSeeds() {
		f.Add(s.Data, byte(i))
	}
	// the launch of each architecture, made once
	launches := make([][]byte, len(runArchs))
	for i, arch := range runArchs {
		launches[i], _ = json.Marshal(map[string]any{
			"program": "prog", "arch": arch, "grid": []int{2}, "block": []int{64},
			"buffers": map[string]any{"x": map[string]any{"bytes": 4096, "fill": 1}, "y": map[string]any{"bytes": 4096}},
			"params":  []any{map[string]any{"ptr": "x"}, map[string]any{"ptr": "y"}, map[string]any{"u32": 1000}, map[string]any{"f32": 1.5}},
			"outputs": []any{map[string]any{"buffer": "y", "file": "y.out"}},
		})
	}
	files := newRunFiles(f, nil)
	f.Fuzz(func(t *testing.T, prog []byte, archIdx byte) {
		if len(prog) > 16<<10 {
			return
		}
		runInDir(t, files, nil, launches[int(archIdx)%len(runArchs)], map[string][]byte{"prog": prog})
	})
}

// kernelSeeds are real programs: cubins and their code, the Tesla
// programs and listings (not the examples' launch and data files).
func kernelSeeds() []fuzzseed.Seed {
	var out []fuzzseed.Seed
	for _, s := range fuzzseed.Files("emu/maxwell/testdata/kernels.sm_5*.cubin", "emu/maxwell/testdata/calls.sm_52.cubin",
		"examples/tesla/*.cubin", "examples/tesla/*.s", "examples/tesla/vecadd.bin", "emu/tesla/testdata/*.s") {
		out = append(out, s)
		if code := firstCode(s.Data); code != nil {
			out = append(out, fuzzseed.Seed{Name: s.Name + ".code", Data: code})
		}
	}
	// sm_2x: a listing, and its code
	fermi := "S2R R0, SR_Tid_X;\nMOV R1, c[0x0][0x20];\nSHL R2, R0, 0x2;\nIADD R3, R2, R1;\nLD R4, [R3];\nST [R3], R4;\nEXIT;\n"
	out = append(out, fuzzseed.Seed{Name: "fermi.s", Data: []byte(fermi)})
	if r := invoke([]byte(fermi), "as", "-arch", "sm_20", "-"); r.status == 0 {
		out = append(out, fuzzseed.Seed{Name: "fermi.bin", Data: r.stdout})
	}
	return append(out, fuzzseed.Oracle(2, "flexgrip-apps/*/program.bin")...)
}

// FuzzLaunchInit writes launch file skeletons from any cubin or fatbin
// (gpuisa launch init): an error names the file; a skeleton is a launch
// file that parses.
func FuzzLaunchInit(f *testing.F) {
	for _, s := range fuzzseed.Containers() {
		if len(s.Data) <= maxFuzzInput {
			f.Add(s.Data)
		}
	}
	files := newFuzzFiles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		p := files.write(t, "k.cubin", data)
		r := invoke(nil, "launch", "init", p)
		checkContract(t, r, false)
		if r.status != 0 {
			return
		}
		if _, err := emu.ParseLaunch(r.stdout); err != nil {
			t.Fatalf("the skeleton does not parse: %v\n%s", err, r.stdout)
		}
	})
}
