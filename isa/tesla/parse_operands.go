package tesla

import (
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/asm"
)

// parseReg reads "R12", "R3L" or "R3H" and returns the register field value
// (for halves: register*2 + H).
func parseReg(t asm.Token, half bool) (uint64, bool) {
	s := t.Text
	if t.Kind != asm.Ident || len(s) < 2 || s[0] != 'R' {
		return 0, false
	}
	h := -1
	switch s[len(s)-1] {
	case 'L':
		h = 0
	case 'H':
		h = 1
	}
	num := s[1:]
	if h >= 0 {
		num = s[1 : len(s)-1]
	}
	if half != (h >= 0) {
		return 0, false
	}
	n, ok := parseSmall(num)
	if !ok {
		return 0, false
	}
	if half {
		return n*2 + uint64(h), true
	}
	return n, true
}

// parseSmall reads a decimal number below 256 (what strconv.ParseUint(s,
// 10, 8) accepts), without its generality: register numbers are read for
// every operand.
func parseSmall(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > 255 {
			return 0, false
		}
	}
	return n, true
}

// regOperand reads the register at token i into fld (a method, not a
// closure in parseOperand: captured variables would live in memory there).
func (p *parser) regOperand(i int, st encState, half bool, fld isa.Field) (int, encState, bool) {
	r, ok := parseReg(p.tok(i), half)
	if !ok || r > fld.Max() {
		if half {
			p.fail(p.tok(i).Col, "a 16-bit register (R0L, R0H, ...)")
		} else {
			p.fail(p.tok(i).Col, "a register")
		}
		return i, st, false
	}
	n, ok := st.put(fld, r)
	return i + 1, n, ok
}

// parseNumber reads an optionally negative number; neg reports the '-'.
func (p *parser) parseNumber(i int, allowNeg bool) (uint64, bool, int, bool) {
	t := p.tok(i)
	neg := false
	if allowNeg && t.Text == "-" {
		neg = true
		i++
		t = p.tok(i)
	}
	if t.Kind != asm.Number {
		p.fail(t.Col, "a number")
		return 0, false, i, false
	}
	x, ok := asm.ParseUint(t.Text)
	if !ok {
		p.fail(t.Col, "a hex or decimal integer")
		return 0, false, i, false
	}
	return x, neg, i + 1, true
}

// parseAreg reads "A3" (A0..A15; memory operands take A0..A7).
func parseAreg(t asm.Token) (uint64, bool) {
	if t.Kind != asm.Ident || len(t.Text) < 2 || t.Text[0] != 'A' {
		return 0, false
	}
	n, err := strconv.ParseUint(t.Text[1:], 10, 8)
	if err != nil || n > 15 || t.Text[1] == '+' {
		return 0, false
	}
	return n, true
}

// parseAddr reads "[0x10]", "[A1+0x10]" or "[A1+++0x10]".
func (p *parser) parseAddr(i int) (memRef, int, bool) {
	var m memRef
	if t := p.tok(i); t.Text != "[" {
		p.fail(t.Col, "'['")
		return m, i, false
	}
	i++
	if a, ok := parseAreg(p.tok(i)); ok && a < 8 {
		m.areg = a
		i++
		if p.tok(i).Text != "+" {
			p.fail(p.tok(i).Col, "'+'")
			return m, i, false
		}
		i++
		if p.tok(i).Text == "+" && p.tok(i+1).Text == "+" {
			m.inc = true
			i += 2
		}
	}
	x, _, j, ok := p.parseNumber(i, false)
	if !ok {
		return m, i, false
	}
	m.idx = x
	if t := p.tok(j); t.Text != "]" {
		p.fail(t.Col, "']'")
		return m, j, false
	}
	return m, j + 1, true
}

// parseTypeSuffix reads an optional ".U8", ".U16" or ".S16" after a memory operand.
func (p *parser) parseTypeSuffix(i int) (uint64, int) {
	switch p.tok(i).Text {
	case ".U8":
		return 0, i + 1
	case ".U16":
		return 1, i + 1
	case ".S16":
		return 2, i + 1
	}
	return 3, i
}

// fv is one field assignment.
type fv struct {
	f isa.Field
	x uint64
}

// putAll applies field assignments in order, failing on the first conflict.
func putAll(st encState, kv ...fv) (encState, bool) {
	ok := true
	for k := 0; k < len(kv) && ok; k++ {
		st, ok = st.put(kv[k].f, kv[k].x)
	}
	return st, ok
}

func (p *parser) putAreg(st encState, c Class, m memRef) (encState, bool) {
	inc := uint64(0)
	if m.inc {
		inc = 1
	}
	if c == ClassLong {
		return putAll(st, fv{f_alo, m.areg & 3}, fv{f_ahi, m.areg >> 2}, fv{f_ainc, inc})
	}
	if m.areg > 3 {
		return st, false
	}
	return putAll(st, fv{f_salo, m.areg}, fv{f_sainc, inc})
}

// parseConst reads "c [bank] [addr]" with an optional type suffix.
func (p *parser) parseConst(i int) (bank uint64, m memRef, j int, ok bool) {
	if t := p.tok(i); t.Text != "c" {
		p.fail(t.Col, "c[]")
		return 0, m, i, false
	}
	i++
	if p.tok(i).Text != "[" {
		p.fail(p.tok(i).Col, "'['")
		return 0, m, i, false
	}
	bank, _, i, ok = p.parseNumber(i+1, false)
	if !ok {
		return 0, m, i, false
	}
	if p.tok(i).Text != "]" {
		p.fail(p.tok(i).Col, "']'")
		return 0, m, i, false
	}
	m, i, ok = p.parseAddr(i + 1)
	if !ok {
		return 0, m, i, false
	}
	m.typ, i = p.parseTypeSuffix(i)
	return bank, m, i, true
}

// parseOperand reads one operand of the kind the piece names.
func (p *parser) parseOperand(c Class, pc *piece, i int, st encState) (int, encState, bool) {
	t := p.tok(i)
	half := pc.half
	if pc.wide && t.Kind == asm.Ident && len(t.Text) > 1 && t.Text[0] == 'R' {
		// a register's spelling (R1 or R1L) decides the width bit
		_, half = parseReg(t, true)
		x := uint64(1)
		if half {
			x = 0
		}
		var ok bool
		if st, ok = st.put(isa.Field{Pos: pc.field.Pos, Width: 1}, x); !ok {
			p.fail(t.Col, "a register of the instruction's width")
			return i, st, false
		}
	}
	if pc.wide && !(t.Kind == asm.Ident && len(t.Text) > 1 && t.Text[0] == 'R') {
		half = pc.field.Get(st.v)&1 == 0
	}
	switch pc.opnd {
	case opnd_dst:
		if c == ClassLong {
			if t.Text == "o" {
				m, j, ok := p.parseAddr(i + 1)
				if !ok || m.areg != 0 || m.idx > 0x7f {
					p.fail(t.Col, "o [0x0..0x7f]")
					return i, st, false
				}
				n, ok := putAll(st, fv{f_odst, 1}, fv{f_dst, m.idx})
				return j, n, ok
			}
			n, ok := st.put(f_odst, 0)
			if !ok {
				return i, st, false
			}
			st = n
			return p.regOperand(i, st, half, f_dst)
		}
		return p.regOperand(i, st, half, f_sdst)
	case opnd_s1:
		if t.Text == "g" {
			m, j, ok := p.parseAddr(i + 1)
			if !ok {
				return i, st, false
			}
			m.typ, j = p.parseTypeSuffix(j)
			if c == ClassLong {
				if m.idx > 0x1f {
					p.fail(t.Col, "a g[] index of at most 0x1f")
					return i, st, false
				}
				n, ok := putAll(st, fv{f_sh, 1}, fv{f_s1, m.typ<<5 | m.idx})
				if ok {
					n, ok = p.putAreg(n, c, m)
				}
				return j, n, ok
			}
			if m.idx > 0xf {
				p.fail(t.Col, "a g[] index of at most 0xf in a short instruction")
				return i, st, false
			}
			n, ok := putAll(st, fv{f_ssh, 1}, fv{f_ss1, m.typ<<4 | m.idx})
			if ok {
				n, ok = p.putAreg(n, c, m)
			}
			return j, n, ok
		}
		if c == ClassLong {
			n, ok := st.put(f_sh, 0)
			if !ok {
				return i, st, false
			}
			st = n
			return p.regOperand(i, st, half, f_s1)
		}
		n, ok := st.put(f_ssh, 0)
		if !ok {
			return i, st, false
		}
		st = n
		return p.regOperand(i, st, half, f_ss1)
	case opnd_s2, opnd_s3:
		if c == ClassImm {
			return p.parseImm(i, st, false)
		}
		if t.Text == "c" {
			bank, m, j, ok := p.parseConst(i)
			if !ok {
				return i, st, false
			}
			if m.typ != 3 {
				p.fail(t.Col, "a 32-bit c[] operand")
				return i, st, false
			}
			if c == ClassShort {
				if bank != 0 || m.areg != 0 || m.idx > 0x3f {
					p.fail(t.Col, "c [0x0] [0x0..0x3f] in a short instruction")
					return i, st, false
				}
				n, ok := putAll(st, fv{f_sc2, 1}, fv{f_ss2, m.idx})
				return j, n, ok
			}
			sel, idx := f_c2, f_s2
			if pc.opnd == opnd_s3 {
				sel, idx = f_c3, f_s3
			}
			if m.idx > 0x7f {
				p.fail(t.Col, "a c[] index of at most 0x7f")
				return i, st, false
			}
			n, ok := putAll(st, fv{sel, 1}, fv{idx, m.idx}, fv{f_bank, bank})
			if ok && (m.areg != 0 || m.inc) {
				n, ok = p.putAreg(n, c, m)
			}
			return j, n, ok
		}
		switch {
		case c == ClassShort:
			n, ok := st.put(f_sc2, 0)
			if !ok {
				return i, st, false
			}
			st = n
			return p.regOperand(i, st, half, f_ss2)
		case pc.opnd == opnd_s2:
			n, ok := st.put(f_c2, 0)
			if !ok {
				return i, st, false
			}
			st = n
			return p.regOperand(i, st, half, f_s2)
		}
		n, ok := st.put(f_c3, 0)
		if !ok {
			return i, st, false
		}
		st = n
		return p.regOperand(i, st, half, f_s3)
	case opnd_s3r:
		return p.regOperand(i, st, half, f_s3)
	case opnd_omem:
		if t.Text != "o" {
			p.fail(t.Col, "o[An+offset]")
			return i, st, false
		}
		m, j, ok := p.parseAddr(i + 1)
		if !ok || m.inc || m.idx > f_saddr.Max() {
			p.fail(t.Col, "o[An+offset]")
			return i, st, false
		}
		n, ok := putAll(st, fv{f_saddr, m.idx}, fv{f_alo, m.areg & 3}, fv{f_ahi, m.areg >> 2})
		return j, n, ok
	case opnd_bxmem:
		bank, m, j, ok := p.parseConst(i)
		if !ok || m.inc || m.typ != 3 || m.idx > f_bxoff.Max() {
			p.fail(t.Col, "c[bank][An+offset]")
			return i, st, false
		}
		n, ok := putAll(st, fv{f_bank, bank}, fv{f_bxoff, m.idx}, fv{f_alo, m.areg & 3}, fv{f_ahi, m.areg >> 2})
		return j, n, ok
	case opnd_amem, opnd_vmem:
		want, fld := "a", f_s1
		if pc.opnd == opnd_vmem {
			want, fld = "v", f_vidx
		}
		if t.Text != want {
			p.fail(t.Col, want+"[An+offset]")
			return i, st, false
		}
		m, j, ok := p.parseAddr(i + 1)
		if !ok || m.inc || m.idx > fld.Max() {
			p.fail(t.Col, want+"[An+offset]")
			return i, st, false
		}
		n, ok := putAll(st, fv{fld, m.idx}, fv{f_alo, m.areg & 3}, fv{f_ahi, m.areg >> 2})
		return j, n, ok
	case opnd_texmask:
		x, _, j, ok := p.parseNumber(i, false)
		if !ok || x > 0xf {
			p.fail(t.Col, "a write mask 0x0..0xf")
			return i, st, false
		}
		n, ok := putAll(st, fv{f_tmlo, x & 3}, fv{f_tmhi, x >> 2})
		return j, n, ok
	case opnd_s1r:
		return p.regOperand(i, st, half, f_s1)
	case opnd_s2r:
		return p.regOperand(i, st, half, f_s2)
	case opnd_rdst:
		return p.regOperand(i, st, half, f_dst)
	case opnd_imm:
		return p.parseImm(i, st, false)
	case opnd_imms:
		return p.parseImm(i, st, true)
	case opnd_shc:
		x, _, j, ok := p.parseNumber(i, false)
		if !ok || x > f_s2.Max() {
			p.fail(t.Col, "a shift count 0x0..0x7f")
			return i, st, false
		}
		n, ok := st.put(f_s2, x)
		return j, n, ok
	case opnd_guard, opnd_cguard:
		if t.Text != "(" {
			if pc.opnd == opnd_cguard {
				p.fail(t.Col, "the carry register (C0..C3)")
				return i, st, false
			}
			n, ok := putAll(st, fv{f_cond, condAlways}, fv{f_pr, 0})
			return i, n, ok
		}
		reg, cond, ok := parseCond(p.tok(i + 1))
		if pc.opnd == opnd_cguard {
			ct := p.tok(i + 1).Text
			ok = len(ct) == 2 && ct[0] == 'C' && ct[1] >= '0' && ct[1] <= '3'
			if ok {
				reg, cond = uint64(ct[1]-'0'), condAlways
			}
		}
		if !ok || p.tok(i+2).Text != ")" {
			p.fail(p.tok(i+1).Col, "a condition such as (C0.NE)")
			return i, st, false
		}
		if pc.opnd == opnd_cguard {
			reg = (reg + 3) & 3
		}
		n, ok := putAll(st, fv{f_cond, cond}, fv{f_pr, reg})
		return i + 3, n, ok
	case opnd_fcond, opnd_fcond0:
		reg, cond, ok := parseCond(t)
		if !ok {
			n, ok := putAll(st, fv{f_cond, condAlways}, fv{f_pr, 0})
			return i, n, ok
		}
		j := i + 1
		if pc.opnd == opnd_fcond {
			if p.tok(j).Text != "," {
				p.fail(p.tok(j).Col, "','")
				return i, st, false
			}
			j++
		}
		n, ok := putAll(st, fv{f_cond, cond}, fv{f_pr, reg})
		return j, n, ok
	case opnd_tgt:
		if t.Kind == asm.Ident {
			p.label = t.Text
			return i + 1, st, true
		}
		x, _, j, ok := p.parseNumber(i, false)
		if !ok || x >= 1<<25 || c == ClassFlow32 && x > f_tgt.Max() {
			p.fail(t.Col, "a branch target (address or label)")
			return i, st, false
		}
		if c == ClassFlow32 {
			n, ok := st.put(f_tgt, x)
			return j, n, ok
		}
		n, ok := putAll(st, fv{f_tgt, x & f_tgt.Max()}, fv{f_tgthi, x >> 19})
		return j, n, ok
	case opnd_gmem, opnd_gred, opnd_gatom:
		segf := f_s2
		switch pc.opnd {
		case opnd_gred:
			segf = f_gseg
		case opnd_gatom:
			segf = f_gseg2
		}
		if !strings.HasPrefix(t.Text, "global") {
			p.fail(t.Col, "global<N> [Rn]")
			return i, st, false
		}
		seg, err := strconv.ParseUint(t.Text[6:], 10, 8)
		if err != nil || seg > segf.Max() {
			p.fail(t.Col, "a global segment number")
			return i, st, false
		}
		r, ok := parseReg(p.tok(i+2), false)
		if p.tok(i+1).Text != "[" || !ok || r > 0x7f || p.tok(i+3).Text != "]" {
			p.fail(p.tok(i+1).Col, "[Rn]")
			return i, st, false
		}
		n, ok := putAll(st, fv{f_s1, r}, fv{segf, seg})
		return i + 4, n, ok
	case opnd_hex:
		x, _, j, ok := p.parseNumber(i, false)
		if !ok || x > pc.field.Max() {
			p.fail(t.Col, "a number that fits the field")
			return i, st, false
		}
		n, ok := st.put(pc.field, x)
		return j, n, ok
	case opnd_lmem, opnd_smemw:
		want := "g"
		if pc.opnd == opnd_lmem {
			want = "local"
		}
		if t.Text != want {
			p.fail(t.Col, want+" [An+offset]")
			return i, st, false
		}
		m, j, ok := p.parseAddr(i + 1)
		if !ok || m.idx > f_saddr.Max() {
			p.fail(t.Col, want+" [An+offset]")
			return i, st, false
		}
		n, ok := putAll(st, fv{f_saddr, m.idx})
		if ok {
			n, ok = p.putAreg(n, c, m)
		}
		return j, n, ok
	case opnd_cmem:
		bank, m, j, ok := p.parseConst(i)
		if !ok || m.idx > f_saddr.Max() {
			return i, st, false
		}
		n, ok := putAll(st, fv{f_bank, bank}, fv{f_saddr, m.idx}, fv{f_ctype, m.typ})
		if ok {
			n, ok = p.putAreg(n, c, m)
		}
		return j, n, ok
	case opnd_adst, opnd_asrc:
		a, ok := parseAreg(t)
		if !ok {
			p.fail(t.Col, "an address register A0..A7")
			return i, st, false
		}
		var n encState
		if pc.opnd == opnd_adst {
			n, ok = st.put(f_dst, a)
		} else if a > 7 {
			p.fail(t.Col, "an address register A0..A7")
			return i, st, false
		} else {
			n, ok = putAll(st, fv{f_alo, a & 3}, fv{f_ahi, a >> 2})
		}
		return i + 1, n, ok
	case opnd_adaimm:
		x, _, j, ok := p.parseNumber(i, false)
		if !ok || x > f_adaimm.Max() {
			p.fail(t.Col, "an offset 0x0..0xffff")
			return i, st, false
		}
		n, ok := st.put(f_adaimm, x)
		return j, n, ok
	case opnd_r2ash:
		if t.Text != "," {
			n, ok := st.put(f_s2, 0)
			return i, n, ok
		}
		x, _, j, ok := p.parseNumber(i+1, false)
		if !ok || x == 0 || x > f_s2.Max() {
			p.fail(p.tok(i+1).Col, "a shift count 0x1..0x7f")
			return i, st, false
		}
		n, ok := st.put(f_s2, x)
		return j, n, ok
	case opnd_sreg, opnd_creg, opnd_cdst, opnd_bar:
		prefix, fld := "SR", f_sreg
		switch pc.opnd {
		case opnd_creg:
			prefix, fld = "C", f_pr
		case opnd_cdst:
			prefix, fld = "C", f_ccr
		case opnd_bar:
			prefix, fld = "b", f_barid
		}
		if !strings.HasPrefix(t.Text, prefix) {
			p.fail(t.Col, prefix+"<n>")
			return i, st, false
		}
		x, err := strconv.ParseUint(t.Text[len(prefix):], 10, 8)
		if err != nil || x > fld.Max() {
			p.fail(t.Col, prefix+"<n>")
			return i, st, false
		}
		n, ok := st.put(fld, x)
		return i + 1, n, ok
	case opnd_barcnt:
		x, _, j, ok := p.parseNumber(i, false)
		if !ok || x > f_barcnt.Max() {
			p.fail(t.Col, "a thread count 0x0..0xfff")
			return i, st, false
		}
		n, ok := st.put(f_barcnt, x)
		return j, n, ok
	}
	p.fail(t.Col, "operand")
	return i, st, false
}

// parseImm reads a 32-bit immediate; signed allows a leading '-'.
func (p *parser) parseImm(i int, st encState, signed bool) (int, encState, bool) {
	t := p.tok(i)
	x, neg, j, ok := p.parseNumber(i, signed)
	if !ok {
		return i, st, false
	}
	if neg {
		if x == 0 || x > 1<<31 {
			p.fail(t.Col, "an immediate between -0x80000000 and 0xffffffff")
			return i, st, false
		}
		x = 1<<32 - x
	}
	if x > 0xffffffff {
		p.fail(t.Col, "a 32-bit immediate")
		return i, st, false
	}
	n, ok := putAll(st, fv{f_immlo, x & 0x3f}, fv{f_immhi, x >> 6})
	return j, n, ok
}

// parseCond reads "C2.NE" and returns the register and the condition number.
func parseCond(t asm.Token) (reg, cond uint64, ok bool) {
	s := t.Text
	if t.Kind != asm.Ident || len(s) < 4 || s[0] != 'C' || s[1] < '0' || s[1] > '3' || s[2] != '.' {
		return 0, 0, false
	}
	name := s[3:]
	for k, n := range condNames {
		if n == name {
			return uint64(s[1] - '0'), uint64(k), true
		}
	}
	return 0, 0, false
}
