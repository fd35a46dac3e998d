package maxwell

import (
	"encoding/binary"

	"gpuisa/isa"
)

// AppendText appends nvdisasm's text for inst at address pc, without the
// listing columns: guard, mnemonic, operands and the closing " ;" (or ";"
// when the control field has stall 0 and no yield).
func AppendText(dst []byte, inst Inst, pc uint64) []byte {
	dst = appendGuard(dst, inst)
	return appendBody(dst, inst, pc)
}

// Print returns AppendText as a string.
func Print(inst Inst, pc uint64) string { return string(AppendText(nil, inst, pc)) }

func appendGuard(dst []byte, inst Inst) []byte {
	g := inst.Word >> 16 & 0xf
	if g == 7 || forms[inst.form].attrs&attrNoGuard != 0 {
		return dst
	}
	dst = append(dst, '@')
	if g&8 != 0 {
		dst = append(dst, '!')
	}
	dst = appendPred(dst, g&7)
	return append(dst, ' ')
}

func appendPred(dst []byte, p uint64) []byte {
	if p == 7 {
		return append(dst, "PT"...)
	}
	return append(dst, 'P', byte('0'+p))
}

func appendDec(dst []byte, x uint64) []byte {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

func appendSHex(dst []byte, x int64) []byte {
	if x < 0 {
		dst = append(dst, '-')
		return isa.AppendHexNum(dst, uint64(-x))
	}
	return isa.AppendHexNum(dst, uint64(x))
}

// appendBody prints everything after the guard.
func appendBody(dst []byte, inst Inst, pc uint64) []byte {
	return appendBodyLabels(dst, inst, pc, nil)
}

// appendBodyLabels prints branch targets as lb names them when lb is not nil
// (the ELF-mode listing), else as addresses.
func appendBodyLabels(dst []byte, inst Inst, pc uint64, lb *funcLabels) []byte {
	f := &forms[inst.form]
	lits := tokLits[inst.form]
	w := inst.Word
	reuse := inst.Ctrl.Reuse()
	if f.attrs&attrReuse == 0 {
		reuse = 0
	}
	pending := false // a .reuse goes after the whole operand (|R1|.reuse, R2.H1.reuse)
	for k := 0; k < len(f.toks); k++ {
		t := &f.toks[k]
		switch t.kind {
		case tkLit:
			if pending {
				dst = append(dst, ".reuse"...)
				pending = false
			}
			dst = appendPacked(dst, &lits[k], t.text)
		case tkReg:
			r := t.get(w)
			if t.shift != 0 {
				r += uint64(t.shift) // R@p+k
				if r > 254 {
					dst = append(dst, "???255"...) // nvdisasm's text for a pair running past R254
					continue
				}
			}
			dst = appendReg(dst, r&255)
			if t.arg >= 0 && reuse>>uint(t.arg)&1 != 0 {
				pending = true
			}
		case tkPred:
			p := t.get(w)
			if t.arg == 7 { // stored inverted
				p ^= 7
			}
			dst = appendPred(dst, p)
		case tkNPred:
			v := t.get(w)
			if v&8 != 0 {
				dst = append(dst, '!')
			}
			dst = appendPred(dst, v&7)
		case tkGroup:
			if !groupShown(f.toks[k+1:k+1+t.arg], w) {
				k += t.arg
			}
		case tkFlag:
			if t.get(w) == t.def {
				// nvdisasm writes no minus before an immediate zero (VADD, VMAD)
				if t.text == "-" && k+1 < len(f.toks) && f.toks[k+1].kind == tkHex && f.toks[k+1].get(w) == 0 {
					continue
				}
				dst = appendPacked(dst, &lits[k], t.text)
			}
		case tkTable:
			dst = appendTable(dst, t.arg, t.get(w))
		case tkHex:
			if r := lb.relocAt(pc); r != "" && r[0] != 'c' && t.parts[0].pos == relocField {
				dst = append(dst, r...)
				continue
			}
			dst = isa.AppendHexNum(dst, t.get(w)<<t.shift)
		case tkSHex:
			if r := lb.relocAt(pc); r != "" && r[0] != 'c' && t.parts[0].pos == relocField {
				dst = append(dst, r...)
				continue
			}
			dst = appendSHex(dst, isa.SignExtend(t.get(w), t.width())<<t.shift)
		case tkRel:
			target := int64(pc) + 8 + isa.SignExtend(t.get(w), t.width())
			if lb != nil {
				dst = lb.name(dst, uint64(target))
			} else {
				dst = appendSHex(dst, target)
			}
		case tkF32:
			dst = appendF32(dst, uint32(t.get(w)<<(32-t.width())))
		case tkF64:
			dst = appendF64(dst, t.get(w)<<(64-t.width()))
		case tkF16:
			dst = appendF16(dst, uint16(t.get(w)<<(16-t.width())))
		case tkAddr, tkUAddr:
			r, off := t.addr(w)
			if rt := lb.relocAt(pc); rt != "" && rt[0] != 'c' && t.n > 1 && t.parts[1].pos == relocField {
				if r != 255 {
					dst = append(dst, 'R')
					dst = appendDec(dst, r)
					dst = append(dst, '+')
				}
				dst = append(dst, rt...)
				continue
			}
			switch {
			case r != 255:
				dst = append(dst, 'R')
				dst = appendDec(dst, r)
				if off != 0 {
					dst = append(dst, '+')
					dst = appendSHex(dst, off)
				}
			case off != 0 && t.arg > 0:
				dst = appendSHex(dst, off) // constant-bank offsets stay signed
			case off != 0:
				// with RZ the offset is an absolute address: unsigned
				dst = isa.AppendHexNum(dst, uint64(off)&t.offMask())
			case t.arg == 2:
				dst = append(dst, "0x0"...)
			default:
				dst = append(dst, "RZ"...)
			}
		case tkRegPair:
			r := t.get(w)
			if r == 255 || r+uint64(t.shift) > 254 {
				dst = append(dst, "???255"...)
			} else {
				dst = append(dst, 'R')
				dst = appendDec(dst, r+uint64(t.shift))
			}
		case tkBitSet:
			v := t.get(w)
			dst = append(dst, '{')
			first := true
			for b := int(t.width()) - 1; b >= 0; b-- {
				if v>>uint(b)&1 != 0 {
					if !first {
						dst = append(dst, ',')
					}
					first = false
					dst = appendDec(dst, uint64(b))
				}
			}
			dst = append(dst, '}')
		case tkPhase:
			switch inst.Ctrl.Reuse() & 3 {
			case 1:
				dst = append(dst, ".T"...)
			case 2:
				dst = append(dst, ".P"...)
			case 3:
				dst = append(dst, ".INVALIDPHASE3"...)
			}
		}
	}
	if pending {
		dst = append(dst, ".reuse"...)
	}
	if inst.Ctrl&0x1ffff == 0x7e0 { // stall 0, no yield, no barriers, no wait

		return append(dst, ';')
	}
	return append(dst, " ;"...)
}

func appendTable(dst []byte, ti int, v uint64) []byte {
	t := &tables[ti]
	if t.kinds[v] == 0 {
		return appendPacked(dst, &tableLits[ti][v], t.entries[v])
	}
	if t.dot {
		dst = append(dst, '.')
	}
	if t.quest || t.kinds[v] == 3 {
		dst = append(dst, "???"...)
		return appendDec(dst, v)
	}
	dst = append(dst, "INVALID"...)
	dst = append(dst, t.name...)
	if t.nonum {
		return dst
	}
	if t.hex {
		return appendUpperHex(dst, v)
	}
	return appendDec(dst, v)
}

func appendUpperHex(dst []byte, v uint64) []byte {
	const digits = "0123456789ABCDEF"
	n := 1
	for t := v >> 4; t != 0; t >>= 4 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, digits[v>>(4*uint(i))&0xf])
	}
	return dst
}

// groupShown: an optional group prints when one of its fields is not its default.
func groupShown(toks []tok, w uint64) bool {
	for k := range toks {
		t := &toks[k]
		switch t.kind {
		case tkLit, tkGroup, tkPhase:
			continue
		case tkFlag:
			if t.get(w) == t.def {
				return true
			}
			continue
		}
		if t.get(w) != t.def {
			return true
		}
	}
	return false
}

// regWords packs each register name into one little-endian word, so printing
// a register is one 8-byte store when the buffer has room.
var regWords = func() (p [256]uint64) {
	for r, name := range regNames {
		var b [8]byte
		copy(b[:], name)
		p[r] = binary.LittleEndian.Uint64(b[:])
	}
	return
}()

func appendReg(dst []byte, r uint64) []byte {
	n := len(dst)
	if cap(dst)-n < 8 {
		return append(dst, regNames[r&255]...)
	}
	binary.LittleEndian.PutUint64(dst[n:n+8], regWords[r&255])
	return dst[:n+len(regNames[r&255])]
}
