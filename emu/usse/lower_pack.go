package usse

import (
	"github.com/gpuisa/gpuisa/isa/usse"
)

// VPCK (op1 0x08): converts up to four channels between formats. The
// source is a vector of four channels: for f32, x and y are source 1 and
// the register after it, z and w source 2 and the register after it (the
// pair the notes of vita3k-shader-tests describe: "src2 = next register"),
// unless source 2 is an immediate: then all four are source 1's (Vita3K;
// libvita2d's texture_tint_f packs i0.xyzw with source 2 the immediate 0);
// for the other formats, consecutive channels of source 1's registers
// (vmad16's pack.f32.f16 o6.xy, pa0.zwzw reads pa1's halves). For
// sources other than f32, bit 0 of source 2's number is bit 1 of the
// first select (Vita3K), and for integer sources source 1's number is 7
// bits whose bit 0 is the select field's bit 1 (Vita3K). Float-to-float
// conversions take select c for destination channel c; the others take the
// selects in order for the written channels, and with u8 on either side and
// more than two channels written, only the first two are (the console).
func lowerVpck(l *lowerer) {
	df, sf := l.fmtOf("dfmt"), l.fmtOf("sfmt")
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	sel := [4]uint32{l.field("sel0"), l.field("sel1"), l.field("sel2"), l.field("sel3")}
	if sf != fF32 {
		sel[0] = sel[0]&1 | (l.field("s2num")&1)<<1
		if !sf.isFloat() && (s1.Bank == usse.BankTemp || s1.Bank == usse.BankOutput || s1.Bank == usse.BankPrimary || s1.Bank == usse.BankSecondary) {
			s1.Num = l.field("s1num")<<1 | l.field("sel0")>>1
		}
	}
	mask := l.field("mask")
	var chans []int
	for c := 0; c < 4; c++ {
		if mask>>c&1 != 0 {
			chans = append(chans, c)
		}
	}
	scale := l.field("scale")
	floats := sf.isFloat() && df.isFloat()
	u8 := sf == fU8 || df == fU8
	if u8 && len(chans) > 2 {
		// the console writes two channels of a u8 conversion: after
		// vtstmsk_gt_mask0_reg's pack.f16.u8 pa8.xyzw, pa9 still holds its
		// input (Vita3K writes z and w from the x and y selects)
		chans = chans[:2]
	}
	n := l.repeats()
	smult := 1 // Vita3K's repeat multipliers: sources 2 when they are floats, destination 1
	if sf.isFloat() {
		smult = 2
	}
	for it := 0; it < n; it++ {
		o := op{kind: kPack, fmt: df, sfmt: sf, aux: scale, n: uint8(len(chans)), nsrc: 1}
		doff := l.rptOff(rmMOE, slotDst, d, false, it, 1)
		for k, c := range chans {
			s := sel[k&3]
			if floats {
				s = sel[c]
			}
			o.dst[k] = l.dstChan(d, df, c, doff)
			src, ch, slot := s1, int(s), slotSrc1
			if sf == fF32 && s >= 2 && s2.Bank != usse.BankImm {
				src, ch, slot = s2, int(s)-2, slotSrc2
			}
			o.src[0][k] = l.rawSrc(src, sf, "xyzw"[ch&3], l.rptOff(rmMOE, slot, src, false, it, smult))
		}
		l.emit(o)
	}
}

// Bitwise operations (aux of kBitwise).
const (
	bwAnd = iota
	bwOr
	bwXor
	bwShl
	bwRol
	bwShr
	bwAsr
)

var bwByName = map[string]int{"and": bwAnd, "or": bwOr, "xor": bwXor, "xor.op2": bwXor, "shl": bwShl, "rol": bwRol, "shr": bwShr, "asr": bwAsr}

// VBW (op1 0x0A..0x0E): d = s1 OP s2 on 32-bit words; s2 may be the 16-bit
// immediate. Source 2 is rotated left by s2rot bits and then inverted
// (s2inv): IMG's SGX540 disassembler, on words this spec decodes alike,
// prints the rotated immediate (0xfc00 rotated by 18 is
// "~#0xF0000003", 0xff00 by 20 "~#0xF000000F"); a register source
// rotates too (Vita3K's translator since 2024 rotates both). op1 0x0B
// with op2 set is xor as with op2 clear (Vita3K's decode). rlp (op1
// 0x0E) has no description. Repeats: MOE mode, multiplier 1 (Vita3K).
//
// The partial flag makes it a 16-bit operation (Vita3K's translator since
// 2024: its operands are UINT16): source 1 is the low half of its
// register, source 2 the low half or the immediate, rotated within 16 bits
// (s2rot mod 16) and inverted within 16 bits, and the result's low 16 bits
// go to the low half of the destination, whose high half stays. Vita3K
// has no rol, and none at 16 bits is described: partial rol faults.
func lowerVbw(l *lowerer) {
	name := l.enum("op")
	b, ok := bwByName[name]
	if !ok {
		l.fail("bitwise %q: %w (no description of it)", name, errUnsupported)
		return
	}
	partial := l.field("partial") != 0
	if partial && b == bwRol {
		l.fail("16-bit (partial) rol: %w (no description of it)", errUnsupported)
		return
	}
	half := func(c *chanSrc) {
		if c.part == pConst {
			c.val &= 0xffff
		} else if c.part == pWord {
			c.part = pLo
		}
	}
	d, s1 := l.opnd(0), l.opnd(1)
	var s2 usse.Operand
	if len(l.opnds) > 2 {
		s2 = l.opnds[2]
	} else {
		s2 = usse.Operand{Bank: usse.BankImm, Num: l.field("s2num") | l.field("s2sel")<<7 | l.field("s2exth")<<14}
	}
	n := l.repeats()
	if n > 1 && l.field("rptsel") != 0 {
		l.fail("bitwise repeat select: %w (no description of it)", errUnsupported)
		return
	}
	for it := 0; it < n; it++ {
		o := op{kind: kBitwise, aux: uint32(b), aux2: l.field("s2inv"), fmt: fU32, n: 1, nsrc: 2}
		o.words[1] = l.field("s2rot") & 31
		o.dst[0] = l.dstChan(d, fU32, 0, l.rptOff(rmMOE, slotDst, d, false, it, 1))
		o.src[0][0] = l.rawSrc(s1, fU32, 'x', l.rptOff(rmMOE, slotSrc1, s1, false, it, 1))
		o.src[1][0] = l.rawSrc(s2, fU32, 'x', l.rptOff(rmMOE, slotSrc2, s2, false, it, 1))
		if partial {
			o.words[1] &= 15
			o.words[2] = 1
			half(&o.src[0][0])
			half(&o.src[1][0])
			if o.dst[0].part == pWord {
				o.dst[0].part = pLo
			}
		}
		l.emit(o)
	}
}

// Control flow. Branch targets are instruction indices; the program's
// link step maps them to op indices.
func lowerBranch(l *lowerer) {
	off := l.field("off")
	target := int64(off)
	if l.field("br") != 0 {
		target = int64(l.idx) + int64(int32(off<<12)>>12) // signed 20-bit, in instructions
	}
	o := op{kind: kBranch, aux: uint32(target), aux2: l.field("savelink")}
	o.words[1] = l.field("anyinst") | l.field("allinst")<<1
	if target < 0 || target > 1<<20 {
		l.fail("branch target %d", target)
		return
	}
	l.emit(o)
	if l.field("end") != 0 {
		l.fail("branch with end: %w", errUnsupported)
	}
}

func lowerLapc(l *lowerer) { l.emit(op{kind: kLoadPC}) }

func lowerSetl(l *lowerer) {
	o := op{kind: kSetLink, nsrc: 1}
	o.src[0][0] = l.rawSrc(usse.Operand{Bank: usse.BankTemp, Num: l.field("snum")}, fU32, 'x', 0)
	l.emit(o)
}

func lowerSavl(l *lowerer) {
	o := op{kind: kSaveLink, n: 1}
	o.dst[0] = l.dstChan(usse.Operand{Bank: usse.BankTemp, Num: l.field("dnum")}, fU32, 0, 0)
	l.emit(o)
}

// LIMM: d = the 32-bit immediate.
func lowerLimm(l *lowerer) {
	o := op{kind: kLimm, n: 1, fmt: fU32}
	o.dst[0] = l.dstChan(l.opnd(0), fU32, 0, 0)
	o.words[0] = l.field("imm")
	l.emit(o)
}

// kill ends the instance and discards it (its outputs are not produced).
func lowerKill(l *lowerer) { l.emit(op{kind: kKill}) }

// DEPTHF: the fragment's depth becomes source 0, an f32 (Vita3K's
// translator stores it to gl_FragDepth; it reads sources 1 and 2 and the
// two-sided and feedback fields for nothing, and so does this model). The
// depth is a word of the instance (the DEPTH output of launch files, 0
// until depthf writes it). Source 0 is numbered as this spec prints it
// (Vita3K doubles it).
func lowerDepthf(l *lowerer) {
	s0 := l.opnd(0)
	o := op{kind: kMov, fmt: fF32, n: 1, nsrc: 1}
	o.dst[0] = chanDst{reg: wordDepth, fmt: fF32}
	o.src[0][0] = l.floatSrc(s0, fF32, 'x', 0)
	l.emit(o)
}
