package maxwell

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// The line tables of the corpus decode whole, every row in a code section.
func TestLineTables(t *testing.T) {
	cubins, _ := filepath.Glob("testdata/lineinfo/cubin/*.cubin")
	rows, inlined := 0, 0
	for _, c := range cubins {
		data, _ := os.ReadFile(c)
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []func(*cubin.File) ([]LineRow, error){LineTable, PTXLineTable} {
			rs, err := table(f)
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if len(rs) == 0 {
				t.Fatalf("%s: no rows", c)
			}
			for _, r := range rs {
				if r.Section <= 0 || r.Section >= len(f.Sections) || f.Sections[r.Section].Flags&cubin.SHFExecInstr == 0 {
					t.Fatalf("%s: row %+v outside the code", c, r)
				}
				if r.InlinedAt != 0 {
					inlined++
				}
			}
			rows += len(rs)
		}
	}
	if inlined == 0 {
		t.Fatal("no inlined rows in the corpus")
	}
	t.Logf("%d rows, %d inlined, in %d cubins", rows, inlined, len(cubins))
}

// Damaged line programs give an error or fewer rows, never a panic or hang.
func FuzzLineTable(f *testing.F) {
	cubins, _ := filepath.Glob("testdata/lineinfo/cubin/*.li.cubin")
	for _, c := range cubins[:min(4, len(cubins))] {
		data, _ := os.ReadFile(c)
		if cf, err := cubin.Parse(data); err == nil {
			if s := cf.Section(".debug_line"); s != nil {
				f.Add(s.Data)
			}
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		cf := &cubin.File{Sections: []cubin.Section{{}, {Name: ".debug_line", Data: data}}}
		rows, _ := LineTable(cf)
		for _, r := range rows {
			if r.Sequence < 0 || r.Sequence > len(rows) {
				t.Fatalf("row %+v", r)
			}
		}
		lineNotes(rows, -1, true)
		DumpLineSection(nil, cf, ".debug_line")
	})
}
