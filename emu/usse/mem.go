package usse

import (
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// LD/ST (op1 0x1D, 0x1E): lda/sta move fetch+1 elements between
// consecutive registers and memory at the byte address source 0 + source
// 1 + source 2, after Vita3K's reading: the data type gives the element
// size (0: 4 bytes, 1: 2 bytes, 2: 1 byte, which Vita3K marks unsure; 3 is
// not known), elements are packed little-endian into the registers from
// the first one's low byte (a partly filled last register keeps its other
// bytes), and an immediate source 1 counts elements. The count applies
// whether or not the MOE bit is set (Vita3K reads it in both cases; this
// spec prints the bit as a plain lda32 then). Not taken from Vita3K: its
// +4 when the MOE bit is clear and its 0x10000 subtracted from a register
// source 1, which it calls guesses about its own memory map. Memory is the
// launch's (bounds-checked; emu.Memory). The local and tiled forms
// (ldl/ldt, stl/stt) and the address increment modes have no description
// and fault.
func lowerLoad(l *lowerer)  { l.memory(kLoad) }
func lowerStore(l *lowerer) { l.memory(kStore) }

func (l *lowerer) memory(k kind) {
	if name := l.enum("amode"); name != "lda32" && name != "sta32" {
		l.fail("%s: %w (no description of its addressing)", name, errUnsupported)
		return
	}
	for _, f := range []string{"mode", "incdec", "range"} {
		if l.field(f) != 0 {
			l.fail("load/store %s %d: %w (no description of it)", f, l.field(f), errUnsupported)
			return
		}
	}
	size := [4]int{4, 2, 1, 0}[l.field("dtype")&3]
	if size == 0 {
		l.fail("load/store data type 3: %w", errUnsupported)
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
	words := (n*size + 3) / 4
	o := op{kind: k, n: 1, nsrc: 3}
	o.words[0] = uint32(words)
	o.words[1] = uint32(n)
	o.words[2] = uint32(size)
	for i, a := range addr {
		s := l.rawSrc(a, fU32, 'x', 0)
		if a.Bank == usse.BankImm && i == 1 {
			s.val *= uint32(size)
		}
		o.src[i][0] = s
	}
	first := l.dstChan(reg, fU32, 0, 0)
	if _, _, _, err := l.word(reg, words-1); err != nil {
		l.fail("%d words from %v%d: %v", words, reg.Bank, reg.Num, err)
	}
	o.dst[0] = first
	l.emit(o)
}

// memory is the memory loads and stores reach.
type memory = emu.Memory

// memOp runs kLoad and kStore: elements to or from consecutive registers
// (words[1] elements of words[2] bytes).
func (t *Instance) memOp(o *op) {
	if t.mem == nil {
		t.fault = fmt.Errorf("no memory: the launch file gives none")
		return
	}
	addr := uint64(t.raw(&o.src[0][0])) + uint64(t.raw(&o.src[1][0])) + uint64(t.raw(&o.src[2][0]))
	addr &= 0xffffffff
	d := o.dst[0]
	size := int(o.words[2])
	for k := 0; k < int(o.words[1]); k++ {
		at := k * size // byte offset in the registers
		w := t.at(d.reg+uint16(at/4), d.index, d.bank)
		sh := 8 * uint(at%4)
		mask := uint32(1)<<(8*size) - 1
		if size == 4 {
			mask = ^uint32(0)
		}
		a := addr + uint64(at)
		if o.kind == kLoad {
			v, err := t.mem.Load(a, size)
			if err != nil {
				t.fault = err
				return
			}
			t.File[w] = t.File[w]&^(mask<<sh) | uint32(v)<<sh
		} else if err := t.mem.Store(a, size, uint64(t.File[w]>>sh&mask)); err != nil {
			t.fault = err
			return
		}
	}
}
