package tesla

import (
	"math"

	"github.com/gpuisa/gpuisa/emu/internal/cc"
)

// condTable[c] has bit f set when condition c holds for flags f
// (Z=1, S=2, C=4, O=8). Codes 0..15 are the comparisons shared with Fermi
// (package emu/internal/cc: L is S, E is Z, U is Z and S, O corrects a
// signed overflow; the FlexGripPlus reference, seed 001). Codes
// 0x14..0x1b have no known meaning and are false.
var condTable = buildCondTable()

func buildCondTable() [32]uint16 {
	var t [32]uint16
	for f := range 16 {
		z, s, c, o := f&flagZ != 0, f&flagS != 0, f&flagC != 0, f&flagO != 0
		v := [32]bool{
			0x10: o,
			0x11: c,
			0x12: !z && c,
			0x13: s,
			0x1c: !s,
			0x1d: z || !c,
			0x1e: !c,
			0x1f: !o,
		}
		for cond, ok := range v {
			if ok || cc.Compare(cond, z, s, o) {
				t[cond] |= 1 << f
			}
		}
	}
	return t
}

// intFlags are the S and Z flags of a 16- or 32-bit result (C and O clear).
func intFlags(r uint32, b32 bool) uint32 {
	if !b32 {
		r &= 0xffff
		r |= r >> 15 << 31 // sign of the 16-bit value
	}
	var f uint32
	if r == 0 {
		f |= flagZ
	}
	if int32(r) < 0 {
		f |= flagS
	}
	return f
}

// floatFlags classify an f32 result: negative (S), zero (Z), NaN (both).
func floatFlags(r uint32) uint32 {
	x := math.Float32frombits(r)
	switch {
	case x != x:
		return flagZ | flagS
	case x == 0:
		return flagZ
	case x < 0:
		return flagS
	}
	return 0
}

// guardMask is the subset of the active lanes whose condition register pred
// satisfies cond.
func guardMask(regs []uint32, active uint32, pred, cond uint8) uint32 {
	if cond == condAlway {
		return active
	}
	t := uint32(condTable[cond])
	row := regs[(rowCond+int(pred))*32 : (rowCond+int(pred))*32+32]
	var m uint32
	for l := range 32 {
		if active&(1<<l) != 0 && t>>(row[l]&15)&1 != 0 {
			m |= 1 << l
		}
	}
	return m
}
