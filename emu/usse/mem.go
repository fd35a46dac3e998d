package usse

import (
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// LD/ST (op1 0x1D, 0x1E): lda32/sta32 move fetch+1 32-bit words between
// registers and memory at the byte address source 0 + source 1 + source 2
// (an immediate offset counts words, Vita3K). Memory is the launch's
// (bounds-checked; emu.Memory). The local and tiled forms (ldl/ldt,
// stl/stt), other data types and the MOE-expanded count are not emulated.
func lowerLoad(l *lowerer)  { l.memory(kLoad) }
func lowerStore(l *lowerer) { l.memory(kStore) }

func (l *lowerer) memory(k kind) {
	if name := l.enum("amode"); name != "lda32" && name != "sta32" {
		l.fail("%s: %w", name, errUnsupported)
		return
	}
	if l.field("dtype") != 0 {
		l.fail("load/store data type %d: %w", l.field("dtype"), errUnsupported)
		return
	}
	if l.field("moe") != 0 {
		l.fail("load/store count from the MOE state: %w", errUnsupported)
		return
	}
	// operands: the register, then the address sources (ld: dst first; st: address first)
	var reg usse.Operand
	var addr []usse.Operand
	if k == kLoad {
		reg, addr = l.opnd(0), l.opnds[1:]
	} else {
		reg, addr = l.opnds[len(l.opnds)-1], l.opnds[:len(l.opnds)-1]
	}
	if len(addr) != 3 {
		l.fail("%d address operands", len(addr))
		return
	}
	n := int(l.field("fetch")) + 1
	o := op{kind: k, n: uint8(min(n, 4)), nsrc: 3}
	o.words[0] = uint32(n)
	for i, a := range addr {
		s := l.rawSrc(a, fU32, 'x', 0)
		if a.Bank == usse.BankImm && i > 0 {
			s.val *= 4
		}
		o.src[i][0] = s
	}
	first := l.dstChan(reg, fU32, 0, 0)
	if _, _, _, err := l.word(reg, n-1); err != nil {
		l.fail("%d words from %v%d: %v", n, reg.Bank, reg.Num, err)
	}
	o.dst[0] = first
	l.emit(o)
}

// memory is the memory loads and stores reach.
type memory = emu.Memory

// memOp runs kLoad and kStore: words to or from consecutive registers.
func (t *Instance) memOp(o *op) {
	if t.mem == nil {
		t.fault = fmt.Errorf("no memory: the launch file gives none")
		return
	}
	addr := uint64(t.raw(&o.src[0][0])) + uint64(t.raw(&o.src[1][0])) + uint64(t.raw(&o.src[2][0]))
	addr &= 0xffffffff
	d := o.dst[0]
	for k := 0; k < int(o.words[0]); k++ {
		w := t.at(d.reg+uint16(k), d.index, d.bank)
		a := addr + 4*uint64(k)
		if o.kind == kLoad {
			v, err := t.mem.Load(a, 4)
			if err != nil {
				t.fault = err
				return
			}
			t.File[w] = uint32(v)
		} else if err := t.mem.Store(a, 4, uint64(t.File[w])); err != nil {
			t.fault = err
			return
		}
	}
}
