package tesla

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Randomized checks of the integer families against seed 002's pseudo-code,
// transcribed here a second time (infinite precision in int64/uint64) so a
// slip in either copy shows. Each run gives 32 lanes 32 random operand pairs.

type refResult struct{ res, flags uint32 }

func s16or32(x uint64, b32 bool) bool { // S(x)
	if b32 {
		return x>>31&1 != 0
	}
	return x>>15&1 != 0
}

func refFlags(res uint64, c, o bool, b32 bool) uint32 {
	var f uint32
	if res == 0 {
		f |= cZ
	}
	if s16or32(res, b32) {
		f |= cS
	}
	if c {
		f |= cC
	}
	if o {
		f |= cO
	}
	return f
}

// refAdd is 3.1 (add, sub, subr; sat).
func refAdd(op int, src1, src2 uint64, b32, sat bool) refResult {
	mask := uint64(0xffff)
	if b32 {
		mask = 0xffffffff
	}
	var s1, s2, c uint64
	switch op {
	case 0:
		s1, s2 = src1, src2
	case 1:
		s1, s2, c = src1, ^src2&mask, 1
	case 2:
		s1, s2, c = ^src1&mask, src2, 1
	}
	res := s1 + s2 + c
	width := uint(16)
	if b32 {
		width = 32
	}
	carry := res>>width != 0
	res &= mask
	ov := s16or32(s1, b32) == s16or32(s2, b32) && s16or32(s1, b32) != s16or32(res, b32)
	if sat && ov {
		if s16or32(res, b32) {
			res = mask >> 1
		} else {
			res = mask>>1 + 1
		}
	}
	return refResult{uint32(res), refFlags(res, carry, ov, b32)}
}

// refShift is 4.2.
func refShift(shl, signed bool, src1, src2 uint64, b32 bool) refResult {
	size := uint64(16)
	mask := uint64(0xffff)
	if b32 {
		size, mask = 32, 0xffffffff
	}
	var res uint64
	carry := false
	if shl {
		if src2 < 64 {
			res = src1 << src2
		}
		if src2 < size {
			carry = (res>>size)&1 != 0
		}
		res &= mask
	} else {
		if src2 < 64 {
			res = src1 >> src2
		}
		if signed && s16or32(src1, b32) {
			if src2 < size {
				res |= (1 << size) - (1 << (size - src2))
			} else {
				res |= (1 << size) - 1
			}
		}
		if src2 < size && src2 > 0 {
			carry = (src1>>(src2-1))&1 != 0
		}
	}
	ov := src2 == 1 && s16or32(src1, b32) != s16or32(res, b32)
	return refResult{uint32(res), refFlags(res, carry, ov, b32)}
}

func TestRandomIntegerOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	interesting := []uint32{0, 1, 2, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 31, 32, 33}
	val := func() uint32 {
		if rng.IntN(3) == 0 {
			return interesting[rng.IntN(len(interesting))]
		}
		return rng.Uint32() >> (rng.IntN(4) * 8)
	}
	type opCase struct {
		text string
		ref  func(a, b uint32) refResult
	}
	cases := []opCase{
		{"IADD.C0 R1, R2, R3;", func(a, b uint32) refResult { return refAdd(0, uint64(a), uint64(b), true, false) }},
		{"IADD.C0 R1, R2, -R3;", func(a, b uint32) refResult { return refAdd(1, uint64(a), uint64(b), true, false) }},
		{"IADD.C0 R1, -R2, R3;", func(a, b uint32) refResult { return refAdd(2, uint64(a), uint64(b), true, false) }},
		{"IADD.SAT.C0 R1, R2, R3;", func(a, b uint32) refResult { return refAdd(0, uint64(a), uint64(b), true, true) }},
		{"IADD.SAT.C0 R1, R2, -R3;", func(a, b uint32) refResult { return refAdd(1, uint64(a), uint64(b), true, true) }},
		{"IADD.U16.C0 R1L, R2L, R3L;", func(a, b uint32) refResult {
			return refAdd(0, uint64(a&0xffff), uint64(b&0xffff), false, false)
		}},
		{"IADD.U16.SAT.C0 R1L, R2L, -R3L;", func(a, b uint32) refResult {
			return refAdd(1, uint64(a&0xffff), uint64(b&0xffff), false, true)
		}},
		{"SHL.C0 R1, R2, R3;", func(a, b uint32) refResult { return refShift(true, false, uint64(a), uint64(b), true) }},
		{"SHR.C0 R1, R2, R3;", func(a, b uint32) refResult { return refShift(false, false, uint64(a), uint64(b), true) }},
		{"SHR.S32.C0 R1, R2, R3;", func(a, b uint32) refResult { return refShift(false, true, uint64(a), uint64(b), true) }},
		{"SHL.U16.C0 R1L, R2L, R3L;", func(a, b uint32) refResult {
			return refShift(true, false, uint64(a&0xffff), uint64(b&0xffff), false)
		}},
		{"SHR.S16.C0 R1L, R2L, R3L;", func(a, b uint32) refResult {
			return refShift(false, true, uint64(a&0xffff), uint64(b&0xffff), false)
		}},
	}
	for _, c := range cases {
		for round := range 20 {
			a, b := make([]uint32, 32), make([]uint32, 32)
			for l := range a {
				a[l], b[l] = val(), val()
				if strings.HasPrefix(c.text, "SH") {
					b[l] %= 40 // counts around the width
				}
			}
			r := runKernel(t, kernelRun{src: c.text + "\nRET;\n", init: func(tid int, regs []uint32) {
				regs[1], regs[2], regs[3] = 0, a[tid], b[tid]
			}})
			if r.err != nil {
				t.Fatal(r.err)
			}
			for l := range 32 {
				want := c.ref(a[l], b[l])
				got := r.reg(t, l, 1)
				if strings.Contains(c.text, "R1L") {
					got &= 0xffff
				}
				flags := r.reg(t, l, rowCond)
				if got != want.res || flags != want.flags {
					t.Fatalf("%s round %d: %#x, %#x -> %#x flags %s, want %#x flags %s", c.text, round, a[l], b[l],
						got, flagText(flags), want.res, flagText(want.flags))
				}
			}
		}
	}
}

func flagText(f uint32) string {
	return fmt.Sprintf("%c%c%c%c", "-Z"[f&1], "-S"[f>>1&1], "-C"[f>>2&1], "-O"[f>>3&1])
}
