package usse

// DualOp is one operation of a dual-issue word (op1 0x04, 0x05), with its
// operands as the dual-issue view of usse.spec reads them (dual.go).
type DualOp struct {
	Index int    // the operation's entry in the dualop table (0..13)
	Name  string // its name: mad dot ssq mul add mov rsq rcp; the scalar mad add mul subflr exp log
	// Vector: reads vector sources (dot and ssq read SrcChans channels);
	// Scalar ops read one channel and write it to every channel of Mask.
	Vector   bool
	SrcChans int
	Mask     uint8 // destination write mask
	Dst      Operand
	Src      []Operand // Neg/Abs and Swizzle set; ssq's one source is listed once
}

// Dual returns the two operations of a dual-issue word; ok is false for
// other words and for dual words whose fields name no operation.
func (in *Inst) Dual() (ops [2]DualOp, ok bool) {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return ops, false
	}
	if int(in.Form) != dualForms[0] && int(in.Form) != dualForms[1] {
		return ops, false
	}
	var d dualView
	if !d.init(&forms[in.Form], in) {
		return ops, false
	}
	t := d.swzTable()
	for k := 0; k < 2; k++ {
		o := d.op[k]
		name := o.name
		if o.idx == 2 {
			name = "ssq"
		}
		op := DualOp{Index: int(o.idx), Name: name, Vector: o.vload, SrcChans: d.srcChans(k), Mask: uint8(d.destMask(k))}
		var x dualOpnd
		d.destOpnd(&x, k)
		op.Dst = dualOperand(&x)
		for i := 0; i < len(d.lay[k]); i++ {
			c := d.lay[k][i]
			d.srcOpnd(&x, k, c, -1)
			s := dualOperand(&x)
			s.Neg, s.Abs = x.neg, x.abs
			if idx, ok := d.srcSwizzle(c); ok {
				s.Swizzle = t[idx]
			}
			op.Src = append(op.Src, s)
		}
		ops[k] = op
	}
	return ops, true
}

// dualOperand turns a dual-issue operand as printed into an Operand.
func dualOperand(x *dualOpnd) Operand {
	switch x.bank {
	case dbI:
		return Operand{Bank: BankInternal, Num: x.num}
	case dbIdx1:
		return Operand{Bank: BankIndexed, Base: bank4Kinds[x.ibank&3], IndexReg: 1, Num: x.num}
	case dbR, dbO, dbPa, dbSa:
		return Operand{Bank: bank4Kinds[x.bank], Num: x.num}
	}
	return Operand{}
}
