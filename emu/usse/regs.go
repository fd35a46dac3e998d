package usse

import (
	"fmt"
	"math"

	"github.com/gpuisa/gpuisa/isa/usse"
)

// The register file of one program instance is one array of 32-bit words,
// bank after bank, so that a lowered operand is an index into it.
const (
	bankWords = 256 // pa, sa, o, r: more than a 7-bit number plus a vector reach
	basePA    = 0
	baseSA    = basePA + bankWords
	baseO     = baseSA + bankWords
	baseR     = baseO + bankWords
	baseI     = baseR + bankWords // i0..i3, four words each
	wordDepth = baseI + 16        // the fragment depth depthf writes (f32)
	fileWords = wordDepth + 1
)

// bankBase is the first word of a unified-store bank.
func bankBase(b usse.Bank) (int, bool) {
	switch b {
	case usse.BankPrimary:
		return basePA, true
	case usse.BankSecondary:
		return baseSA, true
	case usse.BankOutput:
		return baseO, true
	case usse.BankTemp:
		return baseR, true
	case usse.BankInternal:
		return baseI, true
	}
	return 0, false
}

// regName names the register at word w of the file ("pa12", "i1.z").
func regName(w int) string {
	switch {
	case w < baseSA:
		return fmt.Sprintf("pa%d", w-basePA)
	case w < baseO:
		return fmt.Sprintf("sa%d", w-baseSA)
	case w < baseR:
		return fmt.Sprintf("o%d", w-baseO)
	case w < baseI:
		return fmt.Sprintf("r%d", w-baseR)
	case w < wordDepth:
		return fmt.Sprintf("i%d.%c", (w-baseI)/4, "xyzw"[(w-baseI)%4])
	case w == wordDepth:
		return "depth"
	}
	return fmt.Sprintf("word%d", w)
}

// part says how a channel sits in its register word.
type part uint8

const (
	pWord  part = iota // the whole word (f32, u32, s32)
	pLo                // bits 15..0 (f16, u16, s16)
	pHi                // bits 31..16
	pByte0             // bits 7..0 (u8, s8), then bytes 1..3
	pByte1
	pByte2
	pByte3
	pTen0 // bits 9..0 (fx10), then bits 19..10 and 29..20
	pTen1
	pTen2
	pConst // not a register: val
)

// chanSrc is where one source channel comes from.
type chanSrc struct {
	reg   uint16
	part  part
	fmt   fmtID  // how the channel's bits read as a value
	index uint8  // 1 or 2: add twice that index register (bank-checked)
	bank  uint16 // with index: first word of the addressed bank
	val   uint32 // pConst: the value (f32 bits for float data)
}

// chanDst is where one result channel goes.
type chanDst struct {
	reg   uint16
	part  part
	fmt   fmtID
	index uint8
	bank  uint16
}

// fieldOf extracts a part of a word.
func fieldOf(w uint32, p part) uint32 {
	switch p {
	case pLo:
		return w & 0xffff
	case pHi:
		return w >> 16
	case pByte0, pByte1, pByte2, pByte3:
		return w >> (8 * (p - pByte0)) & 0xff
	case pTen0, pTen1, pTen2:
		return w >> (10 * (p - pTen0)) & 0x3ff
	}
	return w
}

// withField replaces a part of a word.
func withField(w uint32, p part, v uint32) uint32 {
	switch p {
	case pLo:
		return w&^0xffff | v&0xffff
	case pHi:
		return w&0xffff | v<<16
	case pByte0, pByte1, pByte2, pByte3:
		sh := 8 * uint(p-pByte0)
		return w&^(0xff<<sh) | (v&0xff)<<sh
	case pTen0, pTen1, pTen2:
		sh := 10 * uint(p-pTen0)
		return w&^(0x3ff<<sh) | (v&0x3ff)<<sh
	}
	return v
}

// half/float conversions: registers hold IEEE halves in 16-bit parts.

func halfToFloat(h uint32) float32 {
	return math.Float32frombits(usse.HalfToFloat32(uint16(h)))
}

// floatToHalf rounds to the nearest half (ties to even); overflow gives
// infinity, NaNs stay NaNs.
func floatToHalf(f float32) uint32 {
	b := math.Float32bits(f)
	sign := b >> 16 & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b>>23&0xff == 0xff: // inf, nan
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0: // subnormal half or zero
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		halfway := uint32(1) << (shift - 1)
		if rem > halfway || rem == halfway && h&1 != 0 {
			h++
		}
		return sign | h
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 != 0 {
		h++ // may carry into the exponent, up to infinity: right
	}
	return sign | h
}

func f32(w uint32) float32  { return math.Float32frombits(w) }
func bits(f float32) uint32 { return math.Float32bits(f) }
