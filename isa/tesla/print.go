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
	return appendOperands(appendMnemonic(dst, inst), inst)
}

func appendMnemonic(dst []byte, inst Inst) []byte {
	f := &forms[inst.Form]
	for i := range f.mnem {
		dst = appendPiece(dst, f, &f.mnem[i], inst.Raw)
	}
	return dst
}

// appendOperands appends the operands and the final ';'.
func appendOperands(dst []byte, inst Inst) []byte {
	f := &forms[inst.Form]
	v := inst.Raw
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

// regNames spells R0..R127; halves add L or H.
var regNames = func() (t [128]string) {
	for i := range t {
		t[i] = "R" + string(appendDec(nil, uint64(i)))
	}
	return
}()

func appendReg(dst []byte, r uint64, half bool) []byte {
	if half {
		dst = append(dst, regNames[r>>1&127]...)
		return append(dst, "LH"[r&1])
	}
	return append(dst, regNames[r&127]...)
}

func appendDec(dst []byte, x uint64) []byte {
	if x >= 10 {
		dst = appendDec(dst, x/10)
	}
	return append(dst, byte('0'+x%10))
}

var hexNum = isa.AppendHexNum
