package fermi

import (
	"errors"
	"github.com/gpuisa/gpuisa/isa/asm"
	"math"
	"strconv"
	"strings"
)

// Operand parsing: the inverse of appendOperand in print.go.

// The operand errors are fixed values: the assembler tries several forms
// per statement, and building messages for the forms it then discards cost
// most of its time and every allocation it made per line.
var (
	errWantPred       = errors.New("want a predicate")
	errUnknownValue   = errors.New("unknown value")
	errWantText       = errors.New("want the fixed text of this form")
	errUnknownCC      = errors.New("unknown condition code")
	errUnsignedRange  = errors.New("unsigned value out of range")
	errUnknownLabel   = errors.New("unknown label or bad address")
	errTargetRange    = errors.New("branch target out of range")
	errUnknownSReg    = errors.New("unknown special register")
	errWantMem        = errors.New("want [Rx+offset]")
	errOffsetRange    = errors.New("offset out of range")
	errBankRange      = errors.New("constant bank out of range")
	errWantReg        = errors.New("want a register")
	errSameReg        = errors.New("must be the same register as the destination")
	errWantRegOrConst = errors.New("want a register, or c[][] after a register")
	errWantRegOrImm16 = errors.New("want a register or a 16-bit immediate")
	errOperandKind    = errors.New("cannot parse this operand kind")
	errAddrReg        = errors.New("bad address register")
	errAddrOffset     = errors.New("bad address offset")
	errWantConst      = errors.New("want c[bank][offset]")
	errConstBank      = errors.New("bad constant bank")
	errConstRange     = errors.New("constant bank or offset out of range")
	errWantImm        = errors.New("want an immediate")
	errImm20Range     = errors.New("immediate does not fit in 20 bits")
	errImm32Range     = errors.New("immediate does not fit in 32 bits")
	errImm8Range      = errors.New("want a signed 8-bit immediate")
	errWantNumber     = errors.New("want a number")
	errDoubleImm      = errors.New("double immediate needs more than 20 bits")
	errFloatImm       = errors.New("float immediate needs more than 20 bits")
	errNotBang        = errors.New("! not allowed here")
	errNegHere        = errors.New("- not allowed here")
	errNotHere        = errors.New("~ not allowed here")
	errAbsHere        = errors.New("|..| not allowed here")
	errCCHere         = errors.New(".CC not allowed here")
)

func parsePredName(s string) (uint64, bool) {
	switch s {
	case "pt", "PT":
		return 7, true
	}
	if len(s) == 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '6' {
		return uint64(s[1] - '0'), true
	}
	return 0, false
}

// opState carries what a 3-source form's B3 operand left for its C operand.
type opState struct {
	b3Reg   int     // register parsed for B3, -1 if B3 was not a register
	dialect Dialect // how to read "-0x..": negate bit (Old) or value (New)
}

func parseReg(s string) (uint64, bool) {
	if s == "RZ" {
		return 63, true
	}
	if len(s) < 2 || len(s) > 3 || s[0] != 'R' {
		return 0, false
	}
	var v uint64
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + uint64(s[i]-'0')
	}
	return v, v <= 63
}

// parseInt parses [+-]0x.. or [+-]decimal.
func parseInt(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	v, ok := asm.ParseUint(s)
	if !ok || v > 1<<63 {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// decorations strips -, ~, ! and |..| and a trailing .CC.
type decorations struct{ neg, not, abs, cc bool }

func stripDecorations(s string) (string, decorations) {
	var d decorations
	if strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "-0") && !isDigitStart(s[1:]) {
		d.neg, s = true, strings.TrimSpace(s[1:])
	}
	if strings.HasPrefix(s, "~") || strings.HasPrefix(s, "!") {
		d.not, s = true, strings.TrimSpace(s[1:])
	}
	if len(s) >= 2 && s[0] == '|' && s[len(s)-1] == '|' {
		d.abs, s = true, strings.TrimSpace(s[1:len(s)-1])
	}
	if strings.HasSuffix(s, ".CC") {
		d.cc, s = true, s[:len(s)-3]
	}
	return s, d
}

func isDigitStart(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '.' || strings.HasPrefix(s, "INF") || strings.HasPrefix(s, "QNAN"))
}

func setBit(raw uint64, b int8, on bool, what error) (uint64, error) {
	if !on {
		return raw, nil
	}
	if b < 0 {
		return raw, what
	}
	return raw | 1<<uint(b), nil
}

func parseOperand(o *operand, raw uint64, s string, pc uint64, labels resolver, st *opState) (uint64, error) {
	switch o.kind {
	case opPred:
		not := false
		if strings.HasPrefix(s, "!") {
			not, s = true, s[1:]
		}
		p, ok := parsePredName(s)
		if !ok {
			return raw, errWantPred
		}
		raw = o.setValue(raw, p)
		return setBit(raw, o.not, not, errNotBang)
	case opEnum:
		for v, e := range tables[o.table] {
			if e == s && e != "?" {
				return o.f.Set(raw, uint64(v)), nil
			}
		}
		return raw, errUnknownValue
	case opLit:
		if s != o.text {
			return raw, errWantText
		}
		return raw, nil
	case opCC, opNopCC:
		for v, e := range tables[tblCc] {
			if "CC."+e == s {
				return o.f.Set(raw, uint64(v)), nil
			}
		}
		return raw, errUnknownCC
	case opHex:
		v, ok := parseInt(s)
		if !ok || v < 0 || uint64(v) > o.f.Max() {
			return raw, errUnsignedRange
		}
		return o.f.Set(raw, uint64(v)), nil
	case opTarget:
		t, ok := parseInt(s)
		if !ok {
			a, found := labels(s)
			if !found {
				return raw, errUnknownLabel
			}
			t = int64(a)
		}
		// addresses wrap at 32 bits, as the printer shows them
		off := int64(int32(uint32(t) - uint32(pc) - 8))
		if off < -1<<23 || off >= 1<<23 || t < 0 || t > 0xffffffff {
			return raw, errTargetRange
		}
		return o.f.Set(raw, uint64(off)), nil
	case opSReg:
		for v := range sregNames {
			if n := sregNames[v]; n[0] != "" && (s == n[0] || s == n[1]) {
				return o.f.Set(raw, uint64(v)), nil
			}
		}
		if strings.HasPrefix(s, "SR") {
			if v, err := strconv.ParseUint(s[2:], 10, 8); err == nil {
				return o.f.Set(raw, v), nil
			}
		}
		return raw, errUnknownSReg
	case opMem:
		if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
			return raw, errWantMem
		}
		r, off, err := parseAddr(s[1 : len(s)-1])
		if err != nil {
			return raw, err
		}
		if !o.memOffsetFits(raw, off) {
			return raw, errOffsetRange
		}
		if o.base != 0 {
			return o.setMemOffset(raw|r<<o.base, off), nil
		}
		return o.setMemOffset(raw|r<<20, off), nil
	case opShortImm:
		v, ok := parseInt(s)
		if !ok || v < -128 || v > 127 {
			return raw, errImm8Range
		}
		return o.setValue(raw, uint64(v)), nil
	case opConstMem:
		bank, inner, err := splitConst(s)
		if err != nil {
			return raw, err
		}
		r, off, err := parseAddr(inner)
		if err != nil {
			return raw, err
		}
		if bank > o.bank.Max() || !o.memOffsetFits(raw, off) {
			return raw, errConstRange
		}
		return o.setMemOffset(o.bank.Set(raw|r<<20, bank), off), nil
	case opConst, opConstX:
		bank, inner, err := splitConst(s)
		if err != nil {
			return raw, err
		}
		if bank > o.f.Max() {
			return raw, errBankRange
		}
		r, off, err := parseAddr(inner)
		if err != nil {
			return raw, err
		}
		if off < -1<<15 || off >= 1<<15 {
			return raw, errOffsetRange
		}
		return o.f.Set(raw|r<<20|uint64(off)&0xffff<<26, bank), nil
	case opConstNR:
		bank, inner, err := splitConst(s)
		if err != nil {
			return raw, err
		}
		off, ok := parseInt(inner)
		if bank > o.f.Max() || !ok || off < -1<<15 || off >= 1<<15 {
			return raw, errConstRange
		}
		return o.f.Set(raw, bank) | uint64(off)&0xffff<<26, nil
	case opShortTarget:
		t, ok := parseInt(s)
		if !ok {
			a, found := labels(s)
			if !found {
				return raw, errUnknownLabel
			}
			t = int64(a)
		}
		off := int64(int32(uint32(t) - uint32(pc) - 4))
		if off&3 != 0 || off < -1<<15 || off >= 1<<15 || t < 0 || t > 0xffffffff {
			return raw, errTargetRange
		}
		return o.f.Set(raw, uint64(off>>2)), nil
	case opShortSrc:
		if r, ok := parseReg(s); ok {
			return o.f.Set(raw, r), nil
		}
		bank, inner, err := splitConst(s)
		if err != nil {
			return raw, err
		}
		off, ok := parseInt(inner)
		sel := 0
		for i := 1; i < 4; i++ {
			if shortBanks[i] == bank {
				sel = i
			}
		}
		if sel == 0 || !ok || off < 0 || off&3 != 0 || off>>2 > 63 {
			return raw, errConstRange
		}
		return o.f2.Set(o.f.Set(raw, uint64(off>>2)), uint64(sel)), nil
	case opRegOff:
		regText, offText, _ := strings.Cut(s, " ")
		r, ok := parseReg(regText)
		if !ok {
			return raw, errWantReg
		}
		var off int64
		if offText = strings.TrimSpace(offText); offText != "" {
			if off, ok = parseInt(offText); !ok {
				return raw, errAddrOffset
			}
		}
		if w := o.f.Width; off < -(1<<(w-1)) || off >= 1<<(w-1) {
			return raw, errOffsetRange
		}
		return o.f.Set(raw|r<<20, uint64(off)), nil
	case opImm32:
		v, err := parseImm(s, o.flavor, 32)
		if err != nil {
			return raw, err
		}
		return raw | v<<26, nil
	}
	s, d := stripDecorations(s)
	var err error
	if o.bsel != 0 || o.hsel != 0 {
		// ".B1".."B3", ".H1": which byte or half of an 8-/16-bit source
		if n := len(s); n > 3 && s[n-3] == '.' && s[n-1] >= '0' && s[n-1] <= '3' {
			switch {
			case s[n-2] == 'B' && o.bsel != 0:
				raw |= uint64(s[n-1]-'0') << o.bsel
				s = s[:n-3]
			case s[n-2] == 'H' && o.hsel != 0 && s[n-1] <= '1':
				raw |= uint64(s[n-1]-'0') << o.hsel
				s = s[:n-3]
			}
		}
	}
	if raw, err = setBit(raw, o.neg, d.neg, errNegHere); err != nil {
		return raw, err
	}
	if raw, err = setBit(raw, o.not, d.not, errNotHere); err != nil {
		return raw, err
	}
	if raw, err = setBit(raw, o.abs, d.abs, errAbsHere); err != nil {
		return raw, err
	}
	if raw, err = setBit(raw, o.cc, d.cc, errCCHere); err != nil {
		return raw, err
	}
	switch o.kind {
	case opReg:
		r, ok := parseReg(s)
		if !ok {
			return raw, errWantReg
		}
		if o.same {
			if o.f.Get(raw) != r {
				return raw, errSameReg
			}
			return raw, nil
		}
		return o.f.Set(raw, r), nil
	case opB, opB3:
		if st.dialect == Old && o.neg >= 0 && strings.HasPrefix(s, "-0x") {
			// old cuobjdump prints immediates as raw fields, so "-0x.."
			// is the operand's negate bit
			if raw, err = setBit(raw, o.neg, true, errNegHere); err != nil {
				return raw, err
			}
			s = s[1:]
		}
		if r, ok := parseReg(s); ok {
			if o.kind == opB3 {
				st.b3Reg = int(r)
			}
			return raw | r<<26, nil
		}
		if strings.HasPrefix(s, "c") {
			bank, off, err := parseConstOperand(s)
			if err != nil {
				return raw, err
			}
			return raw | 1<<46 | bank<<42 | off<<26, nil
		}
		v, err := parseImm(s, o.flavor, 20)
		if err != nil {
			return raw, err
		}
		return raw | 3<<46 | v<<26, nil
	case opC:
		if r, ok := parseReg(s); ok {
			return raw | r<<49, nil
		}
		if strings.HasPrefix(s, "c") && st.b3Reg >= 0 {
			bank, off, err := parseConstOperand(s)
			if err != nil {
				return raw, err
			}
			// the constant takes the composite field; B3's register moves to 49
			raw &^= 0x3fffff << 26
			return raw | 2<<46 | bank<<42 | off<<26 | uint64(st.b3Reg)<<49, nil
		}
		return raw, errWantRegOrConst
	case opV:
		if strings.HasPrefix(s, "-") && o.neg >= 0 {
			// the immediate is unsigned: "-0x10" is the negate bit
			raw, s = raw|1<<uint(o.neg), s[1:]
		}
		if r, ok := parseReg(s); ok {
			return raw | 1<<47 | r<<26, nil
		}
		v, ok := parseInt(s)
		if !ok || v < 0 || v > 0xffff {
			return raw, errWantRegOrImm16
		}
		// the immediate shares bits 32-34 with the selector vtype wrote
		return raw&^(7<<32) | uint64(v)<<26, nil
	}
	return raw, errOperandKind
}

// parseAddr parses "R2+0x10", "R2+-0x10", "R2-0x10", "R2" or "0x10",
// with blanks allowed around the parts.
func parseAddr(s string) (reg uint64, off int64, err error) {
	s = strings.TrimSpace(s)
	regText, offText, minus := s, "", false
	if i := strings.IndexAny(s, "+-"); i >= 0 {
		regText, offText, minus = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), s[i] == '-'
	}
	if regText == "" || regText[0] != 'R' {
		regText, offText, minus = "RZ", s, false
	}
	r, ok := parseReg(regText)
	if !ok {
		return 0, 0, errAddrReg
	}
	if offText != "" {
		if minus && (offText[0] == '+' || offText[0] == '-') {
			return 0, 0, errAddrOffset
		}
		if off, ok = parseInt(offText); !ok {
			return 0, 0, errAddrOffset
		}
		if minus {
			off = -off
		}
	}
	return r, off, nil
}

// splitConst splits "c [0x1] [R2+0x8]" or "c[0x1][0x8]" into bank and inner text.
func splitConst(s string) (uint64, string, error) {
	if len(s) < 2 || s[0] != 'c' {
		return 0, "", errWantConst
	}
	rest := strings.TrimLeft(s[1:], " ")
	if rest == "" || rest[0] != '[' {
		return 0, "", errWantConst
	}
	close := strings.IndexByte(rest, ']')
	if close < 0 {
		return 0, "", errWantConst
	}
	bank, ok := parseInt(strings.TrimSpace(rest[1:close]))
	if !ok || bank < 0 {
		return 0, "", errConstBank
	}
	rest = strings.TrimLeft(rest[close+1:], " ")
	if len(rest) < 2 || rest[0] != '[' || rest[len(rest)-1] != ']' {
		return 0, "", errWantConst
	}
	return uint64(bank), strings.TrimSpace(rest[1 : len(rest)-1]), nil
}

// parseConstOperand parses the c[bank][offset] variant of a composite operand.
func parseConstOperand(s string) (bank, off uint64, err error) {
	bank, inner, err := splitConst(s)
	if err != nil {
		return 0, 0, err
	}
	v, ok := parseInt(inner)
	if bank > 15 || !ok || v < 0 || v > 0xffff {
		return 0, 0, errConstRange
	}
	return bank, uint64(v), nil
}

// parseImm encodes an immediate of width 20 or 32 bits. Hex numbers are
// taken as written (the old dialect prints raw fields, the new one signed
// integers); decimal floats become the high bits of the IEEE value.
func parseImm(s string, flavor uint8, width int) (uint64, error) {
	if flavor == immF32 || flavor == immF64 {
		if !strings.HasPrefix(strings.TrimLeft(s, "+-"), "0x") {
			return parseFloatImm(s, flavor, width)
		}
	}
	v, ok := parseInt(s)
	if !ok {
		return 0, errWantImm
	}
	if v < -(1<<(width-1)) || v >= 1<<width {
		if width == 32 {
			return 0, errImm32Range
		}
		return 0, errImm20Range
	}
	return uint64(v) & (1<<width - 1), nil
}

func parseFloatImm(s string, flavor uint8, width int) (uint64, error) {
	var f float64
	switch s {
	case "+INF", "INF":
		f = math.Inf(1)
	case "-INF":
		f = math.Inf(-1)
	case "+QNAN", "QNAN":
		f = math.NaN()
	case "-QNAN":
		f = math.Copysign(math.NaN(), -1)
	default:
		bits := 64
		if flavor == immF32 {
			bits = 32
		}
		var err error
		if f, err = strconv.ParseFloat(s, bits); err != nil {
			return 0, errWantNumber
		}
	}
	if flavor == immF64 {
		b := math.Float64bits(f)
		if b&(1<<44-1) != 0 {
			return 0, errDoubleImm
		}
		return b >> 44, nil
	}
	b := uint64(math.Float32bits(float32(f)))
	if math.IsNaN(f) {
		b = 0x7fc00000
		if math.Signbit(f) {
			b |= 1 << 31
		}
	}
	if width == 32 {
		return b, nil
	}
	if b&0xfff != 0 {
		return 0, errFloatImm
	}
	return b >> 12, nil
}
