package tesla

import "github.com/gpuisa/gpuisa/emu"

// Integer semantics, after seed 002's pseudo-code.

func widthOf(b32 bool) (mask uint32, sign uint32, bits uint) {
	if b32 {
		return 0xffffffff, 1 << 31, 32
	}
	return 0xffff, 1 << 15, 16
}

func sext(v uint32, bits uint) int64 {
	return int64(int32(v<<(32-bits)) >> (32 - bits))
}

// addFlags computes s1+s2+c at the given width with the C/O/S/Z flags and
// optional saturation.
func addFlags(s1, s2, c uint32, b32, sat bool) (uint32, uint32) {
	m, sg, bits := widthOf(b32)
	s1 &= m
	s2 &= m
	sum := uint64(s1) + uint64(s2) + uint64(c)
	var f uint32
	if sum>>bits&1 != 0 {
		f |= flagC
	}
	res := uint32(sum) & m
	if s1&sg == s2&sg && s1&sg != res&sg {
		f |= flagO
		if sat {
			if res&sg != 0 {
				res = sg - 1
			} else {
				res = sg
			}
		}
	}
	if res&sg != 0 {
		f |= flagS
	}
	if res == 0 {
		f |= flagZ
	}
	return res, f
}

// addOperands turns (x, y) into the operands of add, sub, subr, addc.
func addOperands(mode uint8, x, y uint32, m uint32, carryIn bool) (uint32, uint32, uint32) {
	switch mode {
	case 1:
		return x, ^y & m, 1
	case 2:
		return ^x & m, y, 1
	case 3:
		if carryIn {
			return x, y, 1
		}
	}
	return x, y, 0
}

// mul24 is the 24-bit multiply: the low 32 bits of the 48-bit product, or
// bits 16..47 with hi.
func mul24(x, y uint32, signed, hi bool) uint32 {
	var m uint64
	if signed {
		m = uint64(sext(x&0xffffff, 24) * sext(y&0xffffff, 24))
	} else {
		m = uint64(x&0xffffff) * uint64(y&0xffffff)
	}
	m &= 1<<48 - 1
	if hi {
		return uint32(m >> 16)
	}
	return uint32(m)
}

func mul16(x, y uint32, s1, s2 bool) uint32 {
	a, b := int64(x&0xffff), int64(y&0xffff)
	if s1 {
		a = sext(x&0xffff, 16)
	}
	if s2 {
		b = sext(y&0xffff, 16)
	}
	return uint32(a * b)
}

func (k *Kernel) alu(o *op, mask uint32, a, b, c *lanes, r, f *lanes, w *emu.Warp) bool {
	m, sg, bits := widthOf(o.b32)
	carryRow := w.Regs[(rowCond+int(o.carry))*32 : (rowCond+int(o.carry))*32+32]
	switch o.kind {
	case opIAdd:
		if o.mode == 0 && o.b32 && !o.sat && !o.ccw {
			for l := range r {
				r[l] = a[l] + b[l]
			}
			return true
		}
		for l := range r {
			x, y, ci := addOperands(o.mode, a[l], b[l], m, carryRow[l]&flagC != 0)
			r[l], f[l] = addFlags(x, y, ci, o.b32, o.sat)
		}
		return true
	case opIMul16:
		for l := range r {
			r[l] = mul16(a[l], b[l], o.mode&1 != 0, o.mode&2 != 0)
		}
	case opIMul24:
		for l := range r {
			r[l] = mul24(a[l], b[l], o.signed, o.hi)
		}
	case opIMad:
		for l := range r {
			var p uint32
			switch o.mode2 {
			case mulU16:
				p = mul16(a[l], b[l], false, false)
			case mulS16:
				p = mul16(a[l], b[l], true, true)
			case mulU24:
				p = mul24(a[l], b[l], false, o.hi)
			case mulS24:
				p = mul24(a[l], b[l], true, o.hi)
			}
			x, y, ci := addOperands(o.mode, p, c[l], 0xffffffff, carryRow[l]&flagC != 0)
			r[l], f[l] = addFlags(x, y, ci, true, o.sat)
		}
		return true
	case opISad:
		for l := range r {
			var d int64
			if o.signed {
				d = sext(a[l]&m, bits) - sext(b[l]&m, bits)
			} else {
				d = int64(a[l]&m) - int64(b[l]&m)
			}
			if d < 0 {
				d = -d
			}
			mres := uint32(d) & m
			r[l], f[l] = addFlags(mres, c[l], 0, o.b32, false)
		}
		return true
	case opISet:
		for l := range r {
			var lt, eq bool
			if o.signed {
				x, y := sext(a[l]&m, bits), sext(b[l]&m, bits)
				lt, eq = x < y, x == y
			} else {
				x, y := a[l]&m, b[l]&m
				lt, eq = x < y, x == y
			}
			bit := uint8(4) // greater
			if lt {
				bit = 1
			} else if eq {
				bit = 2
			}
			if o.mode&bit != 0 {
				r[l] = m
			} else {
				r[l] = 0
			}
		}
	case opIMax, opIMin:
		for l := range r {
			x, y := a[l]&m, b[l]&m
			var lt bool
			if o.signed {
				lt = sext(x, bits) < sext(y, bits)
			} else {
				lt = x < y
			}
			if lt == (o.kind == opIMin) {
				r[l] = x
			} else {
				r[l] = y
			}
		}
	case opShl:
		for l := range r {
			x, n := a[l]&m, b[l]
			var fl uint32
			res := uint32(0)
			if n < uint32(bits) {
				wide := uint64(x) << n
				if wide>>bits&1 != 0 {
					fl |= flagC
				}
				res = uint32(wide) & m
			}
			if n == 1 && x&sg != res&sg {
				fl |= flagO
			}
			r[l], f[l] = res, fl|intFlags(res, o.b32)
		}
		return true
	case opShr:
		for l := range r {
			x, n := a[l]&m, b[l]
			var res, fl uint32
			if n < uint32(bits) {
				res = x >> n
			}
			if o.signed && x&sg != 0 {
				if n < uint32(bits) {
					res |= m &^ (m >> n)
				} else {
					res = m
				}
			}
			if n > 0 && n < uint32(bits) && x>>(n-1)&1 != 0 {
				fl |= flagC
			}
			if n == 1 && x&sg != res&sg {
				fl |= flagO
			}
			r[l], f[l] = res, fl|intFlags(res, o.b32)
		}
		return true
	case opLop:
		for l := range r {
			x, y := a[l], b[l]
			if o.s[0].not {
				x = ^x
			}
			if o.s[1].not {
				y = ^y
			}
			switch o.mode {
			case 0:
				r[l] = x & y & m
			case 1:
				r[l] = (x | y) & m
			case 2:
				r[l] = (x ^ y) & m
			default:
				r[l] = y & m
			}
		}
	case opCvt:
		cvt(o, a, r, f, w)
		return true
	default:
		return false
	}
	if o.ccw {
		for l := range f {
			f[l] = intFlags(r[l], o.kind == opIMul16 || o.kind == opIMul24 || o.b32)
		}
	}
	return true
}
