package fermi

import (
	"math"
	"strconv"

	"github.com/gpuisa/gpuisa/isa"
)

// Dialect selects which generation of cuobjdump's spelling the printer copies.
type Dialect uint8

const (
	// New is cuobjdump of CUDA 5 and later: c[0x0][0x20], PT, SR_TID.X,
	// decimal float immediates, signed 20-bit integer immediates.
	New Dialect = iota
	// Old is cuobjdump of CUDA 3.x/4.0: c [0x0] [0x20], pt, SR_Tid_X, raw
	// 20-bit float fields, "NOP CC.T".
	Old
)

func (d Dialect) String() string {
	if d == Old {
		return "old"
	}
	return "new"
}

// Print returns the text of inst at address pc in the default (New) dialect.
func Print(inst Inst, pc uint64) string {
	var buf [96]byte
	return string(AppendText(buf[:0], inst, pc))
}

// AppendText appends the text of inst (without address or hex columns) in the
// New dialect.
func AppendText(dst []byte, inst Inst, pc uint64) []byte {
	return AppendTextDialect(dst, inst, pc, New)
}

// AppendTextDialect appends the text of inst in dialect d, ending with ';'.
func AppendTextDialect(dst []byte, inst Inst, pc uint64, d Dialect) []byte {
	if d != Old {
		d = New
	}
	dst, b := withRoom(dst, textRoom)
	return dst[:len(dst)+putText(b, 0, printForm(inst, d), inst.Raw, pc, d)]
}

func appendMod(dst []byte, m *mod, raw uint64) []byte {
	switch m.kind {
	case modLit:
		return append(dst, m.text...)
	case modFlag:
		if m.f.Get(raw) != 0 {
			dst = append(dst, m.text...)
		}
	case modFlagInv:
		if m.f.Get(raw) == 0 {
			dst = append(dst, m.text...)
		}
	case modEnum:
		dst = append(dst, tables[m.table][m.value(raw)]...)
	case modVType:
		sel1, sel2 := raw>>44&7, raw>>32&7
		s1, s2 := raw>>6&1 != 0, raw>>5&1 != 0
		if raw>>47&1 == 0 && sel2 == 7 { // immediate: the selector bits are immediate bits
			sel2 = 6
		}
		if s1 && s2 && sel1 == 6 && sel2 == 6 {
			return dst
		}
		dst = appendVType(dst, s1, sel1)
		dst = appendVType(dst, s2, sel2)
	}
	return dst
}

// appendVType spells one video operand type: signedness, size, then which
// byte or half when it is not the lowest.
func appendVType(dst []byte, signed bool, sel uint64) []byte {
	if signed {
		dst = append(dst, ".S"...)
	} else {
		dst = append(dst, ".U"...)
	}
	switch {
	case sel < 4:
		dst = append(dst, '8')
		if sel != 0 {
			dst = append(dst, ".B"...)
			dst = append(dst, byte('0'+sel))
		}
	case sel < 6:
		dst = append(dst, "16"...)
		if sel == 5 {
			dst = append(dst, ".H1"...)
		}
	default:
		dst = append(dst, "32"...)
	}
	return dst
}

func appendPred(dst []byte, p uint64, d Dialect) []byte {
	if p == 7 {
		if d == Old {
			return append(dst, "pt"...)
		}
		return append(dst, "PT"...)
	}
	return append(dst, 'P', byte('0'+p))
}

// appendReg spells R0..R62 and RZ (registers are most of the text).
func appendReg(dst []byte, r uint64) []byte {
	r &= 63
	switch {
	case r < 10:
		return append(dst, 'R', byte('0'+r))
	case r < 63:
		return append(dst, 'R', byte('0'+r/10), byte('0'+r%10))
	}
	return append(dst, 'R', 'Z')
}

func bit(raw uint64, b int8) bool { return b >= 0 && raw>>uint(b)&1 != 0 }

func appendOperand(dst []byte, o *operand, raw, pc uint64, d Dialect) []byte {
	if o.kind == opReg && o.neg < 0 && o.not < 0 && o.abs < 0 {
		// the most common operand, before the switch's indirect jump
		dst = appendReg(dst, o.f.Get(raw))
		if bit(raw, o.cc) {
			dst = append(dst, ".CC"...)
		}
		return dst
	}
	switch o.kind {
	case opPred:
		if bit(raw, o.not) {
			dst = append(dst, '!')
		}
		return appendPred(dst, o.value(raw), d)
	case opEnum:
		return append(dst, tables[o.table][o.f.Get(raw)]...)
	case opLit:
		return append(dst, o.text...)
	case opCC, opNopCC:
		dst = append(dst, "CC."...)
		return append(dst, tables[tblCc][o.f.Get(raw)]...)
	case opHex:
		return appendHexNum(dst, o.f.Get(raw))
	case opTarget:
		t := pc + 8 + uint64(isa.SignExtend(o.f.Get(raw), 24))
		return appendHexNum(dst, t&0xffffffff) // a 32-bit address space
	case opSReg:
		v := o.f.Get(raw)
		idx := 1
		if d == Old {
			idx = 0
		}
		if n := sregNames[v][idx]; n != "" {
			return append(dst, n...)
		}
		dst = append(dst, "SR"...)
		return strconv.AppendUint(dst, v, 10)
	case opMem:
		dst = append(dst, '[')
		dst = appendAddr(dst, o.memBase(raw), o.memOffset(raw), false, d)
		return append(dst, ']')
	case opShortImm:
		return appendSignedHex(dst, isa.SignExtend(o.value(raw), 8))
	case opConstMem:
		dst = appendBank(dst, o.bank.Get(raw), d)
		dst = append(dst, '[')
		dst = appendAddr(dst, raw>>20&63, o.memOffset(raw), false, d)
		return append(dst, ']')
	case opConst, opConstX:
		dst = appendBank(dst, o.f.Get(raw), d)
		dst = append(dst, '[')
		dst = appendAddr(dst, raw>>20&63, isa.SignExtend(raw>>26&0xffff, 16), o.kind == opConstX, d)
		return append(dst, ']')
	case opImm32:
		return appendImm32(dst, o.flavor, raw>>26&0xffffffff, d)
	case opConstNR:
		dst = appendBank(dst, o.f.Get(raw), d)
		dst = append(dst, '[')
		dst = appendSignedHex(dst, isa.SignExtend(raw>>26&0xffff, 16))
		return append(dst, ']')
	case opShortTarget:
		t := pc + 4 + uint64(isa.SignExtend(o.f.Get(raw), 14)<<2)
		return appendHexNum(dst, t&0xffffffff)
	case opShortSrc:
		if sel := o.f2.Get(raw); sel != 0 {
			dst = appendBank(dst, shortBanks[sel], d)
			dst = append(dst, '[')
			dst = appendHexNum(dst, o.f.Get(raw)<<2)
			return append(dst, ']')
		}
		return appendReg(dst, o.f.Get(raw))
	case opRegOff:
		// "R6 -0x380", as nvdisasm prints BRX and JMX; no offset when zero
		dst = appendReg(dst, raw>>20&63)
		if off := isa.SignExtend(o.f.Get(raw), o.f.Width); off != 0 {
			dst = append(dst, ' ')
			dst = appendSignedHex(dst, off)
		}
		return dst
	}
	// register-like operands with decorations
	if bit(raw, o.neg) {
		dst = append(dst, '-')
	}
	if bit(raw, o.not) {
		dst = append(dst, '~')
	}
	abs := bit(raw, o.abs)
	if abs {
		dst = append(dst, '|')
	}
	switch o.kind {
	case opReg:
		dst = appendReg(dst, o.f.Get(raw))
	case opB, opB3:
		switch raw >> 46 & 3 {
		case 0:
			dst = appendReg(dst, raw>>26&63)
		case 1:
			dst = appendConst(dst, raw, d)
		case 2:
			dst = appendReg(dst, raw>>49&63)
		case 3:
			v := raw >> 26 & 0xfffff
			start := len(dst)
			dst = appendImm20(dst, o.flavor, v, d)
			if bit(raw, o.neg) && d == New && dst[start] != '+' && dst[start] != '-' {
				// the negate bit on a non-negative immediate: "-+0x10",
				// so that it cannot be read as the immediate -0x10
				dst = append(dst, 0)
				copy(dst[start+1:], dst[start:])
				dst[start] = '+'
			}
		}
	case opC:
		if raw>>46&3 == 2 {
			dst = appendConst(dst, raw, d)
		} else {
			dst = appendReg(dst, raw>>49&63)
		}
	case opV:
		if raw>>47&1 != 0 {
			dst = appendReg(dst, raw>>26&63)
		} else {
			dst = appendHexNum(dst, raw>>26&0xffff)
		}
	}
	if o.bsel != 0 || o.hsel != 0 {
		if f, ok, _ := o.selector(raw); ok && f.Get(raw) != 0 {
			if f.Width == 2 {
				dst = append(dst, ".B"...)
			} else {
				dst = append(dst, ".H"...)
			}
			dst = append(dst, byte('0'+f.Get(raw)))
		}
	}
	if abs {
		dst = append(dst, '|')
	}
	if bit(raw, o.cc) {
		dst = append(dst, ".CC"...)
	}
	return dst
}

func appendBank(dst []byte, bank uint64, d Dialect) []byte {
	dst = append(dst, "c"...)
	if d == Old {
		dst = append(dst, ' ')
	}
	dst = append(dst, '[')
	dst = appendHexNum(dst, bank)
	dst = append(dst, ']')
	if d == Old {
		dst = append(dst, ' ')
	}
	return dst
}

// appendConst prints the c[bank][offset] variant of the composite operand.
func appendConst(dst []byte, raw uint64, d Dialect) []byte {
	dst = appendBank(dst, raw>>42&15, d)
	dst = append(dst, '[')
	dst = appendHexNum(dst, raw>>26&0xffff)
	return append(dst, ']')
}

// appendAddr prints Rx+offset inside brackets the way cuobjdump does: no
// register for RZ, no offset when it is zero (unless always is set); new
// cuobjdump prints a bare RZ base as [RZ].
func appendAddr(dst []byte, reg uint64, off int64, always bool, d Dialect) []byte {
	if reg == 63 && off == 0 && d == New && !always {
		return append(dst, "RZ"...)
	}
	if reg == 63 && !always {
		return appendSignedHex(dst, off)
	}
	dst = appendReg(dst, reg)
	if off == 0 && !always {
		return dst
	}
	dst = append(dst, '+')
	return appendSignedHex(dst, off)
}

func appendSignedHex(dst []byte, v int64) []byte {
	if v < 0 {
		dst = append(dst, '-')
		return appendHexNum(dst, uint64(-v))
	}
	return appendHexNum(dst, uint64(v))
}

func appendImm20(dst []byte, flavor uint8, v uint64, d Dialect) []byte {
	if d == Old || isNaN20(flavor, v) {
		return appendHexNum(dst, v) // CUDA 4.0 prints the raw field
	}
	switch flavor {
	case immInt:
		return appendSignedHex(dst, isa.SignExtend(v, 20))
	case immF32:
		return appendFloat(dst, float64(math.Float32frombits(uint32(v<<12))))
	case immF64:
		return appendFloat(dst, math.Float64frombits(v<<44))
	}
	return appendHexNum(dst, v)
}

func appendImm32(dst []byte, flavor uint8, v uint64, d Dialect) []byte {
	switch {
	case flavor == immF32 && d == New && !math.IsNaN(float64(math.Float32frombits(uint32(v)))):
		return appendFloat(dst, float64(math.Float32frombits(uint32(v))))
	case flavor == immF32 || flavor == immUint && d == New:
		return appendHexNum(dst, v)
	}
	return appendSignedHex(dst, isa.SignExtend(v, 32))
}

// isNaN20 reports a NaN float immediate: printed as its raw field so the
// payload survives reassembly.
func isNaN20(flavor uint8, v uint64) bool {
	switch flavor {
	case immF32:
		return math.IsNaN(float64(math.Float32frombits(uint32(v << 12))))
	case immF64:
		return math.IsNaN(math.Float64frombits(v << 44))
	}
	return false
}
