package usse

import (
	"fmt"
	"io"
	"strings"
)

// tracer prints each executed instruction with the registers it wrote.
type tracer struct {
	w    io.Writer
	who  string // "vertex 3", "fragment 0", "secondary"
	line strings.Builder
}

func (tr *tracer) head(c *Code, o *op) {
	tr.line.Reset()
	fmt.Fprintf(&tr.line, "%s %s /*%04x*/ ", tr.who, c.Name, int(o.inst)*8)
	if int(o.inst) < len(c.Insts) {
		tr.line.WriteString(c.Text(int(o.inst)))
	} else {
		tr.line.WriteString("(end of program)")
	}
	if o.it > 0 || !o.last {
		fmt.Fprintf(&tr.line, " [rpt %d]", o.it)
	}
}

// jump prints a branch or lapc and whether the instance took it.
func (tr *tracer) jump(c *Code, o *op, t *Instance, taken bool) {
	tr.head(c, o)
	if taken {
		fmt.Fprintf(&tr.line, "   ; jumps")
	} else {
		fmt.Fprintf(&tr.line, "   ; falls through")
	}
	if o.kind == kBranch && o.aux2 != 0 {
		fmt.Fprintf(&tr.line, ", link=%d", t.Link)
	}
	fmt.Fprintln(tr.w, tr.line.String())
}

func (tr *tracer) skip(c *Code, o *op) {
	tr.head(c, o)
	tr.line.WriteString("   ; predicate false")
	fmt.Fprintln(tr.w, tr.line.String())
}

// op prints o after it ran on t: each destination channel it wrote.
func (tr *tracer) op(c *Code, o *op, t *Instance) {
	tr.head(c, o)
	sep := "   ; "
	wrote := func(d *chanDst) {
		if d.part == pConst {
			fmt.Fprintf(&tr.line, "%sidx%d=%#x", sep, d.index, t.Idx[(d.index-1)&1])
			sep = ", "
			return
		}
		w := t.at(d.reg, d.index, d.bank)
		v := t.File[w]
		tr.line.WriteString(sep)
		sep = ", "
		name := regName(w)
		switch d.part {
		case pLo:
			name += ".lo"
		case pHi:
			name += ".hi"
		case pByte0, pByte1, pByte2, pByte3:
			name += fmt.Sprintf(".b%d", d.part-pByte0)
		case pTen0, pTen1, pTen2:
			name += fmt.Sprintf(".t%d", d.part-pTen0)
		}
		x := fieldOf(v, d.part)
		switch d.fmt {
		case fF32:
			fmt.Fprintf(&tr.line, "%s=%#08x (%g)", name, x, f32(x))
		case fF16:
			fmt.Fprintf(&tr.line, "%s=%#04x (%g)", name, x, halfToFloat(x))
		default:
			fmt.Fprintf(&tr.line, "%s=%#x", name, x)
		}
	}
	switch o.kind {
	case kLoad: // words[0] consecutive registers from dst[0]
		for i := 0; i < int(o.words[0]); i++ {
			d := o.dst[0]
			d.reg += uint16(i)
			wrote(&d)
		}
	case kStore: // memory, not registers: the words written
		addr := (uint64(t.raw(&o.src[0][0])) + uint64(t.raw(&o.src[1][0])) + uint64(t.raw(&o.src[2][0]))) & 0xffffffff
		size := int(o.words[2])
		for k := 0; k < int(o.words[1]) && t.mem != nil; k++ {
			a := addr + uint64(k*size)
			if v, err := t.mem.Load(a, size); err == nil {
				fmt.Fprintf(&tr.line, "%smem[%#x]=%#0*x", sep, a, 2*size, v)
				sep = ", "
			}
		}
	default:
		for i := 0; i < int(o.n); i++ {
			wrote(&o.dst[i])
		}
	}
	if o.dual != nil {
		for k := range o.dual {
			for i := 0; i < int(o.dual[k].n); i++ {
				wrote(&o.dual[k].dst[i])
			}
		}
	}
	switch o.kind {
	case kTest, kTestInt:
		fmt.Fprintf(&tr.line, "%sp%d=%v", sep, o.words[0]&3, t.P[o.words[0]&3])
	case kSetLink:
		fmt.Fprintf(&tr.line, "%slink=%d", sep, t.Link)
	case kKill:
		fmt.Fprintf(&tr.line, "%sdiscarded", sep)
	case kDiscard:
		fmt.Fprintf(&tr.line, "%sdiscarded: %v", sep, o.err)
	}
	fmt.Fprintln(tr.w, tr.line.String())
}
