package usse

import (
	"fmt"
	"io"
	"time"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
)

// DefaultMaxSteps bounds the instructions of one instance: far above any
// shader (the programs here run under 100), low enough that a runaway loop
// stops at once.
const DefaultMaxSteps = 1 << 20

// Config is how a draw runs.
type Config struct {
	MaxSteps int64     // per instance; 0: DefaultMaxSteps
	Trace    io.Writer // nil: no trace
	// TraceInstance limits the trace to one instance (-1: all).
	TraceInstance int
}

// Stats summarises a draw.
type Stats struct {
	Instances    int
	Discarded    int
	Instructions int64 // executed, secondary program included
	Duration     time.Duration
}

// kindName is "vertex" or "fragment".
func (p *Program) kindName() string { return p.GXP.Kind.String() }

// Draw runs the secondary program once on sa (the secondary attributes the
// driver set up, see PlaceUniforms) and then the primary program for n
// instances. init fills instance i's inputs (its PA registers) after the
// file is cleared and the secondary program's SA copied in; done reads its
// results. Instances run in order, one after another.
func (p *Program) Draw(cfg Config, sa *[bankWords]uint32, n int, init func(i int, t *Instance) error, done func(i int, t *Instance) error) (st Stats, err error) {
	start := time.Now()
	defer func() { st.Duration = time.Since(start) }()
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	var lanes [4]Instance
	q := quad{max: cfg.MaxSteps}
	q.lanes[0] = &lanes[0]
	copy(lanes[0].File[baseSA:baseSA+bankWords], sa[:])
	if cfg.Trace != nil {
		q.tr[0] = &tracer{w: cfg.Trace, who: "draw"}
	}
	err = q.run(&p.Secondary, 0, 1)
	st.Instructions += q.steps
	if err != nil {
		return st, err
	}
	var shared [bankWords]uint32
	copy(shared[:], lanes[0].File[baseSA:baseSA+bankWords])
	for first := 0; first < n; first += 4 {
		q = quad{max: cfg.MaxSteps}
		var mask uint8
		for k := 0; k < 4 && first+k < n; k++ {
			i := first + k
			t := &lanes[k]
			*t = Instance{}
			copy(t.File[baseSA:baseSA+bankWords], shared[:])
			if init != nil {
				if err := init(i, t); err != nil {
					return st, fmt.Errorf("%s %d: %w", p.kindName(), i, err)
				}
			}
			q.lanes[k] = t
			mask |= 1 << k
			if cfg.Trace != nil && (cfg.TraceInstance < 0 || cfg.TraceInstance == i) {
				q.tr[k] = &tracer{w: cfg.Trace, who: fmt.Sprintf("%s %d", p.kindName(), i)}
			}
		}
		err := q.run(&p.Primary, 0, mask)
		st.Instructions += q.steps
		if err != nil {
			if f, ok := err.(*Fault); ok {
				f.Kind, f.Index = p.kindName(), first
			}
			return st, err
		}
		for k := 0; k < 4 && first+k < n; k++ {
			st.Instances++
			if lanes[k].Discarded {
				st.Discarded++
			}
			if done != nil {
				if err := done(first+k, &lanes[k]); err != nil {
					return st, fmt.Errorf("%s %d: %w", p.kindName(), first+k, err)
				}
			}
		}
	}
	return st, nil
}

// PlaceUniforms sets up the secondary attributes as the driver does: each
// named uniform's words at its container's base SA plus its resource index
// (the default uniform buffer, container 14), and the literals at the
// literal container's base plus their offset. values maps parameter names
// to their words (f32 bits for float parameters), in the parameter's
// layout; names that are not uniforms of the program are errors.
func (p *Program) PlaceUniforms(sa *[bankWords]uint32, values map[string][]uint32) error {
	for name, words := range values {
		par, ok := p.Param(name)
		if !ok || par.Category != gxp.Uniform {
			return fmt.Errorf("%q is not a uniform of this program (see its parameter table)", name)
		}
		base := 0
		if c, ok := p.Res.Container(uint16(par.Container)); ok {
			base = int(c.BaseSA)
		}
		at := base + int(par.ResourceIndex)
		if at < 0 || at+len(words) > bankWords {
			return fmt.Errorf("uniform %s: %d words at sa%d run past the SA bank", name, len(words), at)
		}
		copy(sa[at:], words)
	}
	if lb, ok := p.Res.LiteralBase(); ok {
		for _, lit := range p.Res.Literals {
			// a literal outside the bank is skipped (vtstmsk_always's GXP has one:
			// the patch that made the test wrote an instruction over it, and the
			// console ran the program)
			if at := uint64(lb) + uint64(lit.Offset); at < bankWords {
				sa[at] = lit.Value
			}
		}
	}
	return nil
}

// Param finds a parameter by name.
func (p *Program) Param(name string) (gxp.Param, bool) {
	for _, par := range p.GXP.Params {
		if par.Name == name {
			return par, true
		}
	}
	return gxp.Param{}, false
}

// Reg is register word w of bank b ("pa", "sa", "o", "r") of the instance.
func (t *Instance) Reg(b string, w int) (uint32, bool) {
	base, ok := map[string]int{"pa": basePA, "sa": baseSA, "o": baseO, "r": baseR}[b]
	if !ok || w < 0 || w >= bankWords {
		return 0, false
	}
	return t.File[base+w], true
}

// SetReg sets register word w of bank b.
func (t *Instance) SetReg(b string, w int, v uint32) bool {
	base, ok := map[string]int{"pa": basePA, "sa": baseSA, "o": baseO, "r": baseR}[b]
	if !ok || w < 0 || w >= bankWords {
		return false
	}
	t.File[base+w] = v
	return true
}

// BankWords is the size of each of the pa, sa, o and r banks in this model.
const BankWords = bankWords

// SA is the type of a secondary-attribute bank image.
type SA = [bankWords]uint32
