package tesla

import "gpuisa/isa"

// Print returns the instruction's text as cuobjdump prints it, including the
// final ';'. pc is the instruction's address (branch targets are absolute).
func Print(inst Inst, pc uint64) string {
	var buf [96]byte
	return string(AppendText(buf[:0], inst, pc))
}

// AppendText appends the instruction's text (with the final ';') to dst.
func AppendText(dst []byte, inst Inst, pc uint64) []byte {
	f := &forms[inst.Form]
	v := inst.Raw
	for i := range f.mnem {
		dst = appendPiece(dst, f, &f.mnem[i], v)
	}
	if len(f.opnds) > 0 {
		dst = append(dst, ' ')
		for i := range f.opnds {
			dst = appendPiece(dst, f, &f.opnds[i], v)
		}
	}
	return append(dst, ';')
}

func appendPiece(dst []byte, f *form, p *piece, v uint64) []byte {
	switch p.kind {
	case pieceLit:
		return append(dst, p.text...)
	case pieceJoin:
		if f.class == ClassLong && f_mark.Get(v) == 2 {
			dst = append(dst, ".S"...)
		}
	case pieceCC:
		if f_ccw.Get(v) != 0 {
			dst = append(dst, ".C"...)
			dst = append(dst, byte('0'+f_ccr.Get(v)))
		}
	case pieceEnum:
		return append(dst, p.opts[p.field.Get(v)]...)
	case pieceFlag:
		if p.field.Get(v) == 1 {
			dst = append(dst, p.text...)
		}
	case pieceNotFlag:
		if p.field.Get(v) == 0 {
			dst = append(dst, p.text...)
		}
	case pieceOperand:
		half := p.half || p.wide && p.field.Get(v)&1 == 0
		return appendOperand(dst, f.class, p, half, v)
	}
	return dst
}

func appendReg(dst []byte, r uint64, half bool) []byte {
	dst = append(dst, 'R')
	if half {
		dst = appendDec(dst, r>>1)
		if r&1 == 0 {
			return append(dst, 'L')
		}
		return append(dst, 'H')
	}
	return appendDec(dst, r)
}

func appendDec(dst []byte, x uint64) []byte {
	if x >= 10 {
		dst = appendDec(dst, x/10)
	}
	return append(dst, byte('0'+x%10))
}

var hexNum = isa.AppendHexNum
