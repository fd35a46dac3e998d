package inject

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Z95 is the normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson is the Wilson score interval of x successes in n trials at the
// normal quantile z.
func Wilson(x, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p := float64(x) / float64(n)
	nn := float64(n)
	d := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / d
	h := z / d * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return math.Max(0, c-h), math.Min(1, c+h)
}

// Quantile is the two-sided normal quantile of a confidence level (0.95:
// 1.96), by bisection of the normal distribution function.
func Quantile(confidence float64) float64 {
	target := 1 - (1-confidence)/2
	lo, hi := 0.0, 10.0
	for range 200 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Plan is how many injections give a margin of error.
type Plan struct {
	Margin, Confidence, P float64
	Population            int64 // 0: infinite
	Normal                int   // the normal approximation, with the finite-population correction
	Wilson                int   // the fewest injections whose Wilson interval at P is within the margin
}

// PlanFor computes the injections for a margin at a confidence, for an
// expected rate p (0.5: the worst case) and a population (0: infinite).
func PlanFor(margin, confidence, p float64, population int64) (Plan, error) {
	if margin <= 0 || margin >= 1 || confidence <= 0 || confidence >= 1 || p < 0 || p > 1 {
		return Plan{}, fmt.Errorf("want 0 < margin < 1, 0 < confidence < 1, 0 <= p <= 1")
	}
	z := Quantile(confidence)
	n0 := z * z * p * (1 - p) / (margin * margin)
	n := n0
	if population > 0 {
		n = n0 / (1 + (n0-1)/float64(population))
	}
	pl := Plan{Margin: margin, Confidence: confidence, P: p, Population: population, Normal: int(math.Ceil(n))}
	// the Wilson half-width shrinks with n: search the first n within the margin
	half := func(n int) float64 {
		lo, hi := Wilson(int(math.Round(p*float64(n))), n, z)
		return (hi - lo) / 2
	}
	lo, hi := 1, 1
	for half(hi) > margin {
		hi *= 2
		if hi > 1<<40 {
			return pl, fmt.Errorf("margin too small")
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if half(mid) <= margin {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	pl.Wilson = lo
	if population > 0 {
		pl.Wilson = int(math.Ceil(float64(lo) / (1 + float64(lo-1)/float64(population))))
	}
	return pl, nil
}

// Tally is an experiment's outcome counts.
type Tally struct {
	Exp, Model, Group string
	N                 int // injections with an outcome (NoSite excluded)
	NoSite            int
	Counts            map[string]int // Masked, SDC, DUE, Hang, and Masked/sub
	// Derate is the mean register-file derating of the injections (rf:
	// each injection's launch's)
	Derate  float64
	derated int
}

func (t *Tally) failures() int { return t.Counts[SDC] + t.Counts[DUE] + t.Counts[Hang] }

// Tallies counts outcomes per experiment, in the order they appear.
func Tallies(recs []Record) []*Tally {
	var out []*Tally
	by := map[string]*Tally{}
	for _, r := range recs {
		t := by[r.Exp]
		if t == nil {
			t = &Tally{Exp: r.Exp, Model: r.Model, Group: r.Group, Counts: map[string]int{}}
			by[r.Exp] = t
			out = append(out, t)
		}
		if r.Outcome == NoSite {
			t.NoSite++
			continue
		}
		t.N++
		t.Counts[r.Outcome]++
		if r.Outcome == Masked {
			t.Counts[Masked+"/"+r.Sub]++
		}
		if r.Derate > 0 {
			t.Derate += (r.Derate - t.Derate) / float64(t.derated+1)
			t.derated++
		}
	}
	return out
}

func pct(x, n int) string {
	if n == 0 {
		return "-"
	}
	lo, hi := Wilson(x, n, Z95)
	return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*float64(x)/float64(n), 100*lo, 100*hi)
}

// WriteSummary writes the summary tables of results (Markdown): outcomes
// per experiment with 95% Wilson intervals, the AVF-style failure rates,
// and per-opcode and per-static-instruction vulnerability.
func WriteSummary(w io.Writer, recs []Record) {
	ts := Tallies(recs)
	fmt.Fprintf(w, "| experiment | N | Masked | never read / overwritten / read | SDC | DUE | Hang | failures (AVF) |\n")
	fmt.Fprintf(w, "|---|---:|---|---|---|---|---|---|\n")
	for _, t := range ts {
		if t.N == 0 {
			fmt.Fprintf(w, "| %s | 0 | no site (%d drawn) | | | | | |\n", t.Exp, t.NoSite)
			continue
		}
		avf := pct(t.failures(), t.N)
		if t.Derate > 0 {
			lo, hi := Wilson(t.failures(), t.N, Z95)
			avf += fmt.Sprintf("; x %.3f derating: %.2f%% [%.2f, %.2f]", t.Derate,
				100*t.Derate*float64(t.failures())/float64(t.N), 100*t.Derate*lo, 100*t.Derate*hi)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d / %d / %d | %s | %s | %s | %s |\n", t.Exp, t.N, pct(t.Counts[Masked], t.N),
			t.Counts[Masked+"/"+NeverRead], t.Counts[Masked+"/"+Overwritten], t.Counts[Masked+"/"+ReadEqual],
			pct(t.Counts[SDC], t.N), pct(t.Counts[DUE], t.N), pct(t.Counts[Hang], t.N), avf)
	}
	// per opcode and static instruction: the first experiment at single
	// instructions (the rates of different models do not add up)
	for _, t := range ts {
		if t.N == 0 || permanent(t.Model) {
			continue
		}
		var mine []Record
		for _, r := range recs {
			if r.Exp == t.Exp {
				mine = append(mine, r)
			}
		}
		writeVulnerability(w, mine, t.Exp, "opcode", func(r *Record) string { return r.Op }, 0)
		kernels := map[string]bool{}
		for _, r := range mine {
			kernels[r.Kernel] = true
		}
		writeVulnerability(w, mine, t.Exp, "static instruction", func(r *Record) string {
			switch {
			case r.PC == "":
				return ""
			case len(kernels) > 1: // a sequence of several kernels
				return fmt.Sprintf("%s %s %s", r.Kernel, r.PC, r.Op)
			}
			return fmt.Sprintf("%s %s", r.PC, r.Op)
		}, 10)
		break
	}
	dues := map[string]int{}
	for _, r := range recs {
		if r.Outcome == DUE || r.Outcome == Hang {
			d := r.Detail
			if i := strings.Index(d, ":"); i > 0 {
				d = d[:i]
			}
			if i := strings.Index(d, " ("); i > 0 {
				d = d[:i]
			}
			dues[r.Outcome+": "+d]++
		}
	}
	if len(dues) > 0 {
		fmt.Fprintf(w, "\n| DUE and Hang causes | count |\n|---|---:|\n")
		keys := make([]string, 0, len(dues))
		for k := range dues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "| %s | %d |\n", k, dues[k])
		}
	}
}

// writeVulnerability tabulates failure rates by a key (opcode, static
// instruction) over the injections at single instructions; limit > 0
// keeps the keys with the most failures.
func writeVulnerability(w io.Writer, recs []Record, exp, what string, key func(*Record) string, limit int) {
	type row struct {
		key        string
		n, sdc, fa int
	}
	by := map[string]*row{}
	total := 0
	for i := range recs {
		r := &recs[i]
		if r.Outcome == NoSite || permanent(r.Model) {
			continue
		}
		k := key(r)
		if k == "" {
			continue
		}
		x := by[k]
		if x == nil {
			x = &row{key: k}
			by[k] = x
		}
		x.n++
		total++
		if r.Outcome == SDC {
			x.sdc++
		}
		if r.Outcome != Masked {
			x.fa++
		}
	}
	if len(by) == 0 {
		return
	}
	rows := make([]*row, 0, len(by))
	for _, x := range by {
		rows = append(rows, x)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].fa != rows[j].fa {
			return rows[i].fa > rows[j].fa
		}
		return rows[i].key < rows[j].key
	})
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	title := fmt.Sprintf("%s by %s", exp, what)
	if limit > 0 {
		title = fmt.Sprintf("%s, top %d by %s", exp, limit, what)
	}
	fmt.Fprintf(w, "\n| %s | injections | SDC | failures | of the failure rate |\n|---|---:|---|---|---:|\n", title)
	for _, x := range rows {
		// the key's contribution to the experiment's failure rate: its
		// injections are its share of the population
		fmt.Fprintf(w, "| %s | %d | %s | %s | %.1f%% |\n", x.key, x.n, pct(x.sdc, x.n), pct(x.fa, x.n), 100*float64(x.fa)/float64(max(1, total)))
	}
}
