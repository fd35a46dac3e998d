package fermi

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Operand parsing: the inverse of appendOperand in print.go.

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
	if len(s) < 2 || s[0] != 'R' {
		return 0, false
	}
	v, err := strconv.ParseUint(s[1:], 10, 8)
	if err != nil || v > 63 {
		return 0, false
	}
	return v, true
}

// parseInt parses [-]0x.. or [-]decimal.
func parseInt(s string) (int64, bool) {
	s = strings.TrimPrefix(s, "+")
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	var v uint64
	var err error
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		v, err = strconv.ParseUint(s[2:], 16, 64)
	} else {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil || v > 1<<63 {
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

func setBit(raw uint64, b int8, on bool, what string) (uint64, error) {
	if !on {
		return raw, nil
	}
	if b < 0 {
		return raw, fmt.Errorf("%s not allowed here", what)
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
			return raw, fmt.Errorf("want a predicate")
		}
		raw = o.setValue(raw, p)
		return setBit(raw, o.not, not, "!")
	case opEnum:
		for v, e := range tables[o.table] {
			if e == s && e != "?" {
				return o.f.Set(raw, uint64(v)), nil
			}
		}
		return raw, fmt.Errorf("unknown value")
	case opLit:
		if s != o.text {
			return raw, fmt.Errorf("want %s", o.text)
		}
		return raw, nil
	case opCC, opNopCC:
		for v, e := range tables[tblCc] {
			if "CC."+e == s {
				return o.f.Set(raw, uint64(v)), nil
			}
		}
		return raw, fmt.Errorf("unknown condition code")
	case opHex:
		v, ok := parseInt(s)
		if !ok || v < 0 || uint64(v) > o.f.Max() {
			return raw, fmt.Errorf("want an unsigned value of %d bits", o.f.Width)
		}
		return o.f.Set(raw, uint64(v)), nil
	case opTarget:
		t, ok := parseInt(s)
		if !ok {
			a, found := labels(s)
			if !found {
				return raw, fmt.Errorf("unknown label or bad address")
			}
			t = int64(a)
		}
		// addresses wrap at 32 bits, as the printer shows them
		off := int64(int32(uint32(t) - uint32(pc) - 8))
		if off < -1<<23 || off >= 1<<23 || t < 0 || t > 0xffffffff {
			return raw, fmt.Errorf("branch target out of range")
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
		return raw, fmt.Errorf("unknown special register")
	case opMem:
		if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
			return raw, fmt.Errorf("want [Rx+offset]")
		}
		r, off, err := parseAddr(s[1 : len(s)-1])
		if err != nil {
			return raw, err
		}
		if w := o.f.Width + o.f2.Width; off < -(1<<(w-1)) || off >= 1<<(w-1) {
			return raw, fmt.Errorf("offset out of range")
		}
		return o.setMemOffset(raw|r<<20, off), nil
	case opConst, opConstX:
		bank, inner, err := splitConst(s)
		if err != nil {
			return raw, err
		}
		if bank > o.f.Max() {
			return raw, fmt.Errorf("constant bank out of range")
		}
		r, off, err := parseAddr(inner)
		if err != nil {
			return raw, err
		}
		if off < -1<<15 || off >= 1<<15 {
			return raw, fmt.Errorf("offset out of range")
		}
		return o.f.Set(raw|r<<20|uint64(off)&0xffff<<26, bank), nil
	case opImm32:
		v, err := parseImm(s, o.flavor, 32)
		if err != nil {
			return raw, err
		}
		return raw | v<<26, nil
	}
	s, d := stripDecorations(s)
	var err error
	if raw, err = setBit(raw, o.neg, d.neg, "-"); err != nil {
		return raw, err
	}
	if raw, err = setBit(raw, o.not, d.not, "~"); err != nil {
		return raw, err
	}
	if raw, err = setBit(raw, o.abs, d.abs, "|..|"); err != nil {
		return raw, err
	}
	if raw, err = setBit(raw, o.cc, d.cc, ".CC"); err != nil {
		return raw, err
	}
	switch o.kind {
	case opReg:
		r, ok := parseReg(s)
		if !ok {
			return raw, fmt.Errorf("want a register")
		}
		if o.same {
			if o.f.Get(raw) != r {
				return raw, fmt.Errorf("must be the same register as the destination")
			}
			return raw, nil
		}
		return o.f.Set(raw, r), nil
	case opB, opB3:
		if st.dialect == Old && o.neg >= 0 && strings.HasPrefix(s, "-0x") {
			// old cuobjdump prints immediates as raw fields, so "-0x.."
			// is the operand's negate bit
			if raw, err = setBit(raw, o.neg, true, "-"); err != nil {
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
		return raw, fmt.Errorf("want a register, or c[][] after a register")
	case opV:
		if r, ok := parseReg(s); ok {
			return raw | 1<<47 | r<<26, nil
		}
		v, ok := parseInt(s)
		if !ok || v < 0 || v > 0xffff {
			return raw, fmt.Errorf("want a register or a 16-bit immediate")
		}
		// the immediate shares bits 32-34 with the selector vtype wrote
		return raw&^(7<<32) | uint64(v)<<26, nil
	}
	return raw, fmt.Errorf("cannot parse operand kind %d", o.kind)
}

// parseAddr parses "R2+0x10", "R2+-0x10", "R2-0x10", "R2" or "0x10".
func parseAddr(s string) (reg uint64, off int64, err error) {
	s = strings.ReplaceAll(s, " ", "")
	regText, offText := s, ""
	if i := strings.IndexAny(s, "+-"); i >= 0 {
		regText, offText = s[:i], s[i:]
		offText = strings.TrimPrefix(offText, "+")
	}
	if regText == "" || regText[0] != 'R' {
		regText, offText = "RZ", s
	}
	r, ok := parseReg(regText)
	if !ok {
		return 0, 0, fmt.Errorf("bad address register %q", regText)
	}
	if offText != "" {
		if off, ok = parseInt(offText); !ok {
			return 0, 0, fmt.Errorf("bad address offset %q", offText)
		}
	}
	return r, off, nil
}

// splitConst splits "c [0x1] [R2+0x8]" or "c[0x1][0x8]" into bank and inner text.
func splitConst(s string) (uint64, string, error) {
	s = strings.ReplaceAll(s, " ", "")
	if !strings.HasPrefix(s, "c[") {
		return 0, "", fmt.Errorf("want c[bank][offset]")
	}
	i := strings.Index(s, "][")
	if i < 0 || !strings.HasSuffix(s, "]") {
		return 0, "", fmt.Errorf("want c[bank][offset]")
	}
	bank, ok := parseInt(s[2:i])
	if !ok || bank < 0 {
		return 0, "", fmt.Errorf("bad constant bank")
	}
	return uint64(bank), s[i+2 : len(s)-1], nil
}

// parseConstOperand parses the c[bank][offset] variant of a composite operand.
func parseConstOperand(s string) (bank, off uint64, err error) {
	bank, inner, err := splitConst(s)
	if err != nil {
		return 0, 0, err
	}
	v, ok := parseInt(inner)
	if bank > 15 || !ok || v < 0 || v > 0xffff {
		return 0, 0, fmt.Errorf("constant bank or offset out of range")
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
		return 0, fmt.Errorf("want an immediate")
	}
	if v < -(1<<(width-1)) || v >= 1<<width {
		return 0, fmt.Errorf("immediate does not fit in %d bits", width)
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
			return 0, fmt.Errorf("want a number")
		}
	}
	if flavor == immF64 {
		b := math.Float64bits(f)
		if b&(1<<44-1) != 0 {
			return 0, fmt.Errorf("double immediate needs more than 20 bits")
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
		return 0, fmt.Errorf("float immediate needs more than 20 bits")
	}
	return b >> 12, nil
}
