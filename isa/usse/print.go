package usse

import (
	"encoding/binary"
	"slices"

	"github.com/gpuisa/gpuisa/isa"
)

// Print returns the text of in (Sony spelling plus the flags Sony hides).
func Print(in Inst, pc uint64) string {
	var buf [128]byte
	return string(AppendText(buf[:0], in, pc))
}

// AppendText appends the text of in to dst. pc is the instruction's address
// (the text does not depend on it today: branch offsets print as encoded).
func AppendText(dst []byte, in Inst, pc uint64) []byte {
	return appendText(dst, &in)
}

func appendText(dst []byte, in *Inst) []byte {
	return appendTextWith(dst, in, syntaxTables())
}

// appendTextWith is appendText with the syntax printers' tables at hand.
func appendTextWith(dst []byte, in *Inst, pt *printTables) []byte {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return appendRaw(dst, in.Raw)
	}
	if p := formPrinters[in.Form]; p != nil {
		return p(dst, in, pt)
	}
	// the dual-issue forms
	f := &forms[in.Form]
	vi := f.variantIndex(in)
	if vi < 0 {
		return appendRaw(dst, in.Raw)
	}
	// a word whose flag bits are all at their defaults prints no flags
	// (in.Raw holds the fields, as the dual-issue printer also assumes)
	fd := &flagDefaults[in.Form][vi]
	return appendDualText(dst, f, &f.variants[vi], vi, in, in.Raw&fd.mask != fd.bits)
}

// appendSyntax is what the syntax printers print (syntax vi of in's form,
// flags as appendText finds them), interpreting the syntax's elements
// one by one: the printers' reference (TestSyntaxPrintersAgree).
func appendSyntax(dst []byte, f *form, vi int, in *Inst, flags bool) []byte {
	v := &f.variants[vi]
	// the mnemonic, the flags, the operands
	dst = appendElems(dst, f, v, v.elems[:v.mnemEnd], in)
	if flags {
		dst = appendFlags(dst, f, vi, in)
	}
	return appendElems(dst, f, v, v.elems[v.mnemEnd:], in)
}

// appendElems prints elements es of syntax v.
func appendElems(dst []byte, f *form, v *variant, es []elem, in *Inst) []byte {
	for i := range es {
		switch e := &es[i]; e.kind {
		case kLit:
			// most literals are ", " or " ": no copy call for them
			switch s := e.text; len(s) {
			case 1:
				dst = append(dst, s[0])
			case 2:
				dst = append(dst, s[0], s[1])
			default:
				dst = append(dst, s...)
			}
		case kEo:
			if !eoImplied(f, v, e, in) {
				dst = appendElem(dst, f, e, in)
			}
		default:
			dst = appendElem(dst, f, e, in)
		}
	}
	return dst
}

// appendDualText prints a dual-issue word (TestDualForms: exactly the
// syntaxes with a kDualm) at the marker level the search finds (dual.go).
func appendDualText(dst []byte, f *form, v *variant, vi int, in *Inst, flags bool) []byte {
	var dual dualView
	if !dual.init(f, in) {
		return appendRaw(dst, in.Raw)
	}
	var t dualText
	level, made := dualViewLevelText(&dual, in, &t)
	// below markExt the operands print as in the plain text: the search's
	// own when it made that
	ops := &t
	switch {
	case level >= markExt:
		ops = nil
	case !made:
		dual.fillText(&t, false)
	}
	for i := range v.elems {
		if i == v.mnemEnd && flags {
			dst = appendFlags(dst, f, vi, in)
		}
		switch v.elems[i].kind {
		case kDualm:
			dst = dual.appendMnem1(dst, level)
		case kDualr:
			if ops == nil {
				dst = dual.appendRest(dst, level)
			} else {
				dst = dual.appendRestOps(appendDualOpnds(dst, &ops.opnd[0], ops.n[0]), level, ops)
			}
		default:
			dst = appendElem(dst, f, &v.elems[i], in)
		}
	}
	if v.mnemEnd == len(v.elems) && flags {
		dst = appendFlags(dst, f, vi, in)
	}
	return dst
}

// appendRaw prints a word that is not an instruction as a data directive.
func appendRaw(dst []byte, w uint64) []byte {
	return appendHex16(append(dst, ".quad 0x"...), w)
}

// appendHex16 appends w as 16 hex digits, eight at a time (isa.AppendHex
// takes a digit at a time: a third of random words list this way).
func appendHex16(dst []byte, w uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, isa.HexDigits8(uint32(w>>32)))
	return binary.BigEndian.AppendUint64(dst, isa.HexDigits8(uint32(w)))
}

// appendFlags prints the flags of syntax vi of in's form that are not at
// their defaults. Every flag is written and kept or not by moving the end:
// which flags a random word sets is a branch the CPU cannot guess.
func appendFlags(dst []byte, f *form, vi int, in *Inst) []byte {
	ops := flagOps()[in.Form][vi]
	n := len(dst)
	b := slices.Grow(dst, len(ops)*flagRoom)[:n+len(ops)*flagRoom]
	for i := range ops {
		op := &ops[i]
		v := in.Args[op.arg]
		*(*[16]byte)(b[n : n+16]) = op.prefix.b
		m := n + int(op.prefix.n)
		if v&uint32(op.digits) >= 1000 { // one branch, rarely taken
			m = len(isa.AppendDec(b[:m], uint64(v))) // in the room: no copy
		} else {
			d := decWords[min(v, 999)]
			binary.LittleEndian.PutUint32(b[m:m+4], d)
			m += int(d>>24) & op.digits
		}
		if v != op.def {
			n = m
		}
	}
	return b[:n]
}

// flagRoom is the room one flag takes while it is written: a 16-byte
// prefix store at most 16+10 bytes in, 10 digits.
const flagRoom = 16 + 10 + 10

// decWords[v] is v < 1000 in decimal, the digits from the low byte up,
// their count in the top byte.
//
// buildDecWords computes decWords (inittables.go holds its value).
func buildDecWords() (t [1000]uint32) {
	for v := range t {
		s := isa.AppendDec(nil, uint64(v))
		for i := len(s) - 1; i >= 0; i-- {
			t[v] = t[v]<<8 | uint32(s[i])
		}
		t[v] |= uint32(len(s)) << 24
	}
	return t
}

const swizzleChans = "xyzw012h"

func appendElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	switch e.kind {
	case kLit:
		return append(dst, e.text...)
	case kPfx:
		if s := &enumTexts[e.table][in.Args[e.f[0]]]; s.n != 0 {
			dst = append(appendShort(dst, s), ' ')
		}
	case kE, kEo:
		return appendShort(dst, &enumTexts[e.table][in.Args[e.f[0]]])
	case kPck:
		return appendPckElem(dst, f, e, in)
	case kReg:
		return appendReg(dst, f, e, in)
	case kRegx:
		dst = appendReg(dst, f, e, in)
		if !isImm(f, e, in) {
			dst = append(dst, ".x"...)
		}
	case kRegm:
		return appendRegmElem(dst, f, e, in)
	case kOreg:
		return appendOregElem(dst, f, e, in)
	case kNreg:
		return appendNregElem(dst, f, e, in)
	case kFmt2:
		return appendFmt2Elem(dst, f, e, in)
	case kHexc:
		return appendHexcElem(dst, f, e, in)
	case kInv:
		if in.Args[e.f[0]] != 0 {
			dst = append(dst, '~')
		}
	case kSel:
		return appendSel(dst, e, in)
	case kSzmark:
		return appendSzmarkElem(dst, f, e, in)
	case kDualm:
		if d, ok := newDualView(f, in); ok {
			dst = d.appendMnem1(dst, markNone)
		}
	case kPsrc:
		return appendPsrc(dst, f, e, in)
	case kBit:
		if in.Args[e.f[0]] != 0 {
			dst = append(dst, e.text...)
		}
	case kMaskr:
		return appendMaskChans(dst, rotMask(in.Args[e.f[0]]))
	case kImark:
		return appendImarkElem(dst, f, e, in)
	case kGpi:
		dst = append(dst, 'i')
		return isa.AppendDec(dst, uint64(in.Args[e.f[0]]))
	case kMask:
		return appendMaskChans(dst, in.Args[e.f[0]])
	case kSwz:
		return appendSwzElem(dst, f, e, in)
	case kGsw: // gswSwizzle's fields
		return appendGswElem(dst, f, e, in)
	case kRsw, kRswh:
		return appendRswElem(dst, f, e, in)
	case kSwzf:
		return appendSwzfElem(dst, f, e, in)
	case kNeg:
		if in.Args[e.f[0]] != 0 {
			dst = append(dst, '-')
		}
	case kAbsl, kAbsr:
		if in.Args[e.f[0]] != 0 {
			dst = append(dst, '|')
		}
	case kModl:
		v := in.Args[e.f[0]]
		if v&1 != 0 {
			dst = append(dst, '-')
		}
		if v&2 != 0 {
			dst = append(dst, '|')
		}
	case kModr:
		if in.Args[e.f[0]]&2 != 0 {
			dst = append(dst, '|')
		}
	case kHex:
		return isa.AppendHexNum(dst, uint64(in.Args[e.f[0]]))
	case kHexo:
		return appendHexoElem(dst, f, e, in)
	case kShex:
		return appendShexElem(dst, f, e, in)
	case kDec:
		return isa.AppendDec(dst, uint64(in.Args[e.f[0]]))
	case kDec1:
		return isa.AppendDec(dst, uint64(in.Args[e.f[0]])+1)
	}
	return dst
}

// appendSwzElem prints a swizzle: '.' and the shortest prefix that names
// the entry.
func appendSwzElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	return appendSwzDot(dst, f, e.table, e.f[0], e.f[1], e.f[2], e.f[3], in)
}

// appendHexcElem prints an immediate stored in up to three fields.
func appendHexcElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	return isa.AppendHexNum(dst, concat(f, e, in))
}

// appendPckElem prints a pck element: "mov.D", or "pack.D.S".
func appendPckElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	names := enumTables[e.table]
	d, s := in.Args[e.f[0]], in.Args[e.f[1]]
	if d == s {
		return append(append(dst, "mov."...), names[d]...)
	}
	dst = append(append(dst, "pack."...), names[d]...)
	return append(append(dst, '.'), names[s]...)
}

// appendRegmElem prints a regm element: the register and, unless it is an
// immediate, the channels of its write mask.
func appendRegmElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	dst = appendReg(dst, f, e, in)
	if !isImm(f, e, in) {
		dst = appendMaskChans(dst, in.Args[e.f[3]])
	}
	return dst
}

// appendOregElem prints an oreg element: ", reg" unless the immediate 0.
func appendOregElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	if !isImmZero(f, e, in) {
		dst = appendReg(append(dst, ", "...), f, e, in)
	}
	return dst
}

// appendNregElem prints an nreg element: ", reg" unless the next register.
func appendNregElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	if !isNextReg(f, e, in) {
		dst = appendReg(append(dst, ", "...), f, e, in)
	}
	return dst
}

// appendFmt2Elem prints a fmt2 element: ".D", or ".D.S" when S differs.
func appendFmt2Elem(dst []byte, f *form, e *elem, in *Inst) []byte {
	names := enumTables[e.table]
	d, s := in.Args[e.f[0]], in.Args[e.f[1]]
	dst = append(append(dst, '.'), names[d]...)
	if s != d {
		dst = append(append(dst, '.'), names[s]...)
	}
	return dst
}

// appendSzmarkElem prints ".vec3" for a vec3 operation whose w select is not w.
func appendSzmarkElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	if in.Args[e.f[0]] == 0 && in.Args[e.f[1]]>>9&7 != 3 {
		dst = append(dst, ".vec3"...)
	}
	return dst
}

// appendImarkElem prints an imark element (imarkSet).
func appendImarkElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	if imarkSet(f, e, in) {
		dst = append(dst, e.text...)
	}
	return dst
}

// appendGswElem prints a gsw element (gswSwizzle's fields): an internal
// register and its swizzle, or i0 with constants as {values}.
func appendGswElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	p := swizzlePrefixOf(f, e.table, e.f[1], e.f[2], e.f[3], e.f[4], in)
	num := in.Args[e.f[0]]
	if num == 0 && allConst(p) {
		var v [4]uint32
		for i := 0; i < len(p); i++ {
			v[i], _ = constChar(p[i])
		}
		return appendValues(dst, v[:len(p)])
	}
	dst = isa.AppendDec(append(dst, 'i'), uint64(num))
	return append(append(dst, '.'), p...)
}

// appendRswElem prints an rsw or rswh element: a register (or constant
// register as {values}) and its swizzle.
func appendRswElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	return appendRswWith(dst, f, e, in, nil)
}

// appendRswWith is appendRswElem with the register's text r from a syntax
// printer's table (nil: printed from the fields).
func appendRswWith(dst []byte, f *form, e *elem, in *Inst, r *regEntry) []byte {
	var v [4]uint32
	if k, ok := rswConst(f, e, in, &v); ok {
		return appendValues(dst, v[:k])
	}
	// rswParts' register (numbers doubled for 6-bit fields only) and swizzle
	if r != nil {
		dst = putReg(reserve(dst, 24), r)
	} else {
		dst = appendRegMult(dst, f, e, in, 1+uint64(b2u(f.fields[e.f[2]].width == 6)))
	}
	if e.f[3] >= 0 {
		dst = appendSwzDot(dst, f, uint8(e.tab2), e.f[3], e.f[4], e.f[5], rswSel(e), in)
	}
	return dst
}

// appendSwzfElem prints a free swizzle.
func appendSwzfElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	v := in.Args[e.f[0]]
	n := 4
	if e.f[2] >= 0 && in.Args[e.f[2]] == 0 {
		n = 3 // a vec3 operation: w prints only when it is not the identity
		if v>>9&7 != 3 {
			n = 4
		}
	} else if e.f[1] >= 0 {
		// with a write mask, channels past it print only when they are
		// not the identity (the parser fills identity): all selects from
		// channel n on compared at once
		n = maskLen(in.Args[e.f[1]])
		if (v^swzfIdentity)&(0xfff<<(3*n)&0xfff) != 0 {
			n = 4
		}
	}
	// '.' and the four channels as one store, kept up to channel n
	w := uint64('.')
	for c := 0; c < 4; c++ {
		w |= uint64(swizzleChans[v>>(3*c)&7]) << (8 * (c + 1))
	}
	return putLit8(reserve(dst, 8), w, 1+n)
}

// swzfIdentity is the free swizzle xyzw (channel c selects c).
const swzfIdentity = 0 | 1<<3 | 2<<6 | 3<<9

// appendHexoElem prints " 0x.." unless the value is 0.
func appendHexoElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	if v := in.Args[e.f[0]]; v != 0 {
		return isa.AppendHexNum(append(dst, ' '), uint64(v))
	}
	return dst
}

// appendShexElem prints a signed hex immediate.
func appendShexElem(dst []byte, f *form, e *elem, in *Inst) []byte {
	v := isa.SignExtend(uint64(in.Args[e.f[0]]), f.fields[e.f[0]].width)
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	return isa.AppendHexNum(dst, uint64(v))
}

// isImmZero: an optional register that is the immediate 0 is not printed.
func isImmZero(f *form, e *elem, in *Inst) bool {
	return isImm(f, e, in) && in.Args[e.f[2]] == 0
}

// isImm reports a register element whose bank is the immediate one.
func isImm(f *form, e *elem, in *Inst) bool {
	bi := bankIndex(f, e, in)
	return bi < 8 && bankKinds[e.table][bi] == bkImm
}

// isNextReg: an nreg operand is not printed when it is the register after
// its reference operand (same bank, number + 1), as Sony prints pairs.
func isNextReg(f *form, e *elem, in *Inst) bool {
	if e.f[6] >= 0 && in.Args[e.f[6]] == in.Args[e.f[7]] &&
		(e.tab2 < 0 || enumTables[e.tab2][in.Args[e.f[6]]] != "") {
		return false // fields 6 and 7 are equal (and, with a clash enum, the value clashes)
	}
	ref := elem{table: e.table, f: [16]int8{e.f[3], e.f[4], e.f[5]}}
	return bankIndex(f, e, in) == bankIndex(f, &ref, in) && in.Args[e.f[2]] == in.Args[e.f[5]]+1
}

// concat joins up to three fields, the first least significant.
func concat(f *form, e *elem, in *Inst) uint64 {
	var v uint64
	var sh uint8
	for _, fi := range e.f[:3] {
		if fi < 0 {
			break
		}
		v |= uint64(in.Args[fi]) << sh
		sh += f.fields[fi].width
	}
	return v
}

// appendSel prints VPCK channel selects: a letter per written channel, '-'
// for a hole whose select is 0, and trailing selects only when non-zero.
func appendSel(dst []byte, e *elem, in *Inst) []byte {
	mask := in.Args[e.f[4]]
	n := 0
	if mask != 0 {
		n = maskLen(mask)
	}
	for c := 0; c < 4; c++ {
		if in.Args[e.f[c]] != 0 {
			n = max(n, c+1)
		}
	}
	if n == 0 {
		return dst
	}
	dst = append(dst, '.')
	for c := 0; c < n; c++ {
		v := in.Args[e.f[c]]
		if mask>>c&1 == 0 && v == 0 {
			dst = append(dst, '-')
		} else {
			dst = append(dst, "xyzw"[v])
		}
	}
	return dst
}

// eoImplied reports whether an optional enum (VMAD's ".vec3") can be left
// out: it selects the v3 swizzle table, and some swizzle of the instruction
// has no reading in the v4 table, so the parser, which tries v4 first, falls
// back to v3 and finds the same word (Sony never prints the size).
func eoImplied(f *form, v *variant, eo *elem, in *Inst) bool {
	if enumTables[eo.table][in.Args[eo.f[0]]] == "" || in.Args[eo.f[0]] != 0 {
		return false
	}
	for i := range v.elems {
		e := &v.elems[i]
		var sw elem
		switch e.kind {
		case kGsw:
			sw = gswSwizzle(e)
		case kRsw, kRswh:
			var has bool
			var vals [4]uint32
			if _, isConst := rswConst(f, e, in, &vals); isConst {
				continue // braces: the v4 reading may exist
			}
			if _, sw, has = rswParts(e); !has {
				continue
			}
		default:
			continue
		}
		if sw.table != swzV34 || sw.f[3] != eo.f[0] {
			continue
		}
		if swizzleTableIndex(&sw, in) == swzV3 {
			idx := int(arg(in, sw.f[1]))<<f.fields[sw.f[0]].width | int(in.Args[sw.f[0]])
			if idx < 32 && !v4HasPrefix[idx][len(swizzlePrefix(f, &sw, in))] {
				return true
			}
		} else if firstWithPrefix(swizzleTables[swzV4], swizzlePrefix(f, &sw, in)) == "" {
			return true
		}
	}
	return false
}

// appendMaskChans prints a write mask as ".x-z" (nothing for 0).
func appendMaskChans(dst []byte, m uint32) []byte {
	if m == 0 {
		return dst
	}
	dst = append(dst, '.')
	for c := 0; m>>c != 0; c++ {
		if m>>c&1 != 0 {
			dst = append(dst, "xyzw"[c])
		} else {
			dst = append(dst, '-')
		}
	}
	return dst
}

// maskLen is the number of channels up to the highest enabled one (min 1).
func maskLen(m uint32) int { return int(maskLens[m&15]) }

// maskLens[m] is maskLen(m) (bits past w do not count): a look-up, as the
// highest channel of a random mask is a branch the CPU cannot guess.
var maskLens = [16]uint8{1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4}

// firstWithPrefix is the entry a swizzle text p names: the first entry of the
// table (standard half, then extended) that starts with p.
func firstWithPrefix(t []string, p string) string {
	for _, s := range t {
		if len(s) >= len(p) && s[:len(p)] == p && s != "?" {
			return s
		}
	}
	return ""
}

var bank4 = [4]string{"r", "o", "pa", "sa"}

// regWords[k][n] spells register n of bank4[k] as one word (isa.TextWord).
//
// buildRegWords computes regWords (inittables.go holds its value).
func buildRegWords() (t [4][256]uint64) {
	for k, b := range bank4 {
		for n := range t[k] {
			t[k][n] = isa.TextWord(string(isa.AppendDec([]byte(b), uint64(n))))
		}
	}
	return t
}

// regMult is 2 when register numbers are doubled: 6-bit fields always, and
// fields whose element names a selector field that is 0 (VTST's alu_sel 0,
// the f32/f16 tests, uses doubled 7-bit numbers in Vita3K).
func regMult(f *form, e *elem, in *Inst) uint64 {
	if f.fields[e.f[2]].width == 6 {
		return 2
	}
	if e.kind != kNreg && e.kind != kRegm && e.f[3] >= 0 && in.Args[e.f[3]] == 0 {
		return 2
	}
	return 1
}

func appendReg(dst []byte, f *form, e *elem, in *Inst) []byte {
	return appendRegMult(dst, f, e, in, regMult(f, e, in))
}

// appendRegMult is appendReg with the numbering factor given.
func appendRegMult(dst []byte, f *form, e *elem, in *Inst, mult uint64) []byte {
	return appendRegAt(dst, e.table, f.fields[e.f[2]].width, bankIndex(f, e, in), in.Args[e.f[2]], mult)
}

// appendRegAt prints register num (a w-bit field) of entry bi of bank
// table t with numbering factor mult: appendRegMult once the fields are
// read, and what the syntax printers' register tables are made of.
func appendRegAt(dst []byte, t uint8, w uint8, bi int, num uint32, mult uint64) []byte {
	if bi >= 8 {
		return dst
	}
	// the four register banks (most operands) spelled straight from the
	// fields, as regOperand reads them
	if k := bankKinds[t][bi]; k <= bkSa {
		if lim := uint32(1)<<w - 4; k == bkR && num >= lim {
			return isa.AppendDec(append(dst, 'i'), uint64(num-lim))
		}
		if n := num * uint32(mult); n < 256 {
			return isa.AppendWord(dst, regWords[k][n])
		}
		return isa.AppendDec(append(dst, bank4[k]...), uint64(num*uint32(mult)))
	}
	return appendOperand(dst, regOperandAt(t, w, bi, num, uint32(mult)))
}

// appendOperand prints a register operand (without swizzle or modifiers).
func appendOperand(dst []byte, o Operand) []byte {
	switch o.Bank {
	case BankInternal:
		return isa.AppendDec(append(dst, 'i'), uint64(o.Num))
	case BankTemp, BankOutput, BankPrimary, BankSecondary:
		return isa.AppendDec(append(dst, o.Bank.String()...), uint64(o.Num))
	case BankGlobal:
		return isa.AppendDec(append(dst, 'g'), uint64(o.Num))
	case BankConst:
		return isa.AppendDec(append(dst, 'c'), uint64(o.Num))
	case BankImm:
		return isa.AppendHexNum(dst, uint64(o.Num))
	case BankIndex:
		return isa.AppendDec(append(dst, "idx"...), uint64(o.Num))
	case BankIndexed:
		dst = append(dst, o.Base.String()...)
		dst = append(dst, "[index"...)
		dst = append(dst, '0'+o.IndexReg)
		dst = append(dst, " * 2 + "...)
		return append(isa.AppendDec(dst, uint64(o.Num)), ']')
	}
	return dst
}

// appendMnemonic appends the mnemonic of in as Sony spells it: the template
// up to the operands, without predicate prefix and without our flags.
func appendMnemonic(dst []byte, in *Inst) []byte {
	f, v := in.syntax()
	if v == nil {
		return dst
	}
	for i := 0; i < v.mnemEnd; i++ {
		if v.elems[i].kind != kPfx {
			dst = appendElem(dst, f, &v.elems[i], in)
		}
	}
	return dst
}

// imarkSet reports whether both registers of an imark element are internal
// registers (temp bank, top four numbers) or constants (which may print as
// {values}): then the form's text could also be another form's (VMAD2 with
// such sources reads like VMAD), so the form's name is printed as a marker.
func imarkSet(f *form, e *elem, in *Inst) bool {
	for k := 0; k < 2; k++ {
		r := elem{table: e.table, f: [16]int8{e.f[3*k], e.f[3*k+1], e.f[3*k+2]}}
		w := f.fields[r.f[2]].width
		switch bankTables[e.table][bankIndex(f, &r, in)] {
		case "special":
		case "r":
			if in.Args[r.f[2]] < 1<<w-4 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// psrc element parts: the two registers and the select element.
func psrcParts(e *elem) (r1, r2, sel elem) {
	r1 = elem{kind: kReg, table: e.table, f: [16]int8{e.f[0], e.f[1], e.f[2], -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}}
	r2 = elem{kind: kReg, table: e.table, f: [16]int8{e.f[3], e.f[4], e.f[5], -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}}
	sel = elem{kind: kSel, f: [16]int8{e.f[6], e.f[7], e.f[8], e.f[9], e.f[10], -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}}
	return
}

// psrcForm says how a VPCK source pair prints: pair syntax, source 2
// written out, or source 1 alone.
func psrcForm(f *form, e *elem, in *Inst) (pair, second bool) {
	r1, r2, sel := psrcParts(e)
	return psrcFormOf(f, e, in, &r1, &r2, &sel)
}

// psrcFormOf is psrcForm for e's parts r1, r2, sel (psrcParts).
func psrcFormOf(f *form, e *elem, in *Inst, r1, r2, sel *elem) (pair, second bool) {
	next := bankIndex(f, r1, in) == bankIndex(f, r2, in) && in.Args[e.f[5]] == in.Args[e.f[2]]+1
	clash := in.Args[e.f[11]] == in.Args[e.f[12]] && enumTables[e.tab2][in.Args[e.f[11]]] != ""
	if clash && !next && in.Args[e.f[10]] == 3 && in.Args[e.f[6]] < 2 && in.Args[e.f[7]] >= 2 && in.Args[e.f[8]] == 0 && in.Args[e.f[9]] == 0 {
		return true, false
	}
	return false, !next || clash && !selHole(sel, in)
}

// selHole reports whether appendSel prints a '-' for sel.
func selHole(sel *elem, in *Inst) bool {
	mask := in.Args[sel.f[4]]
	n := 0
	if mask != 0 {
		n = maskLen(mask)
	}
	for c := 0; c < 4; c++ {
		if in.Args[sel.f[c]] != 0 {
			n = max(n, c+1)
		}
	}
	for c := 0; c < n; c++ {
		if mask>>c&1 == 0 && in.Args[sel.f[c]] == 0 {
			return true
		}
	}
	return false
}

func appendPsrc(dst []byte, f *form, e *elem, in *Inst) []byte {
	r1, r2, sel := psrcParts(e)
	pair, second := psrcFormOf(f, e, in, &r1, &r2, &sel)
	if pair {
		dst = append(appendReg(append(dst, '('), f, &r1, in), '.', "xy"[in.Args[e.f[6]]])
		dst = append(appendReg(append(dst, ", "...), f, &r2, in), '.', "xy"[in.Args[e.f[7]]-2])
		return append(dst, ')')
	}
	dst = appendSel(appendReg(dst, f, &r1, in), &sel, in)
	if second {
		dst = appendReg(append(dst, ", "...), f, &r2, in)
	}
	return dst
}

// rotMask turns a write mask whose bit 0 is w (SOP2M, Vita3K: "alpha is at
// the first bit") into xyzw order.
func rotMask(m uint32) uint32 { return m>>1 | (m&1)<<3 }
