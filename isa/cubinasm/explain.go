package cubinasm

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Explain says why a rebuilt cubin differs from the original when both list
// the same (the listing shows every section's contents by name, so what is
// left is what no listing shows). It returns one reason per kind of
// difference, and the sections that differ for no reason it knows (nil when
// every difference is explained).
func Explain(got, want []byte) (reasons, unexplained []string) {
	g, err := cubin.Parse(got)
	if err != nil {
		return nil, []string{"rebuilt file does not parse: " + err.Error()}
	}
	w, err := cubin.Parse(want)
	if err != nil {
		return nil, []string{"original does not parse: " + err.Error()}
	}
	if len(g.Sections) != len(w.Sections) {
		return nil, []string{fmt.Sprintf("%d sections, want %d", len(g.Sections), len(w.Sections))}
	}
	// names only ptxas's string table holds
	gs, ws := strs(g.Section(".strtab")), strs(w.Section(".strtab"))
	var dropped []string
	for _, s := range ws {
		if !slices.Contains(gs, s) {
			dropped = append(dropped, s)
		}
	}
	if len(dropped) > 0 {
		reasons = append(reasons, "the string table keeps names of symbols ptxas dropped ("+strings.Join(dropped, ", ")+"): no listing shows them")
	}
	var gn, wn []string
	for _, y := range g.Symbols {
		gn = append(gn, y.Name)
	}
	for _, y := range w.Symbols {
		wn = append(wn, y.Name)
	}
	symOrder := !slices.Equal(gn, wn)
	if symOrder {
		reasons = append(reasons, "the symbol order differs ("+firstOrderDiff(gn, wn)+"): ptxas orders subroutines as the PTX source declares them, which no listing shows")
	}
	tables := len(dropped) > 0 || symOrder || !bytes.Equal(g.Section(".strtab").Data, w.Section(".strtab").Data)
	codeDiff := false
	for i := range g.Sections {
		a, b := &g.Sections[i], &w.Sections[i]
		sameHeader := a.Name == b.Name && a.Type == b.Type && a.Flags == b.Flags && a.Link == b.Link && a.Align == b.Align && a.EntSize == b.EntSize
		sameInfo := a.Info == b.Info
		sameData := bytes.Equal(a.Data, b.Data) && a.Size == b.Size
		if sameHeader && sameInfo && sameData {
			continue
		}
		switch {
		case tables && sameHeader && followsTables(b, sameInfo, sameData):
			// string offsets and symbol indices
		case sameHeader && (sameInfo || tables) && strings.HasPrefix(b.Name, ".text.") && len(a.Data) == len(b.Data) && onlyControlWords(a.Data, b.Data):
			codeDiff = true // (and the symbol index in sh_info)
		default:
			unexplained = append(unexplained, b.Name)
		}
	}
	if codeDiff {
		reasons = append(reasons, "control words differ: the listing had no hex column, so they came from the instruction texts")
	}
	return reasons, unexplained
}

// followsTables reports whether a section's difference can come from string
// offsets or symbol indices alone.
func followsTables(s *cubin.Section, sameInfo, sameData bool) bool {
	switch {
	case s.Type == cubin.SecStrtab, s.Type == cubin.SecSymtab:
		return true
	case s.Type == cubin.SecCUDAInfo, s.Type == cubin.SecRel, s.Type == cubin.SecRela,
		s.Type == cubin.SecCUDACallgraph, s.Type == cubin.SecCUDAPrototype:
		return sameInfo // index@(sym) and str_index@ words, relocation symbols
	case strings.HasPrefix(s.Name, ".text."):
		return sameData // sh_info holds the function's symbol index
	}
	return false
}

// onlyControlWords reports whether two codes differ in control words only.
func onlyControlWords(a, b []byte) bool {
	for i := 0; i+8 <= len(a); i += 8 {
		if i%32 != 0 && !bytes.Equal(a[i:i+8], b[i:i+8]) {
			return false
		}
	}
	return true
}

func strs(s *cubin.Section) []string {
	if s == nil {
		return nil
	}
	return strings.Split(strings.Trim(string(s.Data), "\x00"), "\x00")
}

func firstOrderDiff(a, b []string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("symbol %d is %s, ptxas has %s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("%d symbols, ptxas has %d", len(a), len(b))
}
