package maxwell

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// Diagnostics: when no form matches a text, say why. The matcher itself
// only knows that nothing matched; these functions look at the text again,
// piece by piece (guard, mnemonic, modifiers, operands), against what the
// spec's forms accept, and name the first piece no form takes. They run only
// on the error path.

// diagnosis is the reason a text does not assemble and where (a 0-based
// byte offset into the text).
type diagnosis struct {
	off int
	msg string
}

// explainFailure says why text does not assemble at pc.
func explainFailure(text string, pc uint64, sm int, resolve Resolver, err error) diagnosis {
	d := diagnose(text, pc, sm, resolve)
	if d.msg == "" {
		d.msg = err.Error() + ": " + text
	}
	return d
}

// diagnose finds the first piece of text no form accepts ("" when it finds
// none).
func diagnose(text string, pc uint64, sm int, resolve Resolver) diagnosis {
	s := strings.TrimRight(strings.TrimSpace(text), ";")
	s = strings.TrimSpace(s)
	off := strings.Index(text, s)
	// the guard
	if strings.HasPrefix(s, "@") {
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return diagnosis{off, "a guard predicate with no instruction"}
		}
		g := strings.TrimPrefix(s[1:end], "!")
		if _, n, ok := parsePred([]byte(g)); !ok || n != len(g) {
			return diagnosis{off, fmt.Sprintf("bad guard predicate %s: want P0..P6 or PT, ! to negate", s[:end])}
		}
		rest := strings.TrimLeft(s[end:], " \t")
		off += len(s) - len(rest)
		s = rest
	}
	// the mnemonic and its modifiers
	word := s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		word = s[:i]
	}
	name, mods, _ := strings.Cut(word, ".")
	if mods != "" {
		mods = "." + mods
	}
	cands := availableForms(name, sm)
	if len(cands) == 0 {
		if _, ok := formsByName()[name]; ok {
			return diagnosis{off, fmt.Sprintf("%s does not exist on sm_%d", name, sm)}
		}
		return diagnosis{off, fmt.Sprintf("unknown mnemonic %s%s", name, closestNames(name))}
	}
	if d := checkModifiers(name, mods, cands); d.msg != "" {
		return diagnosis{off + len(name) + d.off, d.msg}
	}
	// the operands
	opsOff := off + len(word)
	ops := strings.TrimLeft(s[len(word):], " \t")
	opsOff += len(s[len(word):]) - len(ops)
	for _, o := range splitOperands(ops) {
		if d := checkOperand(o.text, cands, resolve); d.msg != "" {
			return diagnosis{opsOff + o.off + d.off, d.msg}
		}
	}
	if d := checkImmediates(text, ops, opsOff, pc, sm, resolve); d.msg != "" {
		return d
	}
	if d := checkFloats(name, text, ops, opsOff, pc, sm, resolve); d.msg != "" {
		return d
	}
	return diagnosis{opsOff, fmt.Sprintf("no form of %s takes these operands; its forms: %s", name, formShapes(cands))}
}

// availableForms lists the forms of a mnemonic that exist on sm.
func availableForms(name string, sm int) []uint16 {
	var out []uint16
	for _, fi := range formsByName()[name] {
		f := &forms[fi]
		if f.attrs&attrBad != 0 || f.attrs&(attrSM52|attrSM50) != 0 && (sm >= 52) != (f.attrs&attrSM52 != 0) {
			continue
		}
		out = append(out, fi)
	}
	return out
}

// closestNames suggests up to three mnemonics near name.
func closestNames(name string) string {
	return asm.Closest(name, mnemonics())
}

// mnemonics are formsByName's keys, listed once (not per unknown mnemonic),
// when a diagnosis first needs them.
var mnemonics = sync.OnceValue(func() []string { return slices.Collect(maps.Keys(formsByName())) })

// modSlot is one place a modifier can stand in a form's mnemonic: the texts
// it can print there.
type modSlot []string

// modSlots lists the modifier slots of a form's mnemonic part (the tokens
// before the first blank), in order; the mnemonic's own extra text (LDS's
// ".U") counts as a slot of one text.
func modSlots(f *form) []modSlot {
	var slots []modSlot
	for k, t := range f.toks {
		switch t.kind {
		case tkLit:
			if k == 0 {
				if _, rest, ok := strings.Cut(t.text, "."); ok {
					slots = append(slots, modSlot{"." + rest})
				}
				continue
			}
			if strings.ContainsAny(t.text, " ,") {
				return slots
			}
			slots = append(slots, modSlot{t.text})
		case tkFlag:
			slots = append(slots, modSlot{t.text})
		case tkTable:
			var s modSlot
			for v, e := range tables[t.arg].entries {
				if e != "" && tables[t.arg].kinds[v] == 0 && strings.HasPrefix(e, ".") {
					s = append(s, e)
				}
			}
			slots = append(slots, s)
		case tkPhase:
			slots = append(slots, modSlot{".T", ".P"})
		case tkGroup:
		default:
			return slots
		}
	}
	return slots
}

// checkModifiers finds the first modifier of mods (".X.SAT", offsets from
// the dot after the name) that no form of the mnemonic takes, or that
// stands where none takes it.
func checkModifiers(name, mods string, cands []uint16) diagnosis {
	if mods == "" {
		return diagnosis{}
	}
	known := map[string]bool{}
	for _, fi := range cands {
		for _, s := range modSlots(&forms[fi]) {
			for _, t := range s {
				known[t] = true
			}
		}
	}
	// split greedily into known texts (some hold dots: .U32.U32, .LL.DC)
	var parts []string
	var offs []int
	for p := 0; p < len(mods); {
		best := ""
		for t := range known {
			if strings.HasPrefix(mods[p:], t) && len(t) > len(best) && (p+len(t) == len(mods) || mods[p+len(t)] == '.') {
				best = t
			}
		}
		if best == "" {
			end := strings.IndexByte(mods[p+1:], '.')
			if end < 0 {
				end = len(mods) - p - 1
			}
			return diagnosis{p, fmt.Sprintf("unknown modifier %s for %s (it takes %s)", mods[p:p+1+end], name, strings.Join(sortedKeys(known), " "))}
		}
		parts, offs = append(parts, best), append(offs, p)
		p += len(best)
	}
	// every modifier is known: does some form take them in this order?
	bestAt := -1
	var order []string
	for _, fi := range cands {
		slots := modSlots(&forms[fi])
		i := 0
		for si := 0; si < len(slots) && i < len(parts); si++ {
			for _, t := range slots[si] {
				if t == parts[i] {
					i++
					break
				}
			}
		}
		if i == len(parts) {
			return diagnosis{}
		}
		if i > bestAt {
			bestAt = i
			order = nil
			for _, s := range slots {
				order = append(order, strings.Join(s, "|"))
			}
		}
	}
	return diagnosis{offs[bestAt], fmt.Sprintf("modifier %s is misplaced or does not go with the others: %s takes them in the order %s", parts[bestAt], name, strings.Join(order, " "))}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// operand is one comma-separated operand of a text and its offset.
type operand struct {
	text string
	off  int
}

// splitOperands splits at the commas outside brackets and braces.
func splitOperands(s string) []operand {
	var out []operand
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '[', '{', '(':
				depth++
				continue
			case ']', '}', ')':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		t := s[start:i]
		lead := len(t) - len(strings.TrimLeft(t, " \t"))
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, operand{t, start + lead})
		}
		start = i + 1
	}
	return out
}

// checkOperand looks at one operand for registers and predicates out of
// range and labels that name nothing.
func checkOperand(o string, cands []uint16, resolve Resolver) diagnosis {
	for i := 0; i < len(o); i++ {
		if i > 0 && isNameChar(o[i-1]) {
			continue
		}
		rest := o[i:]
		switch {
		case len(rest) > 1 && rest[0] == 'R' && rest[1] >= '0' && rest[1] <= '9':
			n := 1
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			if n < len(rest) && isNameChar(rest[n]) {
				continue // a name such as R2D2
			}
			if v, err := strconv.Atoi(rest[1:n]); err != nil || v > 254 {
				return diagnosis{i, fmt.Sprintf("register %s out of range (R0..R254, or RZ)", rest[:n])}
			}
		case len(rest) > 1 && rest[0] == 'P' && rest[1] >= '0' && rest[1] <= '9':
			n := 1
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			if n < len(rest) && isNameChar(rest[n]) {
				continue
			}
			if v, err := strconv.Atoi(rest[1:n]); err != nil || v > 6 {
				return diagnosis{i, fmt.Sprintf("predicate %s out of range (P0..P6, or PT)", rest[:n])}
			}
		}
	}
	// a branch target given as a label
	pcrel := false
	for _, fi := range cands {
		pcrel = pcrel || forms[fi].attrs&attrPCRel != 0
	}
	if pcrel && !startsNumber(o) && !strings.HasPrefix(o, "c[") && !strings.HasPrefix(o, "CC.") {
		name, n := parseLabel([]byte(o))
		if n > 0 && n == len(o) {
			if resolve == nil {
				return diagnosis{0, fmt.Sprintf("undefined label %s (labels need a listing, not one line)", name)}
			}
			if _, ok := resolve(string(name)); !ok {
				return diagnosis{0, fmt.Sprintf("undefined label %s", name)}
			}
		}
	}
	return diagnosis{}
}

func startsNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 0 && s[0] >= '0' && s[0] <= '9'
}

// number is a numeric operand (or address offset) found in an operand list.
type number struct {
	start, end int // in the operand list
	value      int64
}

// numbers finds the integers of an operand list: whole operands and the
// offsets of [R1+0x10] and c[0x0][0x10].
func numbers(ops string) []number {
	var out []number
	for i := 0; i < len(ops); i++ {
		c := ops[i]
		if c < '0' || c > '9' || i > 0 && (isNameChar(ops[i-1]) || ops[i-1] == '.') {
			continue
		}
		start := i
		if i > 0 && ops[i-1] == '-' {
			start = i - 1
		}
		v, n, ok := parseInt([]byte(ops[start:]))
		if !ok {
			continue
		}
		end := start + n
		if end < len(ops) && (ops[end] == '.' && end+1 < len(ops) && ops[end+1] >= '0' && ops[end+1] <= '9' || ops[end] == 'e') {
			i = end // a float
			continue
		}
		out = append(out, number{start, end, v})
		i = end - 1
	}
	return out
}

// checkImmediates finds a number whose value the forms cannot hold: with
// zero in its place the text assembles, so the value is the problem. It
// reports the range the field takes.
func checkImmediates(text, ops string, opsOff int, pc uint64, sm int, resolve Resolver) diagnosis {
	head := text[:opsOff]
	tail := text[opsOff+len(ops):]
	try := func(n number, v int64) bool {
		s := head + ops[:n.start] + formatInt(v) + ops[n.end:] + tail
		_, _, err := EncodeText(s, pc, sm, resolve)
		return err == nil
	}
	for _, n := range numbers(ops) {
		// the field's step: the smallest power of two it takes (an address
		// offset of 0 prints as nothing, so it may not come back)
		align := int64(0)
		for a := int64(1); a <= 16; a *= 2 {
			if try(n, a) {
				align = a
				break
			}
		}
		if align == 0 {
			continue
		}
		ok := func(k int64) bool { return k == 0 || try(n, k*align) }
		hi := searchLimit(ok, 1) * align
		lo := searchLimit(ok, -1) * align
		if n.value < lo || n.value > hi {
			return diagnosis{opsOff + n.start, fmt.Sprintf("immediate %s out of range: this field takes %s..%s", ops[n.start:n.end], formatInt(lo), formatInt(hi))}
		}
		if n.value%align != 0 {
			return diagnosis{opsOff + n.start, fmt.Sprintf("%s must be a multiple of %d here", ops[n.start:n.end], align)}
		}
	}
	return diagnosis{}
}

// checkFloats finds a float immediate the forms cannot hold exactly: with
// 1.0 in its place the text assembles.
func checkFloats(name, text, ops string, opsOff int, pc uint64, sm int, resolve Resolver) diagnosis {
	for _, o := range splitOperands(ops) {
		t := strings.TrimLeft(strings.TrimSuffix(strings.TrimSuffix(o.text, ".NEG"), ".ABS"), "-|")
		t = strings.TrimRight(t, "|")
		if !strings.ContainsAny(t, ".e") || !startsNumber(t) {
			continue
		}
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			continue
		}
		at := strings.Index(o.text, t)
		s := text[:opsOff+o.off+at] + "1" + text[opsOff+o.off+at+len(t):]
		if _, _, err := EncodeText(s, pc, sm, resolve); err != nil {
			continue
		}
		hint := ""
		if _, ok := formsByName()[name+"32I"]; ok {
			hint = "; " + name + "32I takes a whole float32"
		}
		return diagnosis{opsOff + o.off + at, fmt.Sprintf("float %s is not exact in this form's immediate (a 20-bit field keeps only the high bits of the float)%s", t, hint)}
	}
	return diagnosis{}
}

// searchLimit finds the largest (dir 1) or smallest (dir -1) value ok
// accepts, given that it accepts 0 and the accepted values are a range.
func searchLimit(ok func(int64) bool, dir int64) int64 {
	good, bad := int64(0), int64(0)
	for k := uint(0); k < 63; k++ {
		v := dir << k
		if !ok(v) {
			bad = v
			break
		}
		good = v
		if k == 62 {
			return good
		}
	}
	for (bad-good)*dir > 1 {
		mid := good + (bad-good)/2
		if ok(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
	return good
}

func formatInt(v int64) string {
	if v < 0 {
		return "-0x" + strconv.FormatUint(uint64(-v), 16)
	}
	return "0x" + strconv.FormatUint(uint64(v), 16)
}

// formShapes sketches the operands each form takes: "R, R, R | R, R, c[][] | ...".
func formShapes(cands []uint16) string {
	seen := map[string]bool{}
	var out []string
	for _, fi := range cands {
		var b strings.Builder
		started := false
		for _, t := range forms[fi].toks {
			if !started {
				if t.kind == tkLit && strings.Contains(t.text, " ") {
					started = true
					b.WriteString(strings.TrimSpace(t.text[strings.Index(t.text, " "):]))
				}
				continue
			}
			switch t.kind {
			case tkReg, tkRegPair:
				b.WriteString("R")
			case tkPred, tkNPred:
				b.WriteString("P")
			case tkHex, tkSHex, tkBitSet:
				b.WriteString("imm")
			case tkF32, tkF64, tkF16:
				b.WriteString("float")
			case tkRel:
				b.WriteString("label")
			case tkAddr, tkUAddr:
				b.WriteString("R+off")
			case tkTable:
				if !tables[t.arg].dot {
					b.WriteString(tables[t.arg].name)
				}
			case tkLit:
				b.WriteString(strings.TrimSpace(t.text))
				if strings.HasSuffix(t.text, " ") {
					b.WriteString(" ")
				}
			}
		}
		if s := strings.TrimSpace(b.String()); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, " | ")
}

// parseCtrlFields reads an instruction's control fields written as text,
// in the layout CuAssembler uses for later architectures:
// [B------:R-:W-:Y:S00]. B: the barriers waited on (a digit 0..5 for each,
// - for none, six places); R and W: the read and write barrier the
// instruction sets (0..5, - for none); Y: the yield bit (- clear); S: the
// stall count, 00..15 cycles. The reuse bits come from the .reuse markers
// of the text. It returns the fields or why they are wrong.
func parseCtrlFields(s string) (Ctrl, string) {
	const want = "want [B------:R-:W-:Y:S00]"
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), ":")
	if len(parts) != 5 || len(parts[0]) != 7 || parts[0][0] != 'B' || len(parts[1]) != 2 || parts[1][0] != 'R' ||
		len(parts[2]) != 2 || parts[2][0] != 'W' || len(parts[3]) != 1 || len(parts[4]) < 2 || parts[4][0] != 'S' {
		return 0, "bad control fields " + s + ": " + want
	}
	wait := 0
	for _, c := range parts[0][1:] {
		switch {
		case c == '-':
		case c >= '0' && c <= '9':
			if c > '5' {
				return 0, fmt.Sprintf("control field %s out of range: it waits on barrier %c, and barriers are 0..5", parts[0], c)
			}
			wait |= 1 << (c - '0')
		default:
			return 0, "bad wait mask " + parts[0] + ": " + want
		}
	}
	barrier := func(f string) (int, string) {
		switch c := f[1]; {
		case c == '-':
			return 7, ""
		case c >= '0' && c <= '5':
			return int(c - '0'), ""
		case c >= '6' && c <= '9':
			return 0, fmt.Sprintf("control field %s out of range: barriers are 0..5 (- for none)", f)
		}
		return 0, "bad barrier " + f + ": " + want
	}
	rb, msg := barrier(parts[1])
	if msg != "" {
		return 0, msg
	}
	wb, msg := barrier(parts[2])
	if msg != "" {
		return 0, msg
	}
	var yield bool
	switch parts[3] {
	case "Y":
		yield = true
	case "-":
	default:
		return 0, "bad yield field " + parts[3] + ": Y or -"
	}
	stall, err := strconv.Atoi(parts[4][1:])
	if err != nil {
		return 0, "bad stall count " + parts[4] + ": " + want
	}
	if stall < 0 || stall > 15 {
		return 0, fmt.Sprintf("control field %s out of range: stall counts are 0..15", parts[4])
	}
	return MakeCtrl(stall, yield, wb, rb, wait, 0), ""
}

// badCtrlWord says why a bare /* 0x... */ line is no control word.
func badCtrlWord(s string) string {
	digits := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "/* 0x"), "*/"))
	if _, ok := parseHex64(digits); !ok && len(digits) > 16 && strings.Trim(digits, "0123456789abcdefABCDEF") == "" {
		return fmt.Sprintf("control word 0x%s is wider than 64 bits", digits)
	}
	return fmt.Sprintf("bad control word %s: want /* 0x followed by up to 16 hex digits */", s)
}
