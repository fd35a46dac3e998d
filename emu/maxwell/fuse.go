package maxwell

import (
	"math/bits"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
)

// Superinstructions: ptxas builds a 32-bit multiply-add from three XMADs
// (XMAD.MRG, XMAD, XMAD.PSL.CBCC) and a 64-bit add from IADD.CC (or
// ISCADD.CC) and IADD.X; the interpreter runs each group in one lane loop
// when every lane is active. The lanes of these instructions are
// independent, so running the group lane by lane (each lane's first
// instruction, then its second, reading what the first wrote) is the same
// as running the instructions one after the other, whatever registers
// they share. Counters, budgets and traces see every instruction.

// Fusion group kinds, by their first instruction's index (Kernel.fuse).
const (
	fuseNone    = iota
	fuseMulAdd  // XMAD.MRG, XMAD, XMAD.PSL.CBCC
	fuseMulAdd2 // XMAD, XMAD.MRG, XMAD.PSL.CBCC (ptxas orders the first two either way)
	fuseAdd64   // IADD.CC or ISCADD.CC, IADD.X
	fuseMul32   // fuseMulAdd computing d = a*b + c (32 bits), see mulIdiom
	fuseMul32b  // the same in fuseMulAdd2's order
)

// fuseLen is the number of instructions in a group.
var fuseLen = [...]int64{fuseNone: 1, fuseMulAdd: 3, fuseMulAdd2: 3, fuseAdd64: 2, fuseMul32: 3, fuseMul32b: 3}

// addRows are a fuseAdd64 group's operand rows, each an offset in the
// registers (row*32) or, for a broadcast row i, ^i: add64 finds them
// without looking at the operands' kinds.
type addRows struct {
	a1, b1, d1, a2, b2, d2 int32
	end                    int32 // past the highest register row: checked once
	// IADD.CC (not ISCADD) whose flags no later instruction reads but
	// the IADD.X's carry: addRange's loop
	carryOnly bool
	// instructions between the two (a split pair, see splitAdd64): 0 for
	// a fuseAdd64 group
	gap uint8
}

// rowOffset is a plain operand's addRows entry.
func rowOffset(s *opnd) int32 {
	if s.kind == oReg {
		return int32(s.row) * 32
	}
	return ^s.bc
}

// fusions finds the groups of k.ops, and the rows of the fuseAdd64 ones
// (by the index of their first instruction).
func (k *Kernel) fusions() ([]uint8, []addRows) {
	f := make([]uint8, len(k.ops))
	adds := make([]addRows, len(k.ops))
	pt := uint16(k.Prog.rowP(7))
	unguarded := func(o *op) bool { return o.guard == pt && !o.gnot }
	// sources the lane loops read as rows without scratch space
	plain := func(ss ...*opnd) bool {
		for _, s := range ss {
			switch {
			case s.kind == oReg && s.sel != 1 && s.sel <= 2 && !s.neg && !s.not:
			case (s.kind == oImm || s.kind == oConst) && s.bc >= 0 && s.sel != 1 && s.sel <= 2 && !s.neg && !s.not:
			default:
				return false
			}
		}
		return true
	}
	xmad := func(o *op, flags uint32) bool {
		return o.kind == kXmad && o.flags == flags && o.d.kind == oReg && plain(&o.s[0], &o.s[1], &o.s[2])
	}
	// a 64-bit add's halves: IADD.CC or ISCADD.CC, then IADD.X (unguarded)
	addLow := func(a *op) bool {
		return (a.kind == kIAdd || a.kind == kIscadd) && a.flags == fCC && a.sub == 0 && a.d.kind == oReg &&
			plain(&a.s[0], &a.s[1]) && a.s[0].sel == 0 && a.s[1].sel == 0
	}
	addHigh := func(b *op) bool {
		return b.kind == kIAdd && b.flags == fX && b.sub == 0 && b.d.kind == oReg &&
			plain(&b.s[0], &b.s[1]) && b.s[0].sel == 0 && b.s[1].sel == 0 && unguarded(b)
	}
	for i := 0; i+1 < len(k.ops); i++ {
		a, b := &k.ops[i], &k.ops[i+1]
		switch {
		case i+2 < len(k.ops) && xmad(a, fMRG) && xmad(b, 0) && xmad(&k.ops[i+2], fPSL|fCBCC) &&
			unguarded(b) && unguarded(&k.ops[i+2]):
			f[i] = fuseMulAdd
			if mulIdiom(a, b, &k.ops[i+2]) {
				f[i] = fuseMul32
			}
		case i+2 < len(k.ops) && xmad(a, 0) && xmad(b, fMRG) && xmad(&k.ops[i+2], fPSL|fCBCC) &&
			unguarded(b) && unguarded(&k.ops[i+2]):
			f[i] = fuseMulAdd2
			if mulIdiom(b, a, &k.ops[i+2]) {
				f[i] = fuseMul32b
			}
		case addLow(a) && addHigh(b):
			f[i] = fuseAdd64
			adds[i] = pairRows(a, b, 0)
		case addLow(a):
			if gap, ok := k.splitAdd64(i, addHigh); ok {
				adds[i] = pairRows(a, &k.ops[i+1+gap], gap)
			}
		}
	}
	return f, adds
}

// pairRows are the rows of the 64-bit add a (low half), b (high half),
// gap instructions apart.
func pairRows(a, b *op, gap int) addRows {
	r := addRows{rowOffset(&a.s[0]), rowOffset(&a.s[1]), int32(a.d.row) * 32,
		rowOffset(&b.s[0]), rowOffset(&b.s[1]), int32(b.d.row) * 32, 0, a.kind == kIAdd && b.ccLive == 0, uint8(gap)}
	r.end = max(r.a1, r.b1, r.d1, r.a2, r.b2, r.d2) + 32
	return r
}

// mulIdiom reports whether XMAD.MRG t, a, b.H1, RZ (m); XMAD d2, a, b, c
// (p); XMAD.PSL.CBCC d3, a.H1, t.H1, d2 (q) compute d3 = a*b + c: with t =
// lo16(a.lo*b.hi) | b<<16, the last adds a.hi*b.lo<<16 and a.lo*b.hi<<16 to
// a.lo*b.lo + c. None may overwrite a source a later one reads.
func mulIdiom(m, p, q *op) bool {
	same := func(x, y *opnd) bool { // the same value (halves aside)
		return x.kind == y.kind && (x.kind == oReg && x.row == y.row || x.kind != oReg && x.bc == y.bc)
	}
	reads := func(x *opnd, row uint16) bool { return x.kind == oReg && x.row == row }
	a, b, c := &p.s[0], &p.s[1], &p.s[2]
	t, d2 := m.d.row, p.d.row
	return a.sel == 0 && b.sel == 0 && same(&m.s[0], a) && m.s[0].sel == 0 && same(&m.s[1], b) && m.s[1].sel == 2 &&
		m.s[2].kind == oReg && m.s[2].reg == 255 && // RZ
		same(&q.s[0], a) && q.s[0].sel == 2 && reads(&q.s[1], t) && q.s[1].sel == 2 && reads(&q.s[2], d2) &&
		!reads(a, t) && !reads(b, t) && !reads(c, t) && !reads(a, d2) && t != d2
}

// fusable reports whether group f runs as one for the lanes in mask: they
// must be every active lane, so that the group's later instructions
// (unguarded) run for the same lanes; the multiply-adds need all 32.
func fusable(f uint8, mask, active uint32) bool {
	return mask == active && (mask == ^uint32(0) || f == fuseAdd64)
}

// runFused runs the group starting at o for the lanes in mask, every
// active lane (all 32 but for fuseAdd64, see fusable), the first
// instruction already counted, and moves the warp past it. allFlags
// computes every condition-code flag (ccflow.go).
func (k *Kernel) runFused(w *emu.Warp, o *op, kind uint8, pc, mask uint32, allFlags bool) {
	k.fused(w.Regs, o, kind, pc, mask, allFlags)
	n := fuseLen[kind]
	w.PC = pc + uint32(n)
	w.Steps += n - 1
	w.ThreadSteps += (n - 1) * int64(bits.OnesCount32(mask))
}

// fused runs the group starting at o (runFused) on the registers only.
func (k *Kernel) fused(regs []uint32, o *op, kind uint8, pc, mask uint32, allFlags bool) {
	row := func(s *opnd) *lanes { return k.row(regs, s, ^uint32(0), nil) }
	dst := func(d *opnd) *lanes { return (*lanes)(regs[int(d.row)*32:]) }
	half := func(s *opnd) uint32 { // the shift that selects an XMAD operand's half
		if s.sel == 2 {
			return 16
		}
		return 0
	}
	switch kind {
	case fuseMulAdd, fuseMulAdd2:
		o1, o2, o3 := o, &k.ops[pc+1], &k.ops[pc+2]
		if kind == fuseMulAdd2 { // run it as fuseMulAdd: o1 the MRG, o2 the plain one
			o1, o2 = o2, o1
		}
		a1, b1, c1, d1 := row(&o1.s[0]), row(&o1.s[1]), row(&o1.s[2]), dst(&o1.d)
		a2, b2, c2, d2 := row(&o2.s[0]), row(&o2.s[1]), row(&o2.s[2]), dst(&o2.d)
		a3, b3, c3, d3 := row(&o3.s[0]), row(&o3.s[1]), row(&o3.s[2]), dst(&o3.d)
		sa1, sb1 := half(&o1.s[0]), half(&o1.s[1])
		sa2, sb2 := half(&o2.s[0]), half(&o2.s[1])
		sa3, sb3 := half(&o3.s[0]), half(&o3.s[1])
		if kind == fuseMulAdd {
			for l := range 32 {
				d1[l] = ((a1[l]>>sa1&0xffff)*(b1[l]>>sb1&0xffff)+c1[l])&0xffff | b1[l]<<16
				d2[l] = (a2[l]>>sa2&0xffff)*(b2[l]>>sb2&0xffff) + c2[l]
				d3[l] = (a3[l]>>sa3&0xffff)*(b3[l]>>sb3&0xffff)<<16 + c3[l] + b3[l]<<16
			}
			break
		}
		for l := range 32 { // the plain XMAD first
			d2[l] = (a2[l]>>sa2&0xffff)*(b2[l]>>sb2&0xffff) + c2[l]
			d1[l] = ((a1[l]>>sa1&0xffff)*(b1[l]>>sb1&0xffff)+c1[l])&0xffff | b1[l]<<16
			d3[l] = (a3[l]>>sa3&0xffff)*(b3[l]>>sb3&0xffff)<<16 + c3[l] + b3[l]<<16
		}
	case fuseMul32, fuseMul32b:
		m, p, q := o, &k.ops[pc+1], &k.ops[pc+2]
		if kind == fuseMul32b {
			m, p = p, m
		}
		a, b, c := row(&p.s[0]), row(&p.s[1]), row(&p.s[2])
		t, d2, d3 := dst(&m.d), dst(&p.d), dst(&q.d)
		for l := range 32 {
			x, y, z := a[l], b[l], c[l]
			t[l] = (x&0xffff)*(y>>16)&0xffff | y<<16
			d2[l] = (x&0xffff)*(y&0xffff) + z
			d3[l] = x*y + z
		}
	case fuseAdd64:
		k.add64(regs, o, &k.ops[pc+1], &k.adds[pc], mask, allFlags)
	}
}

// add64 runs the fuseAdd64 group o, o2 for the lanes in mask (see
// runFused).
func (k *Kernel) add64(regs []uint32, o, o2 *op, r *addRows, mask uint32, allFlags bool) {
	if int(r.end) > len(regs) {
		panic("add64: register rows past the registers") // lowering's bug, not the kernel's
	}
	a1, b1, a2, b2 := k.rowAt(regs, r.a1), k.rowAt(regs, r.b1), k.rowAt(regs, r.a2), k.rowAt(regs, r.b2)
	d1, d2 := regRow(regs, r.d1), regRow(regs, r.d2)
	if r.carryOnly && !allFlags && contiguous(mask) {
		// IADD.CC in every lane or a range of lanes, the carry in the loop
		addRange(a1, b1, d1, a2, b2, d2, bits.TrailingZeros32(mask), bits.OnesCount32(mask))
		return
	}
	var sh uint32
	if o.kind == kIscadd {
		sh = uint32(o.s[2].imm & 31)
	}
	var flags *[4]uint32
	if o2.ccLive != 0 || allFlags {
		ccRow := k.Prog.rowCC() * 32
		flags = (*[4]uint32)(regs[ccRow : ccRow+4])
	}
	addPair(a1, b1, d1, a2, b2, d2, sh, mask, flags)
}

// rowAt is an addRows entry's row (a register row below r.end, checked).
func (k *Kernel) rowAt(regs []uint32, x int32) *lanes {
	if x >= 0 {
		return regRow(regs, x)
	}
	return &k.bcast[^x]
}

// regRow is the row at offset x of regs, which the caller checked holds
// it (x >= 0, x+32 <= len(regs)): no slice arithmetic.
func regRow(regs []uint32, x int32) *lanes {
	return (*lanes)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(regs)), uintptr(x)*4))
}

// addRange is IADD.CC d1 = a1 + b1, IADD.X d2 = a2 + b2 + carry in the
// n lanes from first (slices of one length: no bounds checks in the loop).
func addRange(a1, b1, d1, a2, b2, d2 *lanes, first, n int) {
	if n == 32 {
		add64Rows(a1, b1, d1, a2, b2, d2)
		return
	}
	x1 := d1[first : first+n]
	y1, z1 := a1[first:first+n], b1[first:first+n]
	y1, z1 = y1[:len(x1)], z1[:len(x1)]
	x2, y2, z2 := d2[first:first+n], a2[first:first+n], b2[first:first+n]
	x2, y2, z2 = x2[:len(x1)], y2[:len(x1)], z2[:len(x1)]
	for l := range x1 {
		s := uint64(y1[l]) + uint64(z1[l])
		x1[l] = uint32(s)
		x2[l] = y2[l] + z2[l] + uint32(s>>32)
	}
}

// addPair runs IADD.CC (ISCADD.CC when sh > 0) d1 = a1<<sh + b1 and IADD.X
// d2 = a2 + b2 + carry in the lanes in mask, lane by lane (so either may
// read what the first wrote). The condition code goes to cc, when a later
// instruction may read it (ccflow.go); else the carry stays in the loop.
// A small function of its own, so that the loops keep their values in
// registers.
func addPair(a1, b1, d1, a2, b2, d2 *lanes, sh, mask uint32, cc *[4]uint32) {
	sh &= 31 // no test for shifts of 32 or more in the loops
	if cc == nil {
		// the carry is the 64-bit sum's high word; the rows' nil checks
		// once, before the loops
		_, _, _, _, _, _ = a1[31], b1[31], d1[31], a2[31], b2[31], d2[31]
		switch {
		case contiguous(mask) && sh == 0: // IADD.CC in every lane or a range of lanes
			addRange(a1, b1, d1, a2, b2, d2, bits.TrailingZeros32(mask), bits.OnesCount32(mask))
		case mask == ^uint32(0):
			for l := range 32 {
				s := uint64(a1[l]<<sh) + uint64(b1[l])
				d1[l] = uint32(s)
				d2[l] = a2[l] + b2[l] + uint32(s>>32)
			}
		case contiguous(mask): // a range of lanes (later lanes finished)
			for l := bits.TrailingZeros32(mask); l < 32 && mask>>l&1 != 0; l++ {
				s := uint64(a1[l]<<sh) + uint64(b1[l])
				d1[l] = uint32(s)
				d2[l] = a2[l] + b2[l] + uint32(s>>32)
			}
		default: // inactive lanes keep their values: no branches
			for l := range 32 {
				on := -(mask >> l & 1)
				s := uint64(a1[l]<<sh) + uint64(b1[l])
				d1[l] = d1[l]&^on | uint32(s)&on
				d2[l] = d2[l]&^on | (a2[l]+b2[l]+uint32(s>>32))&on
			}
		}
		return
	}
	var carry, ov, z, sg uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		x, y := a1[l]<<sh, b1[l]
		r := x + y
		c := b2u32(r < x)
		d1[l] = r
		d2[l] = a2[l] + b2[l] + c
		carry |= c << l
		ov |= ((x ^ r) & (y ^ r) >> 31) << l
		z |= b2u32(r == 0) << l
		sg |= r >> 31 << l
	}
	for i, v := range [4]uint32{carry, z, sg, ov} {
		cc[i] = cc[i]&^mask | v&mask
	}
}
