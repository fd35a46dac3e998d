package tesla

import "github.com/gpuisa/gpuisa/isa"

// Operand kinds: how each kind named in spec.txt reads its fields, prints and
// validates. The assembler side is in parse_operands.go.
//
// Spelling follows cuobjdump of CUDA 4.1 and later ("new style"): c[0x1][0x0],
// global14[R0], o[0x7f], g[A1+0xc] as an R2G destination, but g [0x6] with a
// blank for shared sources. CUDA 3.x/4.0 put blanks in all of them; the
// assembler reads both.

// condNames are the 32 condition-code tests of the guard field, as cuobjdump
// spells them after the condition register (C0.EQU). 0x14..0x1b have no known
// meaning; they print as their number.
var condNames = [32]string{
	"FALSE", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM",
	"NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "TRUE",
	"OVERFLOW", "CARRY", "ABOVE", "SIGN", "0x14", "0x15", "0x16", "0x17",
	"0x18", "0x19", "0x1a", "0x1b", "NOT_SIGN", "NOT_ABOVE", "NOT_CARRY", "NOT_OVERFLOW",
}

// condWords are condNames packed for putWord (0 for the longer names).
//
// buildCondWords computes condWords (inittables.go holds its value).
func buildCondWords() (t [32]uint64) {
	for i, n := range condNames {
		t[i] = isa.TextWord(n)
	}
	return
}

const condAlways = 0xf

// sharedTypes are the suffixes of g[] and c[] operands by access size.
var sharedTypes = [4]string{".U8", ".U16", ".S16", ""}

// memRef is a decoded shared- or constant-memory reference.
type memRef struct {
	areg uint64 // address register, 0 = none
	inc  bool   // post-increment
	idx  uint64 // index in units of the access size
	typ  uint64 // 0 u8, 1 u16, 2 s16, 3 32-bit
}

func longAreg(v uint64) uint64 { return f_alo.Get(v) | f_ahi.Get(v)<<2 }

// shared1 decodes source 1 as a shared-memory operand.
func shared1(c Class, v uint64) memRef {
	if c == ClassLong {
		x := f_s1.Get(v)
		return memRef{areg: longAreg(v), inc: f_ainc.Get(v) != 0, idx: x & 0x1f, typ: x >> 5}
	}
	x := f_ss1.Get(v)
	return memRef{areg: f_salo.Get(v), inc: f_sainc.Get(v) != 0, idx: x & 0xf, typ: x >> 4}
}

func s1IsShared(c Class, v uint64) bool {
	if c == ClassLong {
		return f_sh.Get(v) != 0
	}
	return f_ssh.Get(v) != 0
}

func appendAddr(dst []byte, m memRef) []byte {
	dst = append(dst, '[')
	if m.areg != 0 {
		dst = append(dst, 'A')
		dst = appendDec(dst, m.areg)
		if m.inc {
			dst = append(dst, "+++"...)
		} else {
			dst = append(dst, '+')
		}
	}
	dst = hexNum(dst, m.idx)
	return append(dst, ']')
}

func appendShared(dst []byte, m memRef) []byte {
	dst = append(dst, "g "...)
	dst = appendAddr(dst, m)
	return append(dst, sharedTypes[m.typ]...)
}

func appendConst(dst []byte, bank uint64, m memRef) []byte {
	dst = append(dst, "c["...)
	dst = hexNum(dst, bank)
	dst = append(dst, ']')
	dst = appendAddr(dst, m)
	return append(dst, sharedTypes[m.typ]...)
}

// constAreg is the address register a c[] source operand uses: the long form's
// address register when source 1 is not a shared operand.
func constAreg(v uint64) memRef {
	return memRef{areg: longAreg(v), inc: f_ainc.Get(v) != 0, typ: 3}
}

func appendGuard(dst []byte, v uint64, lead, trail string) []byte {
	cond, pr := f_cond.Get(v), f_pr.Get(v)
	if cond == condAlways && pr == 0 {
		return dst
	}
	dst = append(dst, lead...)
	dst = putWord(dst, 'C'|('0'+pr)<<8|'.'<<16|3<<56)
	dst = putText(dst, condNames[cond], condWords[cond])
	return append(dst, trail...)
}

func appendOperand(dst []byte, c Class, p *piece, half bool, v uint64) []byte {
	switch k := p.opnd; k {
	case opnd_dst:
		if c == ClassLong {
			if f_odst.Get(v) != 0 {
				dst = append(dst, "o["...)
				dst = hexNum(dst, f_dst.Get(v))
				return append(dst, ']')
			}
			return appendReg(dst, f_dst.Get(v), half)
		}
		return appendReg(dst, f_sdst.Get(v), half)
	case opnd_s1:
		if s1IsShared(c, v) {
			return appendShared(dst, shared1(c, v))
		}
		if c == ClassLong {
			return appendReg(dst, f_s1.Get(v), half)
		}
		return appendReg(dst, f_ss1.Get(v), half)
	case opnd_s2:
		switch c {
		case ClassLong:
			if f_c2.Get(v) != 0 {
				m := constAreg(v)
				m.idx = f_s2.Get(v)
				return appendConst(dst, f_bank.Get(v), m)
			}
			return appendReg(dst, f_s2.Get(v), half)
		case ClassImm:
			return hexNum(dst, immValue(v))
		}
		if f_sc2.Get(v) != 0 {
			return appendConst(dst, 0, memRef{idx: f_ss2.Get(v), typ: 3})
		}
		return appendReg(dst, f_ss2.Get(v), half)
	case opnd_s3:
		if f_c3.Get(v) != 0 {
			m := constAreg(v)
			m.idx = f_s3.Get(v)
			return appendConst(dst, f_bank.Get(v), m)
		}
		return appendReg(dst, f_s3.Get(v), half)
	case opnd_s3r:
		return appendReg(dst, f_s3.Get(v), half)
	case opnd_omem:
		dst = append(dst, 'o')
		return appendAddr(dst, memRef{areg: longAreg(v), idx: f_saddr.Get(v)})
	case opnd_bxmem:
		return appendConst(dst, f_bank.Get(v), memRef{areg: longAreg(v), idx: f_bxoff.Get(v), typ: 3})
	case opnd_amem, opnd_vmem:
		m := memRef{areg: longAreg(v), idx: f_s1.Get(v)}
		dst = append(dst, 'a')
		if k == opnd_vmem {
			m.idx = f_vidx.Get(v)
			dst[len(dst)-1] = 'v'
		}
		return appendAddr(dst, m)
	case opnd_texmask:
		return hexNum(dst, f_tmlo.Get(v)|f_tmhi.Get(v)<<2)
	case opnd_s1r:
		return appendReg(dst, f_s1.Get(v), half)
	case opnd_s2r:
		return appendReg(dst, f_s2.Get(v), half)
	case opnd_rdst:
		return appendReg(dst, f_dst.Get(v), half)
	case opnd_gred, opnd_gatom:
		seg := f_gseg.Get(v)
		if k == opnd_gatom {
			seg = f_gseg2.Get(v)
		}
		dst = append(dst, "global"...)
		dst = appendDec(dst, seg)
		dst = append(dst, "[R"...)
		dst = appendDec(dst, f_s1.Get(v))
		return append(dst, ']')
	case opnd_imm:
		return hexNum(dst, immValue(v))
	case opnd_imms:
		x := immValue(v)
		if x >= 1<<31 {
			dst = append(dst, '-')
			x = 1<<32 - x
		}
		return hexNum(dst, x)
	case opnd_shc:
		return hexNum(dst, f_s2.Get(v))
	case opnd_guard:
		return appendGuard(dst, v, " (", ")")
	case opnd_cguard:
		// An add with carry in (addop 3) always shows its guard, and cuobjdump
		// names register pr+1 there: 0x0c00e78060050605 prints
		// "IMAD.U16 R1 (C3), -R1H, R2H, R3" with pr = 2.
		dst = append(dst, " (C"...)
		dst = append(dst, byte('0'+(f_pr.Get(v)+1)&3))
		return append(dst, ')')
	case opnd_fcond:
		return appendGuard(dst, v, "", ", ")
	case opnd_fcond0:
		return appendGuard(dst, v, "", "")
	case opnd_tgt:
		return hexNum(dst, f_tgt.Get(v)|f_tgthi.Get(v)<<19)
	case opnd_gmem:
		dst = append(dst, "global"...)
		dst = appendDec(dst, f_s2.Get(v))
		dst = append(dst, "[R"...)
		dst = appendDec(dst, f_s1.Get(v))
		return append(dst, ']')
	case opnd_lmem:
		dst = append(dst, "local "...)
		return appendAddr(dst, memRef{areg: longAreg(v), inc: f_ainc.Get(v) != 0, idx: f_saddr.Get(v)})
	case opnd_hex:
		return hexNum(dst, p.field.Get(v))
	case opnd_smemw:
		dst = append(dst, 'g')
		return appendAddr(dst, memRef{areg: longAreg(v), inc: f_ainc.Get(v) != 0, idx: f_saddr.Get(v)})
	case opnd_cmem:
		return appendConst(dst, f_bank.Get(v), memRef{areg: longAreg(v), inc: f_ainc.Get(v) != 0,
			idx: f_saddr.Get(v), typ: f_ctype.Get(v)})
	case opnd_adst:
		dst = append(dst, 'A')
		return appendDec(dst, f_dst.Get(v))
	case opnd_asrc:
		dst = append(dst, 'A')
		return appendDec(dst, longAreg(v))
	case opnd_adaimm:
		return hexNum(dst, f_adaimm.Get(v))
	case opnd_r2ash:
		if s := f_s2.Get(v); s != 0 {
			dst = append(dst, ", "...)
			dst = hexNum(dst, s)
		}
		return dst
	case opnd_sreg:
		dst = append(dst, "SR"...)
		return appendDec(dst, f_sreg.Get(v))
	case opnd_creg:
		dst = append(dst, 'C')
		return appendDec(dst, f_pr.Get(v))
	case opnd_cdst:
		dst = append(dst, 'C')
		return appendDec(dst, f_ccr.Get(v))
	case opnd_bar:
		dst = append(dst, 'b')
		return appendDec(dst, f_barid.Get(v))
	case opnd_barcnt:
		return hexNum(dst, f_barcnt.Get(v))
	}
	return append(dst, '?')
}

// immValue is the 32-bit immediate of the immediate class.
func immValue(v uint64) uint64 { return f_immlo.Get(v) | f_immhi.Get(v)<<6 }

// longBits are the masks of the long class's memory-operand fields.
var longBits = struct{ sh, cs, areg, inc, bank uint64 }{
	sh: f_sh.Mask(), cs: f_c2.Mask() | f_c3.Mask(), areg: f_alo.Mask() | f_ahi.Mask(),
	inc: f_ainc.Mask(), bank: f_bank.Mask(),
}

// shortBits are the masks of the short and immediate classes' shared
// source fields.
var shortBits = struct{ sh, areg, inc uint64 }{sh: f_ssh.Mask(), areg: f_salo.Mask(), inc: f_sainc.Mask()}
