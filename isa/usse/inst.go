package usse

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuisa/gpuisa/isa"
)

// MaxFields is the most fields one instruction form has.
const MaxFields = 32

type elemKind uint8

// fieldDef is one named field of a form, possibly split over several bit
// runs (least significant part first).
type fieldDef struct {
	name  string
	width uint8
	def   uint32 // a flag with this value is not printed (usse.spec "defaults")
	parts []isa.Field
}

func (f *fieldDef) get(w uint64) uint32 {
	var x uint64
	var sh uint8
	for _, p := range f.parts {
		x |= p.Get(w) << sh
		sh += p.Width
	}
	return uint32(x)
}

func (f *fieldDef) set(w uint64, v uint32) uint64 {
	x := uint64(v)
	for _, p := range f.parts {
		w = p.Set(w, x)
		x >>= p.Width
	}
	return w
}

// elem is one piece of a syntax template; f holds field indices (-1 unused).
type elem struct {
	kind  elemKind
	text  string
	f     [16]int8
	table uint8
	tab2  int8 // rsw: swizzle table, -1 for none
}

type form struct {
	name        string
	op1         uint8
	mask, value uint64
	fields      []fieldDef
	variants    []variant
}

// variant is one syntax of a form: it applies when field cond holds one of
// the values in condVals (cond < 0: always).
type variant struct {
	cond     int8
	condVals uint32
	preset   int8   // value of the condition field when the syntax does not print it, else -1
	mnemEnd  int    // flags are printed before elems[mnemEnd]
	flags    []int8 // fields this syntax does not print
	elems    []elem
}

// variant returns the syntax that prints in, or nil when none applies.
func (f *form) variant(in *Inst) *variant {
	if i := f.variantIndex(in); i >= 0 {
		return &f.variants[i]
	}
	return nil
}

// variantIndex is the index of the syntax that prints in, or -1.
func (f *form) variantIndex(in *Inst) int {
	for i := range f.variants {
		v := &f.variants[i]
		if v.cond < 0 || (in.Args[v.cond] < 32 && v.condVals>>in.Args[v.cond]&1 != 0) {
			return i
		}
	}
	return -1
}

// Inst is one decoded instruction: the form, the raw word and the value of
// every field of the form (Args[i] belongs to the form's i-th field).
type Inst struct {
	Form int16
	Raw  uint64
	Args [MaxFields]uint32
}

// Name is the form's name in usse.spec (e.g. "vmad", "vpck", "flow").
func (in *Inst) Name() string {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return ""
	}
	return forms[in.Form].name
}

// Field returns the value of the named field and whether the form has it.
func (in *Inst) Field(name string) (uint32, bool) {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return 0, false
	}
	for i := range forms[in.Form].fields {
		if forms[in.Form].fields[i].name == name {
			return in.Args[i], true
		}
	}
	return 0, false
}

// Len is the instruction size in bytes (always 8).
const Len = 8

// Decoder decodes SGX543 USSE code: the decoding shape every ISA package
// shares, Decoder.Decode(code, addr).
type Decoder struct {
	Base uint64 // address of code[0]
}

// Decode decodes the 8-byte instruction at address addr of code, which is
// loaded at d.Base. Errors are *isa.DecodeError naming addr and saying how
// many bytes to skip.
func (d Decoder) Decode(code []byte, addr uint64) (Inst, error) {
	if addr < d.Base || addr-d.Base >= uint64(len(code)) {
		return Inst{Form: -1}, &isa.DecodeError{Addr: addr, Err: isa.ErrTruncated,
			Detail: fmt.Sprintf("address outside the code (%d bytes at %#x)", len(code), d.Base)}
	}
	return Decode(code[addr-d.Base:], addr)
}

// Decode decodes the instruction at the start of b, which is loaded at addr:
// Decoder.Decode for code that starts at the instruction.
// On error the *isa.DecodeError says how many bytes to skip.
func Decode(b []byte, addr uint64) (in Inst, err error) {
	if len(b) < Len {
		return Inst{Form: -1}, &isa.DecodeError{Addr: addr, Len: len(b), Err: isa.ErrTruncated}
	}
	err = decodeZeroed(binary.LittleEndian.Uint64(b), addr, &in)
	return in, err
}

// DecodeWord decodes one instruction word.
func DecodeWord(w uint64, addr uint64) (in Inst, err error) {
	err = decodeZeroed(w, addr, &in)
	return in, err
}

// decodeWord decodes w into *in (which it overwrites, also on error).
func decodeWord(w uint64, addr uint64, in *Inst) error {
	*in = Inst{}
	return decodeZeroed(w, addr, in)
}

// decodeZeroed is decodeWord for an *in that is all zero.
func decodeZeroed(w uint64, addr uint64, in *Inst) error {
	if bad, ok := decodeMatch(w, in); !ok {
		return &isa.DecodeError{Addr: addr, Len: Len, Err: isa.ErrInvalid, Detail: string(bad.appendDetail(nil, w))}
	}
	return nil
}

// decodeFailure says why a word did not decode: no form matches (form
// -1), or field of form holds value, which the syntax cannot express.
type decodeFailure struct {
	form  int16
	field int16
	value uint32
}

// decodeMatch decodes w into *in, which is all zero, as decodeZeroed does,
// and says why it did not decode (without building the error, which the
// listing of random words would pay for a third of its words).
func decodeMatch(w uint64, in *Inst) (decodeFailure, bool) {
	for i := range groupMatches[w>>59] {
		m := &groupMatches[w>>59][i]
		if w&m.mask != m.value {
			continue
		}
		in.Form, in.Raw = m.form, w
		decodeFields(m.form, w, &in.Args)
		if !m.mayFail {
			return decodeFailure{}, true
		}
		if bad := forms[m.form].check(in); bad >= 0 {
			v := in.Args[bad]
			*in = Inst{Form: -1, Raw: w}
			return decodeFailure{form: m.form, field: int16(bad), value: v}, false
		}
		return decodeFailure{}, true
	}
	in.Form, in.Raw = -1, w
	return decodeFailure{form: -1}, false
}

// appendDetail appends the DecodeError detail of word w failing as d says.
func (d decodeFailure) appendDetail(dst []byte, w uint64) []byte {
	dst = append(appendHex16(dst, w), ": "...)
	if d.form < 0 {
		dst = append(dst, "no instruction in op1 group 0x"...)
		return isa.AppendHex(dst, w>>59, 2)
	}
	f := &forms[d.form]
	dst = append(append(append(dst, f.name...), ": invalid "...), f.fields[d.field].name...)
	return isa.AppendDec(append(dst, ' '), uint64(d.value))
}

// check returns the index of a field whose value the syntax cannot express
// (an enum or swizzle entry marked '?', a bank outside its list), or -1.
// The enums and banks are tested from decoders' compact list (a bit of a
// mask, a bound); the other elements as checkByElems does.
func (f *form) check(in *Inst) int {
	vi := f.variantIndex(in)
	if vi < 0 {
		return int(f.variants[0].cond)
	}
	for _, c := range decoders[in.Form].checks[vi] {
		switch c.kind {
		case ckEnum:
			if c.bad>>(in.Args[c.f0]&63)&1 != 0 {
				return int(c.f0)
			}
		case ckBank:
			if arg(in, c.f1)<<c.shift|in.Args[c.f0] >= c.limit {
				return int(c.f0)
			}
		default:
			if bad := elemCheck(f, &f.variants[vi].elems[c.elem], in); bad >= 0 {
				return bad
			}
		}
	}
	return -1
}

// checkByElems is check testing each risky element in turn (elemCheck):
// the reference of check's compact list (TestCheckCompact).
func (f *form) checkByElems(in *Inst) int {
	vi := f.variantIndex(in)
	if vi < 0 {
		return int(f.variants[0].cond)
	}
	v := &f.variants[vi]
	for _, i := range decoders[in.Form].risky[vi] {
		if bad := elemCheck(f, &v.elems[i], in); bad >= 0 {
			return bad
		}
	}
	return -1
}

// elemCheck returns the field of element e whose value the syntax cannot
// express, or -1.
func elemCheck(f *form, e *elem, in *Inst) int {
	switch e.kind {
	case kPfx, kE, kEo:
		if enumTables[e.table][in.Args[e.f[0]]] == "?" {
			return int(e.f[0])
		}
	case kPck, kFmt2:
		for _, fi := range e.f[:2] {
			if enumTables[e.table][in.Args[fi]] == "?" {
				return int(fi)
			}
		}
	case kReg, kRegx, kOreg, kNreg, kRegm:
		if bankIndex(f, e, in) >= len(bankTables[e.table]) {
			return int(e.f[0])
		}
	case kDualm:
		if bad := dualCheck(in.Form, in); bad >= 0 {
			return int(dualIdxByForm[in.Form][bad])
		}
	case kSwz:
		if _, ok := swizzleEntry(f, e, in); !ok {
			return int(e.f[0])
		}
	case kGsw: // as gswSwizzle's element
		if !swizzleOK(f, e.table, e.f[1], e.f[2], e.f[4], in) {
			return int(e.f[1])
		}
	case kRsw, kRswh: // as rswParts' elements
		if bankIndex(f, e, in) >= len(bankTables[e.table]) {
			return int(e.f[0])
		}
		sel := e.f[6]
		if e.kind == kRswh {
			sel = -1
		}
		if e.f[3] >= 0 && !swizzleOK(f, uint8(e.tab2), e.f[3], e.f[4], sel, in) {
			return int(e.f[3])
		}
	}
	return -1
}

// encodeFields builds the word of form f (in.Form's) from in.Args; false
// when a value does not fit its field (generated code, tested equal to
// encodeFieldsSlow).
func encodeFields(f *form, in *Inst) (uint64, bool) {
	return encodeFieldsGen(in.Form, &in.Args)
}

// encodeFieldsSlow is encodeFields from the field table; false also when
// the fields overlap the fixed bits.
func encodeFieldsSlow(f *form, in *Inst) (uint64, bool) {
	w := f.value
	for i := range f.fields {
		fd := &f.fields[i]
		if uint64(in.Args[i]) >= 1<<fd.width {
			return 0, false
		}
		w = fd.set(w, in.Args[i])
	}
	return w, w&f.mask == f.value
}

func arg(in *Inst, fi int8) uint32 {
	if fi < 0 {
		return 0
	}
	return in.Args[fi]
}

func bankIndex(f *form, e *elem, in *Inst) int {
	bw := f.fields[e.f[0]].width
	return int(arg(in, e.f[1]))<<bw | int(in.Args[e.f[0]])
}

// swizzleTable picks the table of a swz element (v34: by its selector field).
func swizzleTable(f *form, e *elem, in *Inst) []string {
	return swizzleTables[swizzleTableIndex(e, in)]
}

// swizzleTableIndex is the index in swizzleTables of a swz element's table.
func swizzleTableIndex(e *elem, in *Inst) int {
	if e.table == swzV34 {
		if arg(in, e.f[3]) != 0 {
			return swzV4
		}
		return swzV3
	}
	return int(e.table)
}

// swizzleOK reports whether fields swz (low part) and ext (high part, or
// -1) name an entry of swizzle table t (swzV34: picked by field sel), as
// swizzleEntry does for a swz element with those fields.
func swizzleOK(f *form, t uint8, swz, ext, sel int8, in *Inst) bool {
	_, _, ok := swizzleAt(f, t, swz, ext, sel, in)
	return ok
}

func swizzleEntry(f *form, e *elem, in *Inst) (string, bool) {
	t := swizzleTable(f, e, in)
	idx := int(arg(in, e.f[1]))<<f.fields[e.f[0]].width | int(in.Args[e.f[0]])
	if idx >= len(t) || t[idx] == "?" {
		return "", false
	}
	return t[idx], true
}

// Encode returns the instruction word for in, built from in.Form and in.Args
// (in.Raw is ignored).
func Encode(in Inst) (uint64, error) {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return 0, fmt.Errorf("usse: encode: no form %d", in.Form)
	}
	f := &forms[in.Form]
	w, ok := encodeFields(f, &in)
	if !ok {
		for i := range f.fields {
			if fd := &f.fields[i]; uint64(in.Args[i]) >= 1<<fd.width {
				return 0, fmt.Errorf("usse: %s: %s = %d does not fit in %d bits", f.name, fd.name, in.Args[i], fd.width)
			}
		}
		return 0, fmt.Errorf("usse: %s: fields overlap fixed bits", f.name)
	}
	if bad := f.check(&in); bad >= 0 {
		return 0, fmt.Errorf("usse: %s: invalid %s %d", f.name, f.fields[bad].name, in.Args[bad])
	}
	return w, nil
}
