package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// The graphs of -cfg and -bbcfg on the bfs example with a KIL patched in
// (the rules found with nvdisasm 11.8, docs/nvtools.md): an unconditional
// KIL ends its thread, so its block ends there with nothing after it;
// the blocks the entry no longer reaches are still drawn when the targets
// EIATTR_INDIRECT_BRANCH_TARGETS lists reach them; a KIL opening a braced
// pair ends its -bbcfg block after the pair, and under -cfg its block at
// the KIL, the pair's second drawn after it. Against the live tool too
// when it is installed.
func TestNvdisasmKilGraphs(t *testing.T) {
	const (
		kil   = 0xe33000000007000f // KIL
		kilP0 = 0xe33000000000000f // @P0 KIL
	)
	for _, c := range []struct {
		name  string
		fun   string // the patched section
		at    int64
		op    uint64
		flags string
		nodes string // the nodes of the patched function's cluster
		has   string // a piece of the listing (DOT-escaped)
	}{
		{"KIL ends its block", ".text.bfs_commit", 0x48, kil, "-bbcfg",
			"bfs_commit", `|<exit0>\ \ KIL\ ;\l}"]`},
		{"KIL ends its hyperblock", ".text.bfs_commit", 0x48, kil, "-cfg",
			"bfs_commit", `|<exit0>\ \ KIL\ ;\l}"]`},
		{"a guarded KIL goes on", ".text.bfs_commit", 0x48, kilP0, "-bbcfg",
			"bfs_commit BB0 BB1 BB2", `|<exit0>\ \ @P0\ KIL\ ;\l}"]`},
		// the entry reaches nothing but the KIL; the loop the SYNCs' target
		// .L_x_4 reaches is drawn
		{"listed targets", ".text.bfs_level", 0x8, kil, "-bbcfg",
			"bfs_level .L_x_5 .L_x_11 BB7 .L_x_13 .L_x_4 BB8", `bfs_level:\l.text.bfs_level:\l|<exit0>\ \ KIL\ ;\l}"]`},
		{"a KIL opening a pair", ".text.bfs_level", 0x10, kilP0, "-bbcfg",
			"bfs_level BB7 BB8 BB9 .L_x_5 .L_x_11 BB10 .L_x_13 .L_x_4 BB11",
			`|<exit0>\{\ @P0\ KIL\ ;\l\ \ S2R\ R6,\ SR_TID.X\ \}\l}"]`},
		{"a KIL opening a pair, hyperblocks", ".text.bfs_level", 0x10, kilP0, "-cfg",
			"bfs_level .L_x_5 .L_x_11 .L_x_13 .L_x_4",
			`|<exit0>\{\ @P0\ KIL\ ;\l|<exitpost0>\ \ S2R\ R6,\ SR_TID.X\ \}\l`},
		// the pair's second is drawn after an unconditional KIL, going nowhere
		{"a KIL opening a pair, hyperblocks, unguarded", ".text.bfs_level", 0x10, kil, "-cfg",
			"bfs_level .L_x_5 .L_x_11 .L_x_13 .L_x_4",
			`|<exit0>\{\ KIL\ ;\l|<exitpost0>\ \ S2R\ R6,\ SR_TID.X\ \}\l}"]`},
	} {
		path := patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
			s := text[c.fun]
			binary.LittleEndian.PutUint64(data[int64(s.Offset)+c.at:], c.op)
		})
		args := []string{"nvdisasm", c.flags, path}
		status, out, errText := runCLI(t, "", args...)
		if status != 0 || errText != "" {
			t.Fatalf("%s: %v: status %d, %s", c.name, args[1:], status, errText)
		}
		if got := clusterNodes(out, strings.TrimPrefix(c.fun, ".text.")); got != c.nodes {
			t.Errorf("%s: %v: nodes %q, want %q", c.name, args[1:], got, c.nodes)
		}
		if !strings.Contains(out, c.has) {
			t.Errorf("%s: %v: no %s in\n%s", c.name, args[1:], c.has, out)
		}
		if nv := liveNvdisasm(); nv != "" {
			live, err := exec.Command(nv, args[1:]...).Output()
			if err != nil || string(live) != out {
				t.Errorf("%s: live nvdisasm %v differs (%v)", c.name, args[1:], err)
			}
		}
	}
}

// TestNvdisasmKilSweep replaces every instruction of the three bfs
// functions in turn by KIL, @P0 KIL and KIL CC.F and compares -bbcfg, -cfg
// and -plr with live nvdisasm: 174 cubins, 522 runs a flag, about 8
// minutes here. It runs only when GPUISA_KIL_SWEEP is set and nvdisasm is
// installed, and fails when fewer runs agree than docs/nvtools.md records.
func TestNvdisasmKilSweep(t *testing.T) {
	nv := liveNvdisasm()
	if os.Getenv("GPUISA_KIL_SWEEP") == "" || nv == "" {
		t.Skip("set GPUISA_KIL_SWEEP with nvdisasm installed")
	}
	runs, agree := map[string]int{}, map[string]int{}
	for _, fun := range []string{".text.bfs_commit", ".text.bfs_expand", ".text.bfs_level"} {
		for at := int64(8); at < 0x300; at += 8 {
			for _, op := range []uint64{0xe33000000007000f, 0xe33000000000000f, 0xe33000000007000e} {
				inside := true
				path := patchedBfs(t, func(text map[string]cubin.Section, data []byte) {
					s := text[fun]
					if inside = at%maxwell.BundleSize != 0 && at < int64(s.Size); inside {
						binary.LittleEndian.PutUint64(data[int64(s.Offset)+at:], op)
					}
				})
				if !inside {
					continue
				}
				for _, flags := range []string{"-bbcfg", "-cfg", "-plr"} {
					args := []string{"nvdisasm", flags, path}
					_, out, errText := runCLI(t, "", args...)
					cmd := exec.Command(nv, args[1:]...)
					var stderr strings.Builder
					cmd.Stderr = &stderr
					live, _ := cmd.Output()
					runs[flags]++
					if string(live) == out && stderr.String() == errText {
						agree[flags]++
					} else {
						t.Logf("%s %#x %#x %s differs", fun, at, op, flags)
					}
				}
			}
		}
	}
	t.Logf("runs %v, agree %v", runs, agree)
	for flags, least := range map[string]int{"-bbcfg": 491, "-cfg": 493, "-plr": 374} {
		if agree[flags] < least {
			t.Errorf("%s: %d of %d runs agree, %d before", flags, agree[flags], runs[flags], least)
		}
	}
}

// clusterNodes lists the nodes of function fun's cluster in a DOT graph.
func clusterNodes(dot, fun string) string {
	_, rest, _ := strings.Cut(dot, `subgraph "cluster_`+fun+`" {`)
	rest, _, _ = strings.Cut(rest, "subgraph ")
	var nodes []string
	for _, m := range regexp.MustCompile(`(?m)^"([^"]+)"$`).FindAllStringSubmatch(rest, -1) {
		nodes = append(nodes, m[1])
	}
	return strings.Join(nodes, " ")
}
