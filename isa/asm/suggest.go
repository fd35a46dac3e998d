package asm

import (
	"sort"
	"strings"
)

// Closest suggests up to three names of known near name (by edit
// distance), as " (closest: A, B, C)", or "" when none is near. Assemblers
// add it to "unknown mnemonic" errors.
func Closest(name string, known []string) string {
	type cand struct {
		name string
		d    int
	}
	// only names within the limit are suggested; a length differing by
	// more is farther than that (a long mistyped token is compared with
	// none: fuzzed text spent a tenth of its time here)
	limit := max(2, len(name)/2)
	cs := make([]cand, 0, len(known))
	for _, k := range known {
		if abs(len(k)-len(name)) <= limit {
			cs = append(cs, cand{k, EditDistance(name, k)})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs[:min(3, len(cs))] {
		if c.d > limit {
			break
		}
		out = append(out, c.name)
	}
	if len(out) == 0 {
		return ""
	}
	return " (closest: " + strings.Join(out, ", ") + ")"
}

// EditDistance is the Levenshtein distance of two short strings.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
