package cubinasm

import (
	"bytes"
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Compare lists how cubin got differs from want, section by section: the
// first differing byte of each section whose header or data differ, and
// differences of the ELF header. Nothing for identical files.
func Compare(got, want []byte) []string {
	if bytes.Equal(got, want) {
		return nil
	}
	g, err := cubin.Parse(got)
	if err != nil {
		return []string{"rebuilt file does not parse: " + err.Error()}
	}
	w, err := cubin.Parse(want)
	if err != nil {
		return []string{"original does not parse: " + err.Error()}
	}
	var out []string
	if g.Type != w.Type || g.Flags != w.Flags || g.Class != w.Class {
		out = append(out, fmt.Sprintf("ELF header: type %d flags %#x, want %d %#x", g.Type, g.Flags, w.Type, w.Flags))
	}
	n := max(len(g.Sections), len(w.Sections))
	for i := 0; i < n; i++ {
		if i >= len(g.Sections) {
			out = append(out, fmt.Sprintf("section %d %s missing", i, w.Sections[i].Name))
			continue
		}
		if i >= len(w.Sections) {
			out = append(out, fmt.Sprintf("section %d %s extra", i, g.Sections[i].Name))
			continue
		}
		a, b := &g.Sections[i], &w.Sections[i]
		if a.Name != b.Name || a.Type != b.Type || a.Flags != b.Flags || a.Link != b.Link || a.Info != b.Info || a.Align != b.Align || a.EntSize != b.EntSize || a.Size != b.Size {
			out = append(out, fmt.Sprintf("section %d header: %s type %#x flags %#x link %d info %#x align %d entsize %d size %d, want %s %#x %#x %d %#x %d %d %d",
				i, a.Name, a.Type, a.Flags, a.Link, a.Info, a.Align, a.EntSize, a.Size, b.Name, b.Type, b.Flags, b.Link, b.Info, b.Align, b.EntSize, b.Size))
		}
		if !bytes.Equal(a.Data, b.Data) {
			k := 0
			for k < len(a.Data) && k < len(b.Data) && a.Data[k] == b.Data[k] {
				k++
			}
			out = append(out, fmt.Sprintf("section %d %s data differs at 0x%x", i, b.Name, k))
		}
	}
	if len(out) == 0 {
		out = append(out, "file layout differs")
	}
	return out
}
