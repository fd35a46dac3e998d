package maxwell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// The graph of a function's raw code, where the reconvergence stack walk
// finds where SYNC, BRK and CONT go, has the blocks and edges of the
// cubin's graph, which takes them from EIATTR_INDIRECT_BRANCH_TARGETS as
// nvdisasm does: over the line-info corpus and the oracle's cubins.
func TestRawGraphsMatchCubin(t *testing.T) {
	files, _ := filepath.Glob("testdata/lineinfo/cubin/*.cubin")
	if dir := oracle.SharedDir(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "oracle/maxwell/cubin/*/*.cubin"))
		files = append(files, more...)
	}
	same, total, indirect := 0, 0, 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		fromCubin, _ := Graphs(f, ListOptions{})
		byName := map[string]string{}
		for _, g := range fromCubin {
			byName[g.Name] = g.Graph.String()
			for _, in := range g.Graph.Insts {
				if len(in.Targets) > 1 && in.PopTo == cfg.NoStack {
					byName[g.Name] = "indirect" // BRX/JMX: the targets are only in the cubin
				}
			}
		}
		for _, fn := range f.Functions {
			want, ok := byName[fn.Name]
			if !ok {
				continue
			}
			if want == "indirect" {
				indirect++
				continue
			}
			raw, _ := RawGraphs(fn.Code, 0, f.SM(), fn.Name)
			total++
			if got := raw[0].Graph.String(); got == want {
				same++
			} else if !strings.HasPrefix(filepath.Base(name), "19_misc.") {
				// 19_misc is relocatable: nvdisasm labels the instruction
				// after its call to an extern function, which raw code
				// cannot know
				t.Errorf("%s %s: raw code's graph\n%swant\n%s", filepath.Base(name), fn.Name, got, want)
			}
		}
	}
	t.Logf("%d/%d functions: the raw code's graph is the cubin's (%d more have indirect jumps)", same, total, indirect)
	if total < 20 || total-same > 6 {
		t.Errorf("only %d functions", total)
	}
}
