// Package cfgtest checks control-flow graphs against listings printed by
// NVIDIA's tools: the branch targets, stack pushes, calls and exits that
// the text of each instruction shows must be the graph's blocks and edges.
// The ISA packages' tests run it over the oracle's real kernels.
package cfgtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/isa/cfg"
)

// Row is one instruction of a listing: its address and NVIDIA's text.
type Row struct {
	Addr uint64
	Text string
}

// Stats counts what Check looked at: instructions and those in reachable
// blocks, and per kind of instruction the ones checked (reachable) and
// the ones found right.
type Stats struct {
	Insts, Reached   int
	Jumps, JumpsOK   int // BRA, JMP
	Pushes, PushesOK int // SSY, PBK, PCNT, PRET
	Calls, CallsOK   int // CAL, JCAL
	Ends, EndsOK     int // unconditional EXIT, RET, and BRA
	Unresolved       int // BRK, CONT, SYNC or .S that the stack walk sent nowhere known
}

// Add sums s and o.
func (s *Stats) Add(o Stats) {
	s.Insts += o.Insts
	s.Reached += o.Reached
	s.Jumps += o.Jumps
	s.JumpsOK += o.JumpsOK
	s.Pushes += o.Pushes
	s.PushesOK += o.PushesOK
	s.Calls += o.Calls
	s.CallsOK += o.CallsOK
	s.Ends += o.Ends
	s.EndsOK += o.EndsOK
	s.Unresolved += o.Unresolved
}

func (s Stats) String() string {
	return fmt.Sprintf("%d/%d instructions reachable; jumps %d/%d, pushes %d/%d, calls %d/%d, block ends %d/%d right; %d stack pops unresolved",
		s.Reached, s.Insts, s.JumpsOK, s.Jumps, s.PushesOK, s.Pushes, s.CallsOK, s.Calls, s.EndsOK, s.Ends, s.Unresolved)
}

// flow matches the control instructions of cuobjdump's sm_1x and sm_2x
// text: guard, mnemonic, modifiers, an optional condition-code test
// (Tesla "C0.NE", Fermi "CC.EQ") and the target.
var flow = regexp.MustCompile(`^(@!?P\w+\s+)?(BRA|JMP|SSY|PBK|PCNT|PRET|CAL|JCAL|EXIT|RET|KIL|BRK|CONT)\b(\.[A-Z0-9_.]+)?\s*(\(?C\d+\.\w+\)?,?\s*|CC\.\w+,?\s*)?(0x[0-9a-fA-F]+)?`)

// Check compares fns (fns[0] the function entered at rows[0], the others
// the subroutines cfg.Program names after their addresses) with rows and
// returns what it counted and what is wrong.
func Check(fns []cfg.Function, rows []Row) (Stats, []string) {
	var st Stats
	var bad []string
	if len(fns) == 0 {
		return st, []string{"no graph"}
	}
	// each instruction in the graph of the function reaching it
	reached := map[uint64]*cfg.Graph{}
	subs := map[uint64]bool{}
	for i, f := range fns {
		if i > 0 {
			at := strings.LastIndexByte(f.Name, '@')
			a, err := strconv.ParseUint(f.Name[at+1:], 16, 64)
			if at < 0 || err != nil {
				bad = append(bad, "subroutine name "+f.Name)
				continue
			}
			subs[a] = true
		}
		for _, b := range f.Graph.Blocks {
			for k := b.Start; k < b.End; k++ {
				in := &f.Graph.Insts[k]
				if _, ok := reached[in.Addr]; !ok {
					reached[in.Addr] = f.Graph
				}
				if in.PopTo != cfg.NoStack && in.Kind == cfg.Jump && in.Opaque {
					st.Unresolved++
				}
			}
		}
	}
	has := map[uint64]bool{}
	for _, r := range rows {
		has[r.Addr] = true
	}
	st.Insts = len(rows)
	for i, r := range rows {
		g := reached[r.Addr]
		if g == nil {
			continue
		}
		st.Reached++
		m := flow.FindStringSubmatch(strings.TrimSpace(r.Text))
		if m == nil {
			continue
		}
		cond := m[1] != "" || m[4] != ""
		op := m[2]
		target, hasTarget := uint64(0), m[5] != ""
		if hasTarget {
			target, _ = strconv.ParseUint(m[5][2:], 16, 64)
		}
		b := g.BlockOf(r.Addr)
		blk := &g.Blocks[b]
		endsHere := g.Insts[blk.End-1].Addr == r.Addr
		jumpsTo := func(t uint64) bool {
			for _, e := range blk.Succs {
				if !e.Fall && g.Insts[g.Blocks[e.To].Start].Addr == t {
					return true
				}
			}
			return false
		}
		falls := false
		for _, e := range blk.Succs {
			falls = falls || e.Fall
		}
		last := i == len(rows)-1
		where := fmt.Sprintf("%#x %s", r.Addr, r.Text)
		switch op {
		case "BRA", "JMP":
			if !hasTarget {
				continue // through a register or constant
			}
			st.Jumps++
			ok := endsHere && (!has[target] || jumpsTo(target)) && (falls == (cond && !last))
			if ok {
				st.JumpsOK++
			} else {
				bad = append(bad, fmt.Sprintf("%s: block ends here %v, jumps to target %v, falls through %v", where, endsHere, jumpsTo(target), falls))
			}
		case "SSY", "PBK", "PCNT", "PRET":
			if !hasTarget {
				continue
			}
			st.Pushes++
			if t := g.BlockOf(target); t < 0 || g.Insts[g.Blocks[t].Start].Addr == target {
				st.PushesOK++
			} else {
				bad = append(bad, where+": the pushed address starts no block")
			}
		case "CAL", "JCAL":
			if !hasTarget {
				continue
			}
			st.Calls++
			if subs[target] || target == rows[0].Addr || !has[target] {
				st.CallsOK++
			} else {
				bad = append(bad, where+": no subroutine graph at the target")
			}
		case "EXIT", "KIL":
			if cond {
				continue
			}
			st.Ends++
			if endsHere && len(blk.Succs) == 0 {
				st.EndsOK++
			} else {
				bad = append(bad, where+": does not end its block with no successor")
			}
		}
	}
	return st, bad
}

// Facts checks one instruction's branch facts against NVIDIA's text of
// it at the same address: what the text shows of its kind, condition,
// target and stack entry. It reports whether the text is a control
// instruction at all, and what differs.
func Facts(in cfg.Inst, text string) (control bool, err error) {
	m := flow.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return false, nil
	}
	cond := m[1] != "" || m[4] != ""
	var target uint64
	if m[5] != "" {
		target, _ = strconv.ParseUint(m[5][2:], 16, 64)
	}
	targets := func(k cfg.Kind) error {
		if in.Kind != k || (m[5] != "" && (len(in.Targets) != 1 || in.Targets[0] != target)) {
			return fmt.Errorf("want kind %d to %#x, have %+v", k, target, in)
		}
		return nil
	}
	stack := map[string]cfg.Stack{"SSY": cfg.Sync, "PBK": cfg.Break, "PCNT": cfg.Cont, "PRET": cfg.Return,
		"BRK": cfg.Break, "CONT": cfg.Cont, "RET": cfg.Return}[m[2]]
	switch m[2] {
	case "BRA", "JMP":
		if m[5] == "" {
			if in.Kind != cfg.Jump || !in.Opaque {
				return true, fmt.Errorf("want an opaque jump, have %+v", in)
			}
			return true, nil
		}
		err = targets(cfg.Jump)
	case "CAL", "JCAL":
		err = targets(cfg.Call)
		cond = false // calls are not guarded
	case "SSY", "PBK", "PCNT", "PRET":
		if in.Push != stack || (m[5] != "" && in.PushTarget != target) {
			err = fmt.Errorf("want push %d of %#x, have %+v", stack, target, in)
		}
		cond = false
	case "BRK", "CONT", "RET":
		if in.PopTo != stack {
			err = fmt.Errorf("want a pop to stack entry %d, have %+v", stack, in)
		}
	case "EXIT", "KIL":
		if in.Kind != cfg.Exit {
			err = fmt.Errorf("want an exit, have %+v", in)
		}
	}
	if err == nil && in.Cond != cond {
		err = fmt.Errorf("conditional %v, want %v", in.Cond, cond)
	}
	return true, err
}
