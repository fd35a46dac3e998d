package usse

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/usse"
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
	// Workers: quads run in parallel (0: every core; a trace runs one).
	Workers int
	// Probe, when set, is called around every op (fault injection,
	// inject.go); the quads then run one at a time, in order.
	Probe Probe
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
// instances, in quads (instances 4k..4k+3 in lockstep). init fills instance
// i's inputs (its PA registers) after its registers are cleared and the
// secondary program's SA copied in; done reads its results. Quads run in
// parallel on cfg.Workers goroutines (0: every core; with a trace, one), so
// init and done may be called concurrently for different instances. The
// first fault (of the lowest-numbered instance's quad) is returned.
func (p *Program) Draw(cfg Config, sa *[bankWords]uint32, n int, init func(i int, t *Instance) error, done func(i int, t *Instance) error) (st Stats, err error) {
	start := time.Now()
	defer func() { st.Duration = time.Since(start) }()
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	sec := new(Instance)
	q := quad{max: cfg.MaxSteps, probe: cfg.Probe, who: [4]int{-1}}
	q.lanes[0] = sec
	copy(sec.File[baseSA:baseSA+bankWords], sa[:])
	if cfg.Trace != nil {
		q.tr[0] = &tracer{w: cfg.Trace, who: "draw"}
	}
	err = q.run(&p.Secondary, 0, 1)
	st.Instructions += q.steps
	if err != nil {
		return st, err
	}
	var shared [bankWords]uint32
	copy(shared[:], sec.File[baseSA:baseSA+bankWords])
	quads := (n + 3) / 4
	workers := emu.WorkerCount(cfg.Workers, quads, cfg.Trace != nil || cfg.Probe != nil)
	var (
		next     atomic.Int64
		mu       sync.Mutex
		firstErr error
		errQuad  = quads
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lanes [4]Instance
			var local Stats
			for {
				k := int(next.Add(1) - 1)
				if k >= quads {
					break
				}
				mu.Lock()
				stop := k > errQuad
				mu.Unlock()
				if stop {
					break
				}
				err := p.drawQuad(cfg, &lanes, &shared, 4*k, n, init, done, &local)
				if err != nil {
					mu.Lock()
					if k < errQuad {
						errQuad, firstErr = k, err
					}
					mu.Unlock()
					break
				}
			}
			mu.Lock()
			st.Instances += local.Instances
			st.Discarded += local.Discarded
			st.Instructions += local.Instructions
			mu.Unlock()
		}()
	}
	wg.Wait()
	return st, firstErr
}

// drawQuad runs instances first..first+3 (those below n) on lanes.
func (p *Program) drawQuad(cfg Config, lanes *[4]Instance, shared *[bankWords]uint32, first, n int,
	init func(i int, t *Instance) error, done func(i int, t *Instance) error, st *Stats) error {
	q := quad{max: cfg.MaxSteps, probe: cfg.Probe}
	var mask uint8
	for k := 0; k < 4 && first+k < n; k++ {
		i := first + k
		t := &lanes[k]
		t.reset(&p.Primary, shared)
		if init != nil {
			if err := init(i, t); err != nil {
				return fmt.Errorf("%s %d: %w", p.kindName(), i, err)
			}
		}
		q.lanes[k], q.who[k] = t, i
		mask |= 1 << k
		if cfg.Trace != nil && (cfg.TraceInstance < 0 || cfg.TraceInstance == i) {
			q.tr[k] = &tracer{w: cfg.Trace, who: fmt.Sprintf("%s %d", p.kindName(), i)}
		}
	}
	err := q.run(&p.Primary, 0, mask)
	st.Instructions += q.steps
	if err != nil {
		if f, ok := err.(*Fault); ok {
			f.Kind, f.Index = p.kindName(), first+q.faultLane
		}
		return err
	}
	for k := 0; k < 4 && first+k < n; k++ {
		st.Instances++
		if lanes[k].Discarded {
			st.Discarded++
		}
		if done != nil {
			if err := done(first+k, &lanes[k]); err != nil {
				return fmt.Errorf("%s %d: %w", p.kindName(), first+k, err)
			}
		}
	}
	return nil
}

// reset readies an instance for code c: the registers c can reach cleared
// (a program without indexed operands reaches only the words its operands
// name, so the rest of the file need not be cleared), the SA the secondary
// program left, the rest of the state zero.
func (t *Instance) reset(c *Code, sa *[bankWords]uint32) {
	t.P, t.Idx, t.Link, t.Discarded, t.fault = [4]bool{}, [2]uint32{}, 0, false, nil
	for _, r := range c.reach {
		clear(t.File[r[0]:r[1]])
	}
	copy(t.File[baseSA:baseSA+bankWords], sa[:])
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

// namedBankBase is the first word of bank "pa", "sa", "o" or "r".
func namedBankBase(name string) (int, bool) {
	var b usse.Bank
	switch name {
	case "pa":
		b = usse.BankPrimary
	case "sa":
		b = usse.BankSecondary
	case "o":
		b = usse.BankOutput
	case "r":
		b = usse.BankTemp
	default:
		return 0, false
	}
	return bankBase(b)
}

// Reg is register word w of bank b ("pa", "sa", "o", "r") of the instance.
func (t *Instance) Reg(b string, w int) (uint32, bool) {
	base, ok := namedBankBase(b)
	if !ok || w < 0 || w >= bankWords {
		return 0, false
	}
	return t.File[base+w], true
}

// SetReg sets register word w of bank b.
func (t *Instance) SetReg(b string, w int, v uint32) bool {
	base, ok := namedBankBase(b)
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
