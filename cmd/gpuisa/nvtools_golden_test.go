package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// nvtoolsDir is the differential corpus of mxdiff -tools: jump tables,
// calls through function pointers, textures, recursion, printf, shared
// memory, loops and half precision, with -lineinfo and -G.
var nvtoolsDir = filepath.Join("..", "..", "isa", "maxwell", "testdata", "nvtools")

// knownDiffs are the listings of the corpus still known to differ, each
// with its reason (docs/nvtools.md); the test fails when one starts to
// agree, so the list stays true.
// (none at present: the last, calls.sm_52.rdc's -sass hex column, was a
// bundle's closing line widening the column).
var knownDiffs = map[string]string{}

// The corpus lists as nvdisasm and cuobjdump 11.8 listed it (standard
// output), for the committed flag sets (golden.sh there).
func TestNvtoolsGolden(t *testing.T) {
	sets := []struct{ tool, tag, flags, glob string }{
		{"nvdisasm", "plain", "", "*.cubin"},
		{"nvdisasm", "cfg", "-cfg", "*.cubin"},
		{"nvdisasm", "ndf-c", "-ndf -c", "*.cubin"},
		{"cuobjdump", "elf", "-elf", "*"},
		{"cuobjdump", "sass-symbols-res-usage", "-sass -symbols -res-usage", "*"},
		{"cuobjdump", "lelf-lptx", "-lelf -lptx", "*"},
	}
	for _, set := range sets {
		files, _ := filepath.Glob(filepath.Join(nvtoolsDir, "cubin", set.glob))
		if len(files) < 30 {
			t.Fatalf("%d files in the nvtools corpus", len(files))
		}
		want := readGolden(t, filepath.Join(nvtoolsDir, set.tool, set.tag+".txt.gz"))
		ok := 0
		for _, f := range files {
			w, found := want[filepath.Base(f)]
			if !found {
				t.Errorf("%s %s: no golden listing for %s", set.tool, set.flags, filepath.Base(f))
				continue
			}
			_, got, _ := runCLI(t, "", append(append([]string{set.tool}, strings.Fields(set.flags)...), f)...)
			if why, known := knownDiffs[set.tool+" "+set.flags+" "+filepath.Base(f)]; known {
				if got == w {
					t.Errorf("%s %s %s: now agrees; drop it from knownDiffs", set.tool, set.flags, filepath.Base(f))
				} else {
					t.Logf("%s %s %s: differs (known: %s)", set.tool, set.flags, filepath.Base(f), why)
				}
				continue
			}
			if got != w {
				t.Errorf("%s %s %s:\n%s", set.tool, set.flags, filepath.Base(f), firstDiff(w, got))
				continue
			}
			ok++
		}
		t.Logf("%s %-28s %d/%d", set.tool, set.flags, ok, len(files))
	}
}

// Line tables as nvdisasm 11.8 prints them (golden.sh: lines.txt.gz): the
// inline call sites of a unit holding two kernels' sequences (-gi on tex,
// each sequence counts its rows from its own start) and the rows of a
// function's control word and first instruction, of which the last counts
// (-g on calls.sm_52.rdc, -gp on calls.sm_50.g).
func TestNvtoolsLineGolden(t *testing.T) {
	want := readGolden(t, filepath.Join(nvtoolsDir, "nvdisasm", "lines.txt.gz"))
	if len(want) < 5 {
		t.Fatalf("%d listings in lines.txt.gz", len(want))
	}
	for key, w := range want {
		fields := strings.Fields(key)
		file := filepath.Join(nvtoolsDir, "cubin", fields[len(fields)-1])
		_, got, _ := runCLI(t, "", append(append([]string{"nvdisasm"}, fields[:len(fields)-1]...), file)...)
		if got != w {
			t.Errorf("nvdisasm %s:\n%s", key, firstDiff(w, got))
		}
	}
}
