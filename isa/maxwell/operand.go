package maxwell

import (
	"math"
	"math/bits"

	"github.com/gpuisa/gpuisa/isa"
)

// The typed view of a decoded instruction: its operands and modifiers as
// values read from the encoded fields, never from printed text. The spec's
// template says how the fields group into operands; the generator writes
// that grouping to operands_gen.go (see internal/spec/genops.go).

// ArgKind is the kind of an operand.
type ArgKind uint8

const (
	ArgNone    ArgKind = iota
	ArgReg             // general register Reg (RZ = 255), Bits wide (64: a pair, 128: a quad)
	ArgPred            // predicate Reg (PT = 7), negated when Not
	ArgImm             // integer immediate Imm: the field, sign-extended when Signed, Bits wide
	ArgFloat           // float immediate: Imm holds the value's bits as Float says
	ArgConst           // constant c[Bank][Reg+Imm] (Reg 255: no index register)
	ArgMem             // memory [Reg+Imm] in Space, Size bytes (Reg 255: RZ, Imm absolute)
	ArgTarget          // code address Imm (absolute: PC-relative fields are resolved)
	ArgSpecial         // special register Imm, named by Mod (SR_TID.X...)
	ArgCC              // the condition-code register
	ArgEnum            // a named value among the operands (texture dimension, CC test, PR): Mod
)

var argKindNames = [...]string{"none", "reg", "pred", "imm", "float", "const", "mem", "target", "special", "cc", "enum"}

func (k ArgKind) String() string { return nameOf(argKindNames[:], int(k)) }

func nameOf(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return "?"
}

// Space is the memory space of an ArgMem operand.
type Space uint8

const (
	SpaceNone    Space = iota
	SpaceGeneric       // LD, ST: global, shared or local by address
	SpaceGlobal
	SpaceLocal
	SpaceShared
	SpaceAttr    // a[..]: vertex attributes
	SpaceSurface // surface coordinates
	SpaceISBE    // ISBERD's internal stage buffer
	SpacePixel   // PIXLD
)

var spaceNames = [...]string{"", "generic", "global", "local", "shared", "attr", "surface", "isbe", "pixel"}

func (s Space) String() string { return nameOf(spaceNames[:], int(s)) }

// FloatEnc says how an ArgFloat's field encodes its value.
type FloatEnc uint8

const (
	FloatNone  FloatEnc = iota
	FloatF32            // a whole float32 (32-bit immediate forms): Imm is its bits
	FloatF32Hi          // the top 20 bits of a float32 (sign in the field's top bit): Imm is the float32's bits, low 12 zero
	FloatF64Hi          // the top 20 bits of a float64: Imm is the float64's bits, low 44 zero
	FloatF16            // a whole float16: Imm is its bits
	FloatF16Hi          // the top 10 bits of a float16: Imm is its bits, low 6 zero
	FloatF16x2          // a pair of float16 (two fields): Imm is high<<16 | low
)

// ModKind is where a modifier comes from.
type ModKind uint8

const (
	ModNone  ModKind = iota
	ModFixed         // a fixed part of the mnemonic (LOP3's .LUT)
	ModFlag          // a flag bit (or bits) that is set
	ModTable         // a table's value, printed as the table's entry (.RM, .LT)
	ModPhase         // a texture instruction's phase (.T, .P) from the control field
)

// Mod is one modifier: a set flag, a table value, or a fixed part of the
// mnemonic, named as the spec names it.
type Mod struct {
	id    uint16
	Value uint16 // a table's value; 1 for a set flag (a multi-bit flag's field); the phase
}

type modInfo struct {
	name  string
	kind  ModKind
	table int
	text  string
	// per value (bit 0: a flag or fixed text): reads the condition code,
	// writes it, writes only part of the destination (spec.txt's cc and
	// keeps lines)
	ccRead, ccWrite, keep uint64
}

// Role says what an instruction does with an operand (spec.txt's writes
// lines; every other register, predicate, address, index, special
// register and condition-code operand is read).
type Role uint8

const (
	RoleNone      Role = iota // neither: immediates, targets, names
	RoleRead                  // read (a memory or constant reference: its base or index register)
	RoleWrite                 // written
	RoleReadWrite             // read and written (a destination only partly written)
)

var roleNames = [...]string{"none", "read", "write", "readwrite"}

func (r Role) String() string { return nameOf(roleNames[:], int(r)) }

// Reads reports whether the role reads the operand.
func (r Role) Reads() bool { return r == RoleRead || r == RoleReadWrite }

// Writes reports whether the role writes the operand.
func (r Role) Writes() bool { return r == RoleWrite || r == RoleReadWrite }

// has reports whether modifier m's value is among mask's (a flag or fixed
// text, which is present only when set: bit 0).
func (m Mod) has(mask uint64) bool {
	if mask == 0 {
		return false
	}
	if modInfos[m.id].kind != ModTable {
		return true
	}
	return m.Value < 64 && mask>>m.Value&1 != 0
}

// Name is the flag's text without its dot ("FTZ", "U32"), the fixed text
// ("LUT"), or the table's name in the spec ("RND", "FCMP", "LDSZ").
func (m Mod) Name() string { return modInfos[m.id].name }

// Kind says where the modifier comes from.
func (m Mod) Kind() ModKind { return modInfos[m.id].kind }

// IsZero reports the absence of a modifier.
func (m Mod) IsZero() bool { return m.id == 0 }

// Text is what nvdisasm prints for it: ".FTZ", ".RM", "" for a table's
// default entry or a value out of the table's range (see Valid), "CC.LT"
// for a condition-code test (without the separators the table prints).
func (m Mod) Text() string {
	mi := &modInfos[m.id]
	switch mi.kind {
	case ModTable:
		t := &tables[mi.table]
		if int(m.Value) >= len(t.entries) || t.kinds[m.Value] != 0 {
			return ""
		}
		return trimEntry(t.entries[m.Value])
	case ModPhase:
		return [4]string{"", ".T", ".P", ".INVALIDPHASE3"}[m.Value&3]
	}
	return mi.text
}

// Valid reports whether a table value has a meaning (nvdisasm prints the
// others as INVALID...).
func (m Mod) Valid() bool {
	mi := &modInfos[m.id]
	if mi.kind != ModTable {
		return mi.kind != ModNone
	}
	t := &tables[mi.table]
	return int(m.Value) < len(t.entries) && t.kinds[m.Value] == 0
}

// trimEntry drops the blanks and comma a table entry prints around itself
// (the CC tests: " CC.LT", "CC.LT, ").
func trimEntry(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == ',') {
		s = s[:len(s)-1]
	}
	return s
}

// Arg is one operand.
type Arg struct {
	Kind  ArgKind
	Reg   uint8 // ArgReg; ArgPred; ArgConst's index and ArgMem's base register (255: none, RZ)
	Bits  uint8 // ArgReg: value width (8..128, 32 unless the spec says); ArgImm, ArgFloat, ArgTarget: field width; ArgMem, ArgConst: offset field width
	Neg   bool  // -x, or .NEG after an immediate
	Abs   bool  // |x|, or .ABS
	Not   bool  // !P, ~x, or .INV
	Reuse bool  // .reuse: the control field's reuse bit for this operand
	// Signed: ArgImm, ArgTarget, ArgMem, ArgConst: the field is two's
	// complement and Imm is sign-extended (an ArgMem on RZ is an absolute
	// address: zero-extended, as nvdisasm prints it).
	Signed bool
	Float  FloatEnc // ArgFloat
	Bank   uint8    // ArgConst
	Space  Space    // ArgMem
	Size   uint8    // ArgMem: bytes accessed (0: the spec does not say)
	// Mod: ArgEnum's and ArgSpecial's value; for the others the suffix
	// printed after the operand (.H1, .B2, .CC, .F32), if any.
	Mod Mod
	Imm int64 // ArgImm, ArgFloat (bits), ArgConst and ArgMem offsets, ArgTarget address, ArgSpecial number
	// Role: read, written, both (none for immediates, targets, names).
	Role Role
	// AddrBits: ArgMem's base register width, 64 for a pair (.E); 32 else.
	AddrBits uint8
	// Slot: the operand slot (0 a, 1 b, 2 c) of a register whose reuse
	// bit and register-file port it uses; -1 none.
	Slot int8
}

// Regs is how many consecutive registers an ArgReg spans: 0 when its
// width is 0 (a texture destination whose mask enables no component).
func (a Arg) Regs() int { return (int(a.Bits) + 31) / 32 }

// Registers is the range of general registers the operand names: an
// ArgReg's value, an ArgMem's base (a pair for 64-bit addresses), an
// ArgConst's index register. n is 0 for RZ and for other operands; the
// range stops before RZ (255).
func (a Arg) Registers() (first, n int) {
	switch a.Kind {
	case ArgReg:
		n = a.Regs()
	case ArgMem:
		n = max(1, int(a.AddrBits)/32)
	case ArgConst:
		n = 1
	default:
		return 0, 0
	}
	if a.Reg == 255 {
		return 255, 0
	}
	return int(a.Reg), min(n, 255-int(a.Reg))
}

// Float64 is an ArgFloat's value (a pair's high half for FloatF16x2).
func (a Arg) Float64() float64 {
	switch a.Float {
	case FloatF32, FloatF32Hi:
		return float64(math.Float32frombits(uint32(a.Imm)))
	case FloatF64Hi:
		return math.Float64frombits(uint64(a.Imm))
	case FloatF16, FloatF16Hi:
		return f16to64(uint16(a.Imm))
	case FloatF16x2:
		return f16to64(uint16(a.Imm >> 16))
	}
	return 0
}

// Operands is a decoded instruction's typed view, in the shape of
// golang.org/x/arch's Inst{Op, Args}: the mnemonic, the guard, the
// modifiers and the operands in the order nvdisasm prints them (optional
// operands nvdisasm leaves out at their default, like LOP's PT or TEX's
// RZ, are present). Unused entries are zero (ArgNone, Mod.IsZero).
type Operands struct {
	Op    string // mnemonic without modifiers, e.g. "IADD3"
	Guard Arg    // the guard predicate (ArgPred; PT when the form has none)
	Mods  [MaxMods]Mod
	Args  [MaxArgs]Arg
	Ctrl  Ctrl
	// CC: what the instruction does with the condition code: a .CC
	// destination writes it; .X, CC tests, CSETP's CC, P2R CC read it.
	CC Role
}

// Mod returns the first modifier named name.
func (o *Operands) Mod(name string) (Mod, bool) {
	for _, m := range o.Mods {
		if m.id == 0 {
			break
		}
		if modInfos[m.id].name == name {
			return m, true
		}
	}
	return Mod{}, false
}

// Has reports whether a modifier named name is present (a set flag, a
// fixed part, or a table whose value prints text).
func (o *Operands) Has(name string) bool {
	m, ok := o.Mod(name)
	return ok && (m.Kind() != ModTable || m.Text() != "")
}

// NArgs is the number of operands.
func (o *Operands) NArgs() int {
	n := 0
	for n < len(o.Args) && o.Args[n].Kind != ArgNone {
		n++
	}
	return n
}

type argDesc struct {
	kind          ArgKind
	tok, tok2     int8 // the value's token; ArgConst: bank, offset; FloatF16x2: high, low
	neg, abs, not int8 // flag tokens, -1 none
	sel           int8 // suffix token, -1 none (or a fixed suffix)
	selMod        uint16
	wtok          int8    // table token giving the register width, -1 none
	bits          uint8   // the register width in bits, 0: from wtok or 32
	wflag         int8    // flag token: 64 bits when set (addresses: a pair); 0 none (a flag is never token 0)
	wmask         part    // one register per bit set in this field (width 0: none)
	wfrom, wto    uint8   // components [wfrom, wto) of wtok's entry (wto 0: not a slice)
	welem         uint8   // bits per component
	wmul          uint8   // wtok's width times this (0, 1: once)
	wsum          []wterm // registers as these add up (nil: not a count)
	space         Space
	float         FloatEnc
	signed        bool
	role          Role
}

type modDesc struct {
	tok int8 // -1: fixed
	id  uint16
}

type formOps struct {
	mods []modDesc
	args []argDesc
}

// flagOn reports whether flag token t is set (its field equals the value
// that prints it).
func flagOn(t *tok, w uint64) bool { return t.get(w) == t.def }

// Operands returns the operands and modifiers of inst at address pc (which
// only branch targets depend on).
func (i Inst) Operands(pc uint64) Operands {
	f := &forms[i.form]
	fo := &formOperands[i.form]
	w := i.Word
	o := Operands{Op: f.name, Ctrl: i.Ctrl}
	g := w >> 16 & 0xf
	if f.attrs&attrNoGuard != 0 {
		g = 7
	}
	o.Guard = Arg{Kind: ArgPred, Reg: uint8(g & 7), Not: g&8 != 0}
	n := 0
	for _, md := range fo.mods {
		m := Mod{id: md.id}
		if md.tok >= 0 {
			t := &f.toks[md.tok]
			switch t.kind {
			case tkFlag:
				if !flagOn(t, w) {
					continue
				}
				m.Value = 1
				if t.width() > 1 {
					m.Value = uint16(t.get(w))
				}
			case tkTable:
				m.Value = uint16(t.get(w))
			case tkPhase:
				m.Value = uint16(i.Ctrl.Reuse() & 3)
			}
		}
		o.Mods[n] = m
		n++
	}
	o.Guard.Role = RoleRead
	cc := RoleNone
	keep := false
	for _, m := range o.Mods[:n] {
		mi := &modInfos[m.id]
		cc |= ccRole(m, mi)
		keep = keep || m.has(mi.keep)
	}
	for k := range fo.args {
		a := i.arg(f, &fo.args[k], pc)
		mi := &modInfos[a.Mod.id]
		cc |= ccRole(a.Mod, mi)
		switch {
		case a.Kind == ArgCC:
			cc |= RoleRead
		case a.Kind == ArgEnum && mi.name == "PRCC" && a.Mod.Value == 1: // P2R/R2P's CC
			cc |= ccFrom(a.Role)
		case keep && a.Role == RoleWrite && a.Kind == ArgReg:
			a.Role = RoleReadWrite
		}
		o.Args[k] = a
	}
	o.CC = cc
	return o
}

// ccRole is what modifier m does to the condition code, as a set of
// RoleRead and RoleWrite bits (RoleReadWrite is both).
func ccRole(m Mod, mi *modInfo) Role {
	var r Role
	if m.has(mi.ccRead) {
		r |= RoleRead
	}
	if m.has(mi.ccWrite) {
		r |= RoleWrite
	}
	return r
}

func ccFrom(r Role) Role {
	switch r {
	case RoleRead, RoleWrite, RoleReadWrite:
		return r
	}
	return RoleNone
}

func (i Inst) arg(f *form, d *argDesc, pc uint64) Arg {
	w := i.Word
	a := Arg{Kind: d.kind, Signed: d.signed, Space: d.space, Float: d.float, Reg: 255, Role: d.role, Slot: -1}
	if d.neg >= 0 {
		a.Neg = flagOn(&f.toks[d.neg], w)
	}
	if d.abs >= 0 {
		a.Abs = flagOn(&f.toks[d.abs], w)
	}
	if d.not >= 0 {
		a.Not = flagOn(&f.toks[d.not], w)
	}
	if d.selMod != 0 {
		if d.sel < 0 { // a fixed suffix
			a.Mod = Mod{id: d.selMod}
		} else if t := &f.toks[d.sel]; t.kind == tkTable {
			a.Mod = Mod{id: d.selMod, Value: uint16(t.get(w))}
		} else if flagOn(t, w) {
			a.Mod = Mod{id: d.selMod, Value: uint16(t.get(w))}
		}
	}
	var t *tok
	if d.tok >= 0 {
		t = &f.toks[d.tok]
	}
	switch d.kind {
	case ArgReg:
		a.Bits = i.width(f, d)
		if t == nil { // a literal RZ
			return a
		}
		r := t.get(w)
		if t.kind == tkRegPair && r == 255 {
			return a // nvdisasm's ???255
		}
		r += uint64(t.shift)
		if r > 255 {
			r = 255
		}
		a.Reg = uint8(r)
		if t.arg >= 0 && t.kind == tkReg {
			a.Slot = int8(t.arg)
			if f.attrs&attrReuse != 0 {
				a.Reuse = i.Ctrl.Reuse()>>uint(t.arg)&1 != 0
			}
		}
	case ArgPred:
		v := t.get(w)
		switch {
		case t.kind == tkNPred:
			a.Reg, a.Not = uint8(v&7), v&8 != 0
		case t.arg == 7: // stored inverted
			a.Reg = uint8(v ^ 7)
		default:
			a.Reg = uint8(v)
		}
	case ArgImm:
		if t == nil { // a literal 0x0
			return a
		}
		v := t.get(w)
		a.Bits = t.width()
		if t.kind == tkSHex {
			a.Signed = true
		}
		if a.Signed {
			a.Imm = isa.SignExtend(v, a.Bits) << t.shift
		} else {
			a.Imm = int64(v << t.shift)
		}
	case ArgFloat:
		v := t.get(w)
		a.Bits = t.width()
		switch d.float {
		case FloatF32:
			a.Imm = int64(v)
		case FloatF32Hi:
			a.Imm = int64(v << (32 - a.Bits))
		case FloatF64Hi:
			a.Imm = int64(v << (64 - a.Bits))
		case FloatF16:
			a.Imm = int64(v)
		case FloatF16Hi:
			a.Imm = int64(v << (16 - a.Bits))
		case FloatF16x2:
			lo := &f.toks[d.tok2]
			lw := lo.width()
			a.Imm = int64((v<<(16-a.Bits))<<16 | lo.get(w)<<(16-lw))
			a.Bits += lw
		}
	case ArgTarget:
		a.Bits = t.width()
		a.Imm = int64(pc) + 8 + isa.SignExtend(t.get(w), a.Bits)
	case ArgConst:
		a.Bank = uint8(t.get(w))
		off := &f.toks[d.tok2]
		switch off.kind {
		case tkAddr: // c[bank][Rn+offset]
			r, v := off.addr(w)
			a.Reg, a.Imm = uint8(r), v
			a.Bits = off.width() - 8
		default:
			a.Bits = off.width()
			if d.signed {
				a.Imm = isa.SignExtend(off.get(w), a.Bits) << off.shift
			} else {
				a.Imm = int64(off.get(w) << off.shift)
			}
		}
	case ArgMem:
		a.Size = i.width(f, d) / 8
		if d.wtok < 0 && d.bits == 0 {
			a.Size = 0
		}
		a.AddrBits = 32
		if d.wflag > 0 && flagOn(&f.toks[d.wflag], w) {
			a.AddrBits = 64
		}
		if d.wsum != nil { // a surface's coordinates
			a.AddrBits = 32 * registerCount(f, d.wsum, w)
		}
		if t == nil { // a[RZ]
			return a
		}
		switch t.kind {
		case tkAddr, tkUAddr:
			r, v := t.addr(w)
			a.Reg, a.Bits = uint8(r), t.width()-8
			if r == 255 && t.kind == tkAddr && t.arg <= 0 {
				// on RZ the offset is an absolute address: nvdisasm prints
				// it unsigned
				v, a.Signed = int64(uint64(v)&t.offMask()), false
			}
			a.Imm = v
		case tkReg:
			a.Reg = uint8(t.get(w))
		case tkHex:
			a.Bits = t.width()
			a.Imm = int64(t.get(w) << t.shift)
		}
	case ArgSpecial, ArgEnum:
		a.Mod = Mod{id: d.selMod, Value: uint16(t.get(w))}
		a.Imm = int64(t.get(w))
	}
	return a
}

// width is a register operand's width in bits (and a memory operand's
// access width): the spec's, or its width table's entry, else 32.
func (i Inst) width(f *form, d *argDesc) uint8 {
	w := i.Word
	switch {
	case d.bits != 0:
		return d.bits
	case d.wsum != nil && d.kind == ArgReg:
		return 32 * registerCount(f, d.wsum, w)
	case d.wmask.width != 0:
		return 32 * uint8(bits.OnesCount64(w>>d.wmask.pos&(1<<d.wmask.width-1)))
	case d.wflag > 0 && d.kind == ArgReg:
		if flagOn(&f.toks[d.wflag], w) {
			return 64
		}
		return 32
	case d.wtok < 0:
		return 32
	}
	t := &f.toks[d.wtok]
	v := t.get(w)
	tb := &tables[t.arg]
	if tb.kinds[v] != 0 {
		return 32
	}
	if d.wto != 0 { // a slice of the components the entry names
		n := uint8(components(tb.entries[v]))
		return d.welem * (min(n, d.wto) - min(n, d.wfrom))
	}
	return entryBits(tb.entries[v]) * max(1, d.wmul)
}

// wterm is one term of a register count ({R@p*=TERM+...}).
type wterm struct {
	kind  uint8 // wtN, wtFlag, wtCount
	n     uint8 // wtN: registers
	tok   int8  // wtFlag: the flag; wtCount: the field's token (-1: the count's own field)
	count uint8 // wtCount: index into regCounts
}

const (
	wtN = iota
	wtFlag
	wtCount
)

// regCount is a count list of the spec: registers per value of a table
// (the form's token) or of a field.
type regCount struct {
	name   string
	field  part
	values []uint8
}

// registerCount adds up a count's terms for word w.
func registerCount(f *form, terms []wterm, w uint64) uint8 {
	n := uint8(0)
	for _, tm := range terms {
		switch tm.kind {
		case wtN:
			n += tm.n
		case wtFlag:
			if flagOn(&f.toks[tm.tok], w) {
				n++
			}
		case wtCount:
			c := &regCounts[tm.count]
			var v uint64
			if tm.tok >= 0 {
				v = f.toks[tm.tok].get(w)
			} else {
				v = w >> c.field.pos & (1<<c.field.width - 1)
			}
			if v < uint64(len(c.values)) {
				n += c.values[v]
			}
		}
	}
	return n
}

// components counts the component letters (R, G, B, A) of a mask entry.
func components(s string) int {
	n := 0
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case 'R', 'G', 'B', 'A':
			n++
		}
	}
	return n
}

// entryBits is the width a table entry names: its first number (".U8" 8,
// ".64" 64, ".F16x2" 32), 32 when it has none. The spec's rule for {R@p*T}.
func entryBits(s string) uint8 {
	for k := 0; k < len(s); k++ {
		if s[k] < '0' || s[k] > '9' {
			continue
		}
		n := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			n = 10*n + int(s[k]-'0')
			k++
		}
		if k+1 < len(s) && s[k] == 'x' && s[k+1] >= '0' && s[k+1] <= '9' {
			n *= int(s[k+1] - '0')
		}
		if n == 0 || n > 255 {
			return 32
		}
		return uint8(n)
	}
	return 32
}
