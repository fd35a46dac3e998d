package asm

import "strings"

// Closest suggests up to three names of known near name (by edit
// distance), as " (closest: A, B, C)", or "" when none is near. Assemblers
// add it to "unknown mnemonic" errors.
func Closest(name string, known []string) string {
	type cand struct {
		name string
		d    int
	}
	before := func(a, b cand) bool { return a.d < b.d || a.d == b.d && a.name < b.name }
	// only names within the limit are suggested; a length differing by
	// more is farther than that (a long mistyped token is compared with
	// none: fuzzed text spent a tenth of its time here), and a distance
	// is not worked out past the limit. The three nearest are kept as
	// they come (sorting every candidate took half of the time of a
	// fuzzed listing's unknown mnemonics).
	limit := max(2, len(name)/2)
	var best [3]cand
	n := 0
	for _, k := range known {
		if abs(len(k)-len(name)) > limit {
			continue
		}
		c := cand{k, editDistanceWithin(name, k, limit)}
		if c.d > limit || n == len(best) && !before(c, best[n-1]) {
			continue
		}
		i := min(n, len(best)-1)
		for i > 0 && before(c, best[i-1]) {
			best[i] = best[i-1]
			i--
		}
		best[i] = c
		n = min(n+1, len(best))
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (closest: ")
	for i, c := range best[:n] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.name)
	}
	b.WriteString(")")
	return b.String()
}

// EditDistance is the Levenshtein distance of two short strings.
func EditDistance(a, b string) int {
	return editDistanceWithin(a, b, len(a)+len(b))
}

// editDistanceWithin is EditDistance when that is at most limit, and some
// number over limit otherwise: it stops at the first row of the table
// whose every entry is past limit (the entries never fall going down).
func editDistanceWithin(a, b string, limit int) int {
	var rows [2][32]int
	prev, cur := rows[0][:], rows[1][:]
	if len(b)+1 > len(prev) {
		prev, cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur = prev[:len(b)+1], cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			low = min(low, cur[j])
		}
		if low > limit {
			return low
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
