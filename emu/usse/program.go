package usse

import (
	"errors"
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// Program is a GXP shader decoded and lowered once, ready to run any number
// of instances.
type Program struct {
	GXP       *gxp.Program
	Res       *gxp.Resources
	Primary   Code
	Secondary Code
}

// Code is one of a GXP's two programs: its words, their decoding and the
// lowered ops.
type Code struct {
	Name  string // "primary" or "secondary"
	Words []uint64
	Insts []usse.Inst
	Errs  []error // decode errors, per instruction (nil: decoded)
	ops   []op
	first []int32 // op index of instruction i; first[len(Insts)] is the implicit end
	// reach lists the word ranges of the file the code can touch besides SA
	// (whole banks where it indexes registers); an instance is cleared there.
	reach [][2]int
}

// Fault is an error of a running instance, naming the program and the
// instruction.
type Fault struct {
	Program string // "primary" or "secondary"
	Kind    string // "vertex", "fragment", or "" for the secondary program
	Index   int    // the vertex or fragment
	PC      uint64 // byte address of the instruction in its program
	Inst    string // its text
	Err     error
}

func (f *Fault) Error() string {
	who := f.Program + " program"
	if f.Kind != "" {
		who = fmt.Sprintf("%s %d, %s", f.Kind, f.Index, who)
	}
	if f.Inst != "" {
		return fmt.Sprintf("%s: pc %#04x %s: %v", who, f.PC, f.Inst, f.Err)
	}
	return fmt.Sprintf("%s: pc %#04x: %v", who, f.PC, f.Err)
}

func (f *Fault) Unwrap() error { return f.Err }

// fault builds the Fault of instruction i (the caller fills Kind/Index).
func (c *Code) fault(i int, err error) *Fault {
	f := &Fault{Program: c.Name, PC: uint64(i) * usse.Len, Err: err}
	if i >= 0 && i < len(c.Insts) {
		f.Inst = c.Text(i)
	}
	return f
}

// Text is instruction i as the disassembler prints it.
func (c *Code) Text(i int) string {
	if c.Insts[i].Form < 0 {
		return fmt.Sprintf(".quad 0x%016x", c.Words[i])
	}
	return usse.Print(c.Insts[i], uint64(i)*usse.Len)
}

// opOf is the op index where instruction i starts (len: the implicit end).
func (c *Code) opOf(i int) int {
	if i < 0 || i >= len(c.first) {
		return -1
	}
	return int(c.first[i])
}

// Ops is the number of lowered ops (repeats expanded, plus the implicit
// end).
func (c *Code) Ops() int { return len(c.ops) }

// Load parses a GXP file and lowers both its programs.
func Load(data []byte) (*Program, error) {
	g, err := gxp.Parse(data)
	if err != nil {
		return nil, err
	}
	res, err := gxp.ParseResources(data)
	if err != nil {
		return nil, err
	}
	return New(g, res), nil
}

// New lowers a parsed GXP's programs.
func New(g *gxp.Program, res *gxp.Resources) *Program {
	if res == nil {
		res = &gxp.Resources{}
	}
	p := &Program{GXP: g, Res: res}
	p.Primary = newCode("primary", g.Primary, false, limits{pa: int(g.PARegs), o: res.OutputRegs})
	p.Secondary = newCode("secondary", g.Secondary, true, limits{})
	return p
}

// limits are the PA and O registers a primary program has (0: not known).
type limits struct{ pa, o int }

// check replaces an instruction's ops by a discard when they name a PA
// register past the program's PA count or an O register past its outputs:
// vita3k-shader-tests' notes report that the console then discards the
// pixel. (Indexed operands are checked against the bank only.)
func (lim limits) check(ops []op) []op {
	bad := func(reg uint16, index uint8, p part) string {
		if index != 0 || p == pConst {
			return ""
		}
		w := int(reg)
		switch {
		case lim.pa > 0 && w >= basePA && w < basePA+bankWords && w-basePA >= lim.pa:
			return fmt.Sprintf("pa%d is past the program's %d PA registers", w-basePA, lim.pa)
		case lim.o > 0 && w >= baseO && w < baseO+bankWords && w-baseO >= lim.o:
			return fmt.Sprintf("o%d is past the program's %d output registers", w-baseO, lim.o)
		}
		return ""
	}
	for i := range ops {
		o := &ops[i]
		var why string
		for k := 0; k < int(o.n) && why == ""; k++ {
			why = bad(o.dst[k].reg, o.dst[k].index, o.dst[k].part)
		}
		for s := 0; s < int(o.nsrc) && why == ""; s++ {
			for k := range o.src[s] {
				if why == "" {
					why = bad(o.src[s][k].reg, o.src[s][k].index, o.src[s][k].part)
				}
			}
		}
		if why != "" {
			return []op{{kind: kDiscard, inst: o.inst, last: true, err: errors.New(why), end: ops[len(ops)-1].end}}
		}
	}
	return ops
}

// reach computes Code.reach: per bank (pa, o, r, i), the words up to the
// highest one an op names, or the whole bank when an op indexes it; the
// inputs an instance receives are written after the clearing.
func reach(ops []op) [][2]int {
	hi := map[int]int{}
	note := func(reg uint16, index uint8, bank uint16, p part) {
		if p == pConst {
			return
		}
		b := int(bank)
		if index == 0 {
			b = int(reg) / bankWords * bankWords
			if int(reg) >= baseI {
				b = baseI
			}
			hi[b] = max(hi[b], int(reg)+1)
			return
		}
		hi[b] = b + bankWords
	}
	for i := range ops {
		o := &ops[i]
		for k := range o.dst {
			note(o.dst[k].reg, o.dst[k].index, o.dst[k].bank, o.dst[k].part)
		}
		for s := range o.src {
			for k := range o.src[s] {
				c := &o.src[s][k]
				note(c.reg, c.index, c.bank, c.part)
			}
		}
		if o.dual != nil {
			for d := range o.dual {
				for k := range o.dual[d].dst {
					x := &o.dual[d].dst[k]
					note(x.reg, x.index, x.bank, x.part)
				}
				for s := range o.dual[d].src {
					for k := range o.dual[d].src[s] {
						x := &o.dual[d].src[s][k]
						note(x.reg, x.index, x.bank, x.part)
					}
				}
			}
		}
		if o.kind == kLoad || o.kind == kStore {
			d := o.dst[0]
			hi[int(d.reg)/bankWords*bankWords] = max(hi[int(d.reg)/bankWords*bankWords], int(d.reg)+int(o.words[0]))
		}
	}
	var out [][2]int
	for _, b := range []int{basePA, baseO, baseR, baseI} {
		if h, ok := hi[b]; ok {
			end := b + bankWords
			if b == baseI {
				end = fileWords
			}
			out = append(out, [2]int{b, min(h, end)})
		}
	}
	return out
}

// newCode decodes and lowers a program. Words that do not decode become
// fault ops: they fault only if control reaches them. Running past the last
// instruction ends the instance (fragment programs end so: the driver's
// patched-on tail is not in the GXP).
func newCode(name string, words []uint64, secondary bool, lim limits) Code {
	c := Code{Name: name, Words: words, Insts: make([]usse.Inst, len(words)), Errs: make([]error, len(words))}
	c.first = make([]int32, len(words)+1)
	ps := &progState{}
	for i, w := range words {
		in, err := usse.DecodeWord(w, uint64(i)*usse.Len)
		c.Insts[i], c.Errs[i] = in, err
		c.first[i] = int32(len(c.ops))
		if err != nil {
			c.ops = append(c.ops, op{kind: kFault, inst: int32(i), err: err, last: true})
			continue
		}
		c.ops = append(c.ops, lim.check(lower(&c.Insts[i], int32(i), secondary, ps))...)
	}
	c.first[len(words)] = int32(len(c.ops))
	c.ops = append(c.ops, op{kind: kEnd, inst: int32(len(words)), last: true})
	c.reach = reach(c.ops)
	// branch targets: instruction index -> op index
	for i := range c.ops {
		if o := &c.ops[i]; o.kind == kBranch {
			if int(o.aux) > len(words) {
				*o = op{kind: kFault, inst: o.inst, err: fmt.Errorf("branch target %d is past the %d-instruction program", o.aux, len(words)), last: o.last}
				continue
			}
			o.aux = uint32(c.first[o.aux])
		}
	}
	return c
}
