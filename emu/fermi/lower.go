package fermi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/fermi"
)

// kind is what a lowered instruction does.
type kind uint8

const (
	kInvalid     kind = iota // does not decode: faults when reached
	kUnsupported             // decodes, but has no semantics here (graphics): faults naming it
	kNop
	// control flow
	kBra
	kBrx
	kCal
	kSsy
	kPbk
	kPcnt
	kPret
	kExit
	kKil
	kRet
	kBrk
	kCont
	kBpt
	// integer
	kIadd
	kImul
	kImad
	kIscadd
	kShl
	kShr
	kLop
	kBfe
	kBfi
	kFlo
	kPopc
	kImnmx
	kIset
	kIsetp
	kIcmp
	kIsad
	kSel
	kPrmt
	kMov
	kS2R
	kLepc
	// single and double precision
	kFadd
	kFmul
	kFfma
	kFmnmx
	kFset
	kFsetp
	kFcmp
	kMufu
	kRro
	kDadd
	kDmul
	kDfma
	kDmnmx
	kDset
	kDsetp
	// conversions
	kF2F
	kF2I
	kI2F
	kI2I
	// predicates and the condition code
	kCset
	kCsetp
	kPset
	kPsetp
	kP2R
	kR2P
	// synchronisation
	kVote
	kBar
	kB2R
	// video
	kVadd
	kVmnmx
	kVabsdiff
	kVset
	kVsetp
	kVshl
	kVshr
	kVmad
	// memory
	kLd // generic
	kSt
	kLds
	kSts
	kLdl
	kStl
	kLdc
	kLdLdu // LD_LDU and LDS_LDU: two loads
	kAtom
	kRed
	kLdlk // load and lock (global or shared)
	kStul // store and unlock
	kTld  // texture fetch of a buffer texture (tex1Dfetch)
)

// okind is the kind of a lowered operand.
type okind uint8

const (
	oNone  okind = iota
	oReg         // a register row (RZ: the zero row, or the sink as a destination)
	oImm         // an immediate (imm; bcast holds it for every lane)
	oConst       // c[bank][imm], resolved at launch into imm and bcast
	oCIdx        // c[bank][Rrow+imm]
	oPred        // predicate number (7 = PT)
	oMem         // [Rrow+imm]
	oSReg        // special register number in imm
)

// opnd is one lowered operand.
type opnd struct {
	kind          okind
	row           uint8 // register row, predicate number
	bank          uint8
	sel           uint8 // byte (0-3) or half (0-1) of a conversion source
	neg, abs, not bool
	sgn           bool  // a video source is signed
	cc            bool  // a destination that also writes the condition code
	bc            int32 // index of the broadcast row (oImm, oConst), -1 when none
	imm           int64 // immediate, constant or address offset, 64-bit constant value
}

// op is one lowered instruction.
type op struct {
	kind   kind
	guard  uint8 // predicate of the guard (7 = PT)
	gnot   bool
	sync   bool  // .S: the lanes that ran it wait at the innermost SSY target
	sub    uint8 // comparison, function, atomic operation, conversion type...
	sub2   uint8 // a second selector (predicate combining, secondary video op)
	rnd    uint8 // rounding: 0 RN, 1 RM, 2 RP, 3 RZ
	cc     uint8 // condition code test of a control-flow or CSET instruction (15 = T)
	flags  uint32
	target uint32 // op index of a branch target
	size   uint8  // memory access bytes; conversion destination size
	size2  uint8  // LD_LDU's second size; conversion source size
	lanes  uint8  // MOV's lane mask
	fast   uint8  // fast form (fast.go), chosen per launch
	fimm   uint32 // the fast form's scalar source (fast.go)
	uncond bool   // guarded by PT: every active lane runs it (fast.go)
	memo   uint8  // fastMemo: 1 + its row's index in scratch.memo (uniform.go)
	s      [4]opnd
	d, d2  opnd
}

// op flags, from the instruction's modifiers.
const (
	fFTZ  = 1 << iota
	fFMZ  // float multiply: 0 * anything is 0
	fSAT  // saturate
	fX    // reads the condition code (carry-in, extended compare)
	fU32  // unsigned comparison or operands
	fHI   // high half of a product
	fE    // 64-bit address
	fW    // shift amount wraps (mod 32) instead of clamping
	fBREV // bit-reverse the source
	fSH   // FLO: the shift amount
	fBF   // set: 1.0 rather than all ones
	fUD   // video: unsigned destination
	fPO   // video: plus one
	fMX   // VMNMX: maximum
	fASgn // multiply: first factor signed
	fBSgn // multiply: second factor signed
	fSigned
	fCCTest // control flow tests the condition code too
	fCCOut  // writes the condition code
	fCCPR   // P2R/R2P move the condition code rather than the predicates
	fArrive // BAR.ARV
	fRedDst // BAR.RED with a result predicate and register
	fFloat  // atomics: a float add
	f64Bit  // atomics: 64-bit
	fSignedAtom
	fUniform  // LD_LDU: the LDU part's address is 64-bit
	fShared   // LDS_LDU, LDSLK: shared memory
	fRoundInt // F2F: round to an integral value (.ROUND, .FLOOR, .CEIL, .TRUNC)
	fAllWarp  // BRA.U: taken only when the guard holds in every running lane
)

// Register rows: R0..R62 are rows 0..62, row 63 is RZ (always zero);
// writes to RZ go to the sink row; the flags row holds, as lane masks, the
// predicates P0..P6 and PT (words 0..7) and the condition code flags Z, S,
// C, O (words 8..11).
const (
	rowRZ    = 63
	rowSink  = 64
	rowFlags = 65
	numRows  = 66
	predPT   = 7
	flagZ    = 8
	flagS    = 9
	flagC    = 10
	flagO    = 11
)

// Program is a kernel lowered once for running.
type Program struct {
	ops    []op
	texts  []string
	addrs  []uint64
	errs   []error // per op: why it cannot run, nil if it can
	index  []int32 // addr/4 -> op index, -1 between instructions
	used   int     // register rows R0..R(used-1) the program touches
	local  bool    // touches local memory (generic accesses may)
	frame  int     // highest [R1+offset] reach: the kernel's stack frame
	wide   bool    // global addresses are 64-bit (.E)
	narrow bool    // global addresses are 32-bit (a generic access without .E)
}

// Len is the number of instructions.
func (p *Program) Len() int { return len(p.ops) }

// Text is instruction i's text (CUDA 5+ cuobjdump spelling).
func (p *Program) Text(i int) string { return p.texts[i] }

// Where implements the engine's fault location.
func (p *Program) Where(pc uint32) (uint64, string) {
	if int(pc) < len(p.ops) {
		return p.addrs[pc], p.texts[pc]
	}
	if n := len(p.addrs); n > 0 {
		return p.addrs[n-1] + 8, ""
	}
	return 0, ""
}

// indexOf is the op at byte address a, if an instruction starts there.
func (p *Program) indexOf(a uint64) (uint32, bool) {
	if a%4 != 0 || a/4 >= uint64(len(p.index)) {
		return 0, false
	}
	i := p.index[a/4]
	return uint32(i), i >= 0
}

// errNoSem is the fault of an instruction that decodes but has no
// semantics in this emulator.
var errNoSem = errors.New("not supported by the Fermi emulator")

// Lower decodes code (little-endian, 4- and 8-byte instructions) and lowers
// every instruction. Instructions that do not decode or have no semantics
// lower to faulting ops, so a kernel runs until it reaches one.
func Lower(code []byte) (*Program, error) {
	if len(code) == 0 {
		return nil, fmt.Errorf("no code")
	}
	if len(code)%4 != 0 {
		return nil, fmt.Errorf("code size %d is not a multiple of 4 bytes", len(code))
	}
	p := &Program{index: make([]int32, len(code)/4+1)}
	for i := range p.index {
		p.index[i] = -1
	}
	type pending struct {
		op     int
		target uint64
	}
	var targets []pending
	maxReg := 1
	for addr := 0; addr < len(code); {
		inst, err := fermi.DecodeAt(code[addr:], uint64(addr))
		n := 8
		var o op
		text := ""
		switch {
		case err != nil:
			var de *isa.DecodeError
			if errors.As(err, &de) && de.Len > 0 && de.Len <= 8 {
				n = de.Len
			}
			if addr+n > len(code) {
				n = len(code) - addr
			}
			o.kind = kInvalid
			text = fmt.Sprintf(".word %#x", code[addr:addr+n])
			err = fmt.Errorf("invalid instruction: %v", err)
		default:
			n = inst.Len()
			text = strings.TrimSuffix(strings.TrimSpace(fermi.Print(inst, uint64(addr))), ";")
			var t uint64
			var hasT bool
			o, t, hasT, err = lowerInst(inst, uint64(addr))
			if err != nil {
				o = op{kind: kUnsupported, guard: o.guard, gnot: o.gnot}
			} else if hasT {
				targets = append(targets, pending{len(p.ops), t})
			}
			maxReg = max(maxReg, regsOf(&o))
			p.note(&o)
		}
		p.index[addr/4] = int32(len(p.ops))
		p.ops = append(p.ops, o)
		p.texts = append(p.texts, text)
		p.addrs = append(p.addrs, uint64(addr))
		p.errs = append(p.errs, err)
		addr += n
	}
	for _, t := range targets {
		i, ok := p.indexOf(t.target)
		if !ok {
			p.ops[t.op] = op{kind: kInvalid}
			p.errs[t.op] = fmt.Errorf("branch target %#x is not an instruction of the program", t.target)
			continue
		}
		p.ops[t.op].target = i
	}
	p.used = min(maxReg+1, rowRZ)
	return p, nil
}

// note records what the launch needs to know: local memory, the stack
// frame, the address width of global accesses.
func (p *Program) note(o *op) {
	switch o.kind {
	case kLdl, kStl:
		p.local = true
		m := &o.s[0]
		if m.row == 1 && m.imm >= 0 {
			p.frame = max(p.frame, int(m.imm)+int(max(o.size, 4)))
		}
	case kLd, kSt, kAtom, kRed, kLdLdu, kLdlk, kStul:
		if o.kind == kLdLdu && o.flags&fShared != 0 && o.flags&fE == 0 {
			break
		}
		p.local = true // a generic address may point into the local window
		if o.flags&fE != 0 {
			p.wide = true
		} else {
			p.narrow = true
		}
	}
}

// regsOf is the highest register row o reads or writes (multi-word
// operands included).
func regsOf(o *op) int {
	m := 0
	span := int(max(o.size, o.size2, 4)+3) / 4
	for _, x := range [...]*opnd{&o.d, &o.d2, &o.s[0], &o.s[1], &o.s[2], &o.s[3]} {
		switch x.kind {
		case oReg, oMem, oCIdx:
			if x.row < rowRZ {
				m = max(m, int(x.row)+max(span, 2)-1)
			}
		}
	}
	return min(m, rowRZ-1)
}

// errLower is a lowering failure: the instruction decodes but its operands
// are not in a shape the emulator runs.
func errLower(format string, args ...any) error { return fmt.Errorf(format, args...) }

// lowerInst lowers one decoded instruction; it returns the absolute branch
// target, if the instruction has one.
func lowerInst(inst fermi.Inst, addr uint64) (o op, target uint64, hasTarget bool, err error) {
	g, gn := inst.Guard()
	o.guard, o.gnot = uint8(g), gn
	args, n := inst.FormArgs(addr)
	a := args[:n]
	mods, nm := inst.Mods()
	mod := func(name string) uint32 {
		for _, m := range mods[:nm] {
			if m.Name == name {
				return m.Value
			}
		}
		return 0
	}
	has := func(name string) bool {
		for _, m := range mods[:nm] {
			if m.Name == name {
				return true
			}
		}
		return false
	}
	o.sync = mod(".S") != 0
	flag := func(name string, f uint32) {
		if mod(name) != 0 {
			o.flags |= f
		}
	}
	flag(".FTZ", fFTZ)
	flag(".FMZ", fFMZ)
	flag(".SAT", fSAT)
	flag(".X", fX)
	flag(".U32", fU32)
	flag(".HI", fHI)
	flag(".E", fE)
	flag(".W", fW)
	flag(".BREV", fBREV)
	flag(".SH", fSH)
	flag(".BF", fBF)
	flag(".UD", fUD)
	flag(".PO", fPO)
	flag(".MX", fMX)
	o.rnd = uint8(mod("rnd"))
	arg := func(i int) *fermi.Arg {
		if i < len(a) {
			return &a[i]
		}
		return &fermi.Arg{}
	}
	src := func(i int) opnd { return lowerArg(arg(i)) }
	dst := func(i int) opnd {
		x := lowerArg(arg(i))
		if x.kind == oReg && x.row == rowRZ {
			x.row = rowSink
		}
		if x.cc {
			o.flags |= fCCOut
		}
		return x
	}
	name := strings.TrimSuffix(inst.Op(), "_N")
	short := name != inst.Op()
	// the usual shapes: destination then sources
	d1s := func(k kind, ns int) {
		o.kind = k
		o.d = dst(0)
		for i := 0; i < ns; i++ {
			o.s[i] = src(1 + i)
		}
	}
	// predicate-setting: two predicate destinations, sources, input predicate
	p2s := func(k kind, ns int) {
		o.kind = k
		o.d, o.d2 = src(0), src(1)
		for i := 0; i < ns; i++ {
			o.s[i] = src(2 + i)
		}
		o.sub2 = uint8(mod("bop"))
	}
	// setp lowers ISETP/FSETP; the short (_N) forms write one predicate
	// and combine with PT.
	setp := func(k kind, cmp string) {
		if short {
			o.kind = k
			o.d = src(0)
			o.d2 = opnd{kind: oPred, row: predPT}
			o.s[0], o.s[1] = src(1), src(2)
			o.s[2] = opnd{kind: oPred, row: predPT}
		} else {
			p2s(k, 3)
		}
		o.sub = uint8(mod(cmp))
	}
	sgn2 := func() {
		v := mod("sgn2")
		if has("imuln") {
			v = mod("imuln") * 3 // .U32.U32 (0) or signed (1)
		}
		if v&2 != 0 {
			o.flags |= fASgn
		}
		if v&1 != 0 {
			o.flags |= fBSgn
		}
	}
	switch name {
	// ---- control flow
	case "BRA", "JMP":
		o.kind = kBra
		o.cc = uint8(arg(0).Reg)
		if mod(".U") != 0 {
			// envytools' "allwarp": the warp branches only when the guard
			// holds in every running lane; ptxas guards the fall-through
			// code so, and no SSY precedes these branches
			o.flags |= fAllWarp
		}
		t := arg(1)
		switch t.Kind {
		case fermi.ArgTarget:
			return o, uint64(t.Imm), true, nil
		case fermi.ArgImm: // JMP: absolute
			return o, uint64(t.Imm), true, nil
		}
		return o, 0, false, errLower("%s through a constant is not supported", name)
	case "BRX", "JMX":
		o.kind = kBrx
		o.cc = uint8(arg(0).Reg)
		o.s[0] = src(1)
		if name == "JMX" {
			o.sub = 1 // absolute
		}
		if o.s[0].kind == oConst {
			o.s[0].kind, o.s[0].row = oCIdx, rowRZ
		}
	case "CAL", "JCAL":
		o.kind = kCal
		t := arg(0)
		if t.Kind == fermi.ArgTarget || t.Kind == fermi.ArgImm {
			return o, uint64(t.Imm), true, nil
		}
		return o, 0, false, errLower("%s through a constant is not supported", name)
	case "SSY", "PBK", "PCNT", "PRET":
		o.kind = kindOfName[name]
		return o, uint64(arg(0).Imm), true, nil
	case "EXIT", "KIL", "RET", "BRK", "CONT":
		o.kind = kindOfName[name]
		o.cc = uint8(arg(0).Reg)
	case "BPT":
		o.kind = kBpt
		o.sub = uint8(mod("bpt"))
	case "NOP", "MEMBAR", "CCTL", "CCTLL":
		o.kind = kNop
		if name == "CCTL" || name == "CCTLL" {
			if d := dst(0); d.kind == oReg && d.row != rowSink {
				return o, 0, false, errLower("CCTL with a result register is not supported")
			}
		}
	case "PLONGJMP", "LONGJMP":
		// nothing public says what sm_2x's long-jump stack keeps or restores
		// (envytools names the instructions only), and no compute listing of
		// the oracle uses them
		return o, 0, false, errLower("%s is not run: the semantics of sm_2x's long-jump stack are not documented "+
			"(no compute listing of the oracle uses it)", name)
	case "FSWZ":
		return o, 0, false, errLower("FSWZ is a pixel-shader instruction (a swizzle across the lanes of a pixel quad); " +
			"the compute emulator has no pixel quads")
	// ---- integer
	case "IADD", "IADD32I":
		d1s(kIadd, 2)
	case "IMUL", "IMUL32I":
		d1s(kImul, 2)
		sgn2()
	case "IMAD", "IMAD32I":
		d1s(kImad, 3)
		sgn2()
	case "ISCADD", "ISCADD32I":
		d1s(kIscadd, 2)
		o.sub = uint8(arg(3).Imm)
	case "SHL":
		d1s(kShl, 2)
	case "SHR":
		d1s(kShr, 2)
	case "LOP", "LOP32I":
		d1s(kLop, 2)
		o.sub = uint8(mod("lop"))
	case "BFE":
		d1s(kBfe, 2)
	case "BFI":
		d1s(kBfi, 3)
	case "FLO":
		d1s(kFlo, 1)
	case "POPC":
		d1s(kPopc, 2)
	case "IMNMX":
		d1s(kImnmx, 3)
		if x := mod("xmnmx"); x != 0 {
			return o, 0, false, errLower("IMNMX%s is not supported", []string{"", ".XLO", ".XMED", ".XHI"}[x])
		}
	case "ISET":
		d1s(kIset, 3)
		o.sub, o.sub2 = uint8(mod("icmp")), uint8(mod("bop"))
	case "ISETP":
		setp(kIsetp, "icmp")
	case "ICMP":
		d1s(kIcmp, 3)
		o.sub = uint8(mod("icmp"))
	case "ISAD":
		d1s(kIsad, 3)
	case "SEL":
		d1s(kSel, 3)
	case "PRMT":
		d1s(kPrmt, 3)
		o.sub = uint8(mod("prmt"))
	case "MOV", "MOV32I":
		d1s(kMov, 1)
		o.lanes = 0xf
		if len(a) > 2 {
			o.lanes = uint8(a[2].Imm)
		}
	case "S2R":
		d1s(kS2R, 1)
	case "LEPC":
		d1s(kLepc, 0)
	// ---- float
	case "FADD", "FADD32I":
		d1s(kFadd, 2)
	case "FMUL", "FMUL32I":
		d1s(kFmul, 2)
		o.sub = uint8(mod("fmulsc"))
	case "FFMA", "FFMA32I":
		d1s(kFfma, 3)
		if short { // FFMA_N: the negate bit is on the first factor
			o.s[1].neg, o.s[0].neg = o.s[0].neg, false
		}
	case "FMNMX":
		d1s(kFmnmx, 3)
	case "FSET":
		d1s(kFset, 3)
		o.sub, o.sub2 = uint8(mod("fcmp")), uint8(mod("bop"))
	case "FSETP":
		setp(kFsetp, "fcmp")
	case "FCMP":
		d1s(kFcmp, 3)
		o.sub = uint8(mod("fcmp"))
		if !has("fcmp") {
			o.sub = 4 // the New spelling without a test is GT (55:4=4)
		}
	case "MUFU":
		d1s(kMufu, 1)
		o.sub = uint8(mod("mufu"))
	case "RRO":
		d1s(kRro, 1)
	case "DADD":
		d1s(kDadd, 2)
	case "DMUL":
		d1s(kDmul, 2)
	case "DFMA":
		d1s(kDfma, 3)
	case "DMNMX":
		d1s(kDmnmx, 3)
	case "DSET":
		d1s(kDset, 3)
		o.sub, o.sub2 = uint8(mod("fcmp")), uint8(mod("bop"))
	case "DSETP":
		p2s(kDsetp, 3)
		o.sub = uint8(mod("fcmp"))
	// ---- conversions
	case "F2F", "F2I", "I2F", "I2I":
		if err := lowerCvt(&o, name, inst, mod, has); err != nil {
			return o, 0, false, err
		}
		d1s(o.kind, 1)
	// ---- predicates, condition code
	case "CSET":
		o.kind = kCset
		o.d = dst(0)
		o.s[0] = src(2)
		o.cc, o.sub2 = uint8(mod("cctest")), uint8(mod("bop"))
	case "CSETP":
		o.kind = kCsetp
		o.d, o.d2 = src(0), src(1)
		o.s[0] = src(3)
		o.cc, o.sub2 = uint8(mod("cctest")), uint8(mod("bop"))
	case "PSET", "PSETP":
		if name == "PSET" {
			d1s(kPset, 3)
		} else {
			p2s(kPsetp, 3)
		}
		// two bop fields: the first joins the first two sources, the
		// second the input predicate
		var bops []uint32
		for _, m := range mods[:nm] {
			if m.Name == "bop" {
				bops = append(bops, m.Value)
			}
		}
		if len(bops) != 2 {
			return o, 0, false, errLower("%s without its two predicate operations", name)
		}
		o.sub, o.sub2 = uint8(bops[0]), uint8(bops[1])
		lowerPsetOrder(&o)
	case "P2R":
		o.kind = kP2R
		o.d = dst(0)
		o.s[0], o.s[1] = src(2), src(3)
		if arg(1).Text == "CC" {
			o.flags |= fCCPR
		}
	case "R2P":
		o.kind = kR2P
		o.s[0], o.s[1] = src(1), src(2)
		if arg(0).Text == "CC" {
			o.flags |= fCCPR
		}
	// ---- synchronisation
	case "VOTE":
		o.kind = kVote
		o.d, o.d2, o.s[0] = dst(0), src(1), src(2)
		o.sub = uint8(mod("vote"))
	case "BAR":
		return lowerBar(o, inst, a, mod)
	case "B2R":
		d1s(kB2R, 1)
	// ---- video
	case "VADD", "VMNMX", "VABSDIFF", "VSET", "VSHL", "VSHR", "VMAD":
		o.kind = kindOfName[name]
		d1s(o.kind, 3)
		lowerVideo(&o, inst, mod)
	case "VSETP":
		p2s(kVsetp, 3)
		o.sub = uint8(mod("icmp"))
		lowerVideo(&o, inst, mod)
	// ---- memory
	case "LD", "LDU", "LDS", "LDL":
		o.kind = kindOfName[name]
		o.d, o.s[0] = dst(0), src(1)
		if err := ldSize(&o, inst, mod, has); err != nil {
			return o, 0, false, err
		}
	case "ST", "STS", "STL":
		o.kind = kindOfName[name]
		o.s[0], o.s[1] = src(0), src(1)
		if err := ldSize(&o, inst, mod, has); err != nil {
			return o, 0, false, err
		}
	case "LDC":
		o.kind = kLdc
		o.d, o.s[0] = dst(0), src(1)
		if o.s[0].kind == oConst { // c[bank][RZ+offset]
			o.s[0].kind, o.s[0].row = oCIdx, rowRZ
		}
		if err := ldSize(&o, inst, mod, has); err != nil {
			return o, 0, false, err
		}
	case "LDS_LDU", "LD_LDU":
		o.kind = kLdLdu
		o.d, o.s[0], o.d2, o.s[1] = dst(0), src(1), dst(2), src(3)
		pair := tableEntry(mod("lduld"))
		var err error
		if o.size, o.sub, err = pairSize(pair[0]); err != nil {
			return o, 0, false, err
		}
		if o.size2, o.sub2, err = pairSize(pair[1]); err != nil {
			return o, 0, false, err
		}
		if name == "LDS_LDU" {
			o.flags |= fShared // .E: the LDU part's address is 64-bit
		} else {
			switch mod("ldue") { // bit 59 .E_LD, bit 58 .E_LDU
			case 1:
				o.flags |= fUniform // only the LDU part is 64-bit
			case 2:
				o.flags |= fE
			case 3:
				o.flags |= fE | fUniform
			}
		}
	case "ATOM", "RED":
		if err := lowerAtom(&o, name, inst, a, mod, has, dst, src); err != nil {
			return o, 0, false, err
		}
	case "LDLK", "LDSLK":
		o.kind = kLdlk
		o.d2, o.d, o.s[0] = src(0), dst(1), src(2)
		if name == "LDSLK" {
			o.flags |= fShared
		}
		if err := ldSize(&o, inst, mod, has); err != nil {
			return o, 0, false, err
		}
	case "STUL", "STSUL":
		o.kind = kStul
		o.s[0], o.s[1] = src(0), src(1)
		if name == "STSUL" {
			o.flags |= fShared
		}
		if err := ldSize(&o, inst, mod, has); err != nil {
			return o, 0, false, err
		}
	case "TLD":
		return lowerTld(o, inst, a, mod)
	default:
		return o, 0, false, errLower("%s is graphics-only or not supported", inst.Op())
	}
	return o, 0, false, nil
}

// lowerArg turns a decoded operand into a lowered one.
func lowerArg(x *fermi.Arg) opnd {
	o := opnd{neg: x.Neg, abs: x.Abs, not: x.Not, cc: x.CC, sel: x.Sel, bc: -1}
	switch x.Kind {
	case fermi.ArgReg:
		o.kind, o.row = oReg, x.Reg
	case fermi.ArgPred:
		o.kind, o.row = oPred, x.Reg
	case fermi.ArgImm:
		o.kind, o.imm = oImm, x.Imm
	case fermi.ArgConst:
		o.kind, o.bank, o.imm = oConst, x.Bank, x.Imm
		if x.Reg != rowRZ {
			o.kind, o.row = oCIdx, x.Reg
		}
	case fermi.ArgMem:
		o.kind, o.row, o.imm = oMem, x.Reg, x.Imm
	case fermi.ArgSReg:
		o.kind, o.imm = oSReg, int64(x.Reg)
	case fermi.ArgCC:
		o.kind, o.imm = oImm, int64(x.Reg)
	case fermi.ArgTarget:
		o.kind, o.imm = oImm, x.Imm
	}
	return o
}

// lowerPsetOrder puts PSET's and PSETP's sources first to last (the form
// lists them last to first): s0 bop1 s1 bop2 s2.
func lowerPsetOrder(o *op) {
	o.s[0], o.s[2] = o.s[2], o.s[0]
}

// tableEntry splits an lduld entry (".U8.S16") into its two sizes.
func tableEntry(v uint32) [2]string {
	names := [...]string{".U8.U8", ".U8.S8", ".U8.U16", ".U8.S16", ".U8.32", ".S8.U8", ".S8.S8", ".S8.U16", ".S8.S16",
		".S8.32", ".U16.U8", ".U16.S8", ".U16.U16", ".U16.S16", ".U16.32", ".S16.U8", ".S16.S8", ".S16.U16",
		".S16.S16", ".S16.32", ".32.U8", ".32.S8", ".32.U16", ".32.S16", ".32.32", ".32.64", ".32.128", ".64.32",
		".64.64", ".64.128", ".128.32", ".128.64"}
	parts := strings.Split(names[v&31], ".")
	return [2]string{parts[1], parts[2]}
}

// pairSize is the size and signedness of one part of an lduld pair.
func pairSize(s string) (size, signed uint8, err error) {
	switch s {
	case "U8":
		return 1, 0, nil
	case "S8":
		return 1, 1, nil
	case "U16":
		return 2, 0, nil
	case "S16":
		return 2, 1, nil
	case "32":
		return 4, 0, nil
	case "64":
		return 8, 0, nil
	case "128":
		return 16, 0, nil
	}
	return 0, 0, errLower("bad load size %q", s)
}

// ldSize reads a memory instruction's access size (ldt table, or the
// 4-byte forms' .64).
func ldSize(o *op, inst fermi.Inst, mod func(string) uint32, has func(string) bool) error {
	o.size = 4
	if has(".64") {
		o.size = 8
	}
	if !has("ldt") {
		return nil
	}
	switch mod("ldt") {
	case 0:
		o.size = 1
	case 1:
		o.size, o.flags = 1, o.flags|fSigned
	case 2:
		o.size = 2
	case 3:
		o.size, o.flags = 2, o.flags|fSigned
	case 4:
		o.size = 4
	case 5:
		o.size = 8
	case 6:
		o.size = 16
	default:
		return errLower("reserved load size")
	}
	return nil
}

// lowerBar lowers the barrier forms: BAR.RED (a reduction, with or without
// results), BAR.SYNC, BAR.ARV. Operands: barrier then thread count, each a
// register or an immediate; the general forms add a result predicate and
// register first and an input predicate last.
func lowerBar(o op, inst fermi.Inst, a []fermi.Arg, mod func(string) uint32) (op, uint64, bool, error) {
	o.kind = kBar
	args := a
	switch {
	case inst.Form() == "BAR.ARV":
		o.flags |= fArrive
	case len(a) == 5: // P53, R14, barrier, count, P49
		o.flags |= fRedDst
		o.d2, o.d = lowerArg(&a[0]), lowerArg(&a[1])
		if o.d.kind == oReg && o.d.row == rowRZ {
			o.d.row = rowSink
		}
		o.s[2] = lowerArg(&a[4])
		args = a[2:4]
	}
	o.sub = uint8(mod("barred")) // POPC, AND, OR
	if len(args) > 0 {
		o.s[0] = lowerArg(&args[0])
	}
	if len(args) > 1 {
		o.s[1] = lowerArg(&args[1])
	}
	if o.s[2].kind == oNone {
		o.s[2] = opnd{kind: oPred, row: predPT}
	}
	return o, 0, false, nil
}

// Conversion types (op.size: destination, op.size2: source).
const (
	tU8 = iota
	tU16
	tU32
	tU64
	tS8
	tS16
	tS32
	tS64
	tF16 = 9
	tF32 = 10
	tF64 = 11
)

func isFloatType(t uint8) bool  { return t >= tF16 }
func isSignedType(t uint8) bool { return t >= tS8 && t <= tS64 }

// typeBits is the width of a conversion type.
func typeBits(t uint8) int {
	switch t {
	case tF16:
		return 16
	case tF32:
		return 32
	case tF64:
		return 64
	}
	return 8 << (t & 3)
}

// lowerCvt reads the types and rounding of F2F, F2I, I2F and I2I.
func lowerCvt(o *op, name string, inst fermi.Inst, mod func(string) uint32, has func(string) bool) error {
	ftype := func(v uint32) (uint8, error) {
		if v == 0 {
			return 0, errLower("reserved float type")
		}
		return uint8(8 + v), nil
	}
	var err error
	switch name {
	case "F2F":
		o.kind = kF2F
		switch {
		case has("f2fr"): // same type, F32 or F64: .PASS, rounding to an integer, or a rounding mode
			v := mod("f2fr")
			o.size, o.size2 = tF32, tF32
			if has(".F64.F64") {
				o.size, o.size2 = tF64, tF64
			}
			if v&1 != 0 {
				o.flags |= fRoundInt
			}
			o.rnd = uint8(v >> 1)
		case has("f2frn"): // the New spelling (never decoded to)
			return errLower("F2F spelling not expected")
		default:
			v := mod("f2fx")
			if o.size, err = ftype(v & 3); err != nil {
				return err
			}
			if o.size2, err = ftype(v >> 2); err != nil {
				return err
			}
		}
	case "F2I":
		o.kind = kF2I
		o.size = uint8(mod("itype"))
		if o.size2, err = ftype(mod("ftype")); err != nil {
			return err
		}
		o.rnd = uint8(mod("f2ir")) // "", FLOOR, CEIL, TRUNC: RN, RM, RP, RZ
	case "I2F":
		o.kind = kI2F
		if o.size, err = ftype(mod("ftype")); err != nil {
			return err
		}
		o.size2 = uint8(mod("itype"))
	case "I2I":
		o.kind = kI2I
		if has("i2in") { // I2I_N: two i2in entries, destination first
			mods, n := inst.Mods()
			var t []uint8
			for _, m := range mods[:n] {
				if m.Name == "i2in" {
					t = append(t, []uint8{tU16, tS16, tU32, tS32}[m.Value])
				}
			}
			if len(t) != 2 {
				return errLower("I2I_N without its two types")
			}
			o.size, o.size2 = t[0], t[1]
			return nil
		}
		mods, n := inst.Mods()
		var t []uint8
		for _, m := range mods[:n] {
			if m.Name == "itype" {
				t = append(t, uint8(m.Value))
			}
		}
		if len(t) != 2 {
			return errLower("I2I without its two types")
		}
		o.size, o.size2 = t[0], t[1]
	}
	return nil
}

// lowerVideo reads the video operand types and the secondary operation.
// Video sources: a (R20) with its selector, b (a register or a 16-bit
// immediate) with its selector, c (R49).
func lowerVideo(o *op, inst fermi.Inst, mod func(string) uint32) {
	vt := mod("vtype")
	o.s[0].sel = uint8(vt & 7)
	o.s[0].sgn = vt>>3&1 != 0
	b := &o.s[1]
	if b.kind == oReg {
		b.sel = uint8(vt >> 4 & 7)
		b.sgn = vt>>7&1 != 0
	} else {
		// an immediate: 16 bits, sign-extended when the source is signed
		b.sel = 6
		if vt>>7&1 != 0 {
			b.imm = int64(int16(b.imm))
			b.sgn = true
		}
	}
	if o.kind != kVsetp { // VSETP's sub2 is its predicate combining
		o.sub2 = uint8(mod("vred"))
	}
	if o.kind == kVmad {
		o.sub2 = uint8(mod("vmad")) // shift of the result: 0, 7, 15
	}
	if o.kind == kVset || o.kind == kVsetp {
		o.sub = uint8(mod("icmp"))
	}
}

// lowerAtom lowers ATOM (old value returned) and RED (none): operation,
// type (32-bit, .S32, .U64, 64-bit exchange and compare-and-swap, .F32),
// the generic address and the value(s).
func lowerAtom(o *op, name string, inst fermi.Inst, a []fermi.Arg, mod func(string) uint32, has func(string) bool,
	dst func(int) opnd, src func(int) opnd) error {
	if name == "ATOM" {
		o.kind = kAtom
		o.d, o.s[0], o.s[1] = dst(0), src(1), src(2)
		if len(a) > 3 {
			o.s[2] = src(3)
		}
	} else {
		o.kind = kRed
		o.s[0], o.s[1] = src(0), src(1)
	}
	o.size = 4
	switch {
	case has("atomop"):
		o.sub = uint8(mod("atomop"))
	case has("redop"):
		o.sub = uint8(mod("redop"))
	case has(".CAS"):
		o.sub = atomCAS
	case has(".CAS.64"):
		o.sub, o.size = atomCAS, 8
	case has(".EXCH.64"):
		o.sub, o.size = atomExch, 8
	case has(".ADD.U64"):
		o.sub, o.size = atomAdd, 8
	case has(".ADD.F32.FTZ.RN"):
		o.sub, o.flags = atomAdd, o.flags|fFloat
	default:
		return errLower("%s: unknown operation", name)
	}
	if has(".S32") {
		o.flags |= fSignedAtom
	}
	if o.sub > atomCAS {
		return errLower("%s: reserved operation", name)
	}
	return nil
}

// Atomic operations: the atomop table (RED's redop is its first 8).
const (
	atomAdd = iota
	atomMin
	atomMax
	atomInc
	atomDec
	atomAnd
	atomOr
	atomXor
	atomExch
	atomCAS
)

// lowerTld lowers TLD.LZ of a 1D texture: tex1Dfetch of a texture bound to
// linear memory, the one texture use of compute kernels (the oracle's SpMV
// kernels read their vector so). Other texture forms fault.
func lowerTld(o op, inst fermi.Inst, a []fermi.Arg, mod func(string) uint32) (op, uint64, bool, error) {
	// R14, R20, [R26,] texture, shape, mask
	if mod("tldl") != 0 || mod(".MS") != 0 || mod(".AOFFI") != 0 || mod(".CL") != 0 || mod("texm") == 2 {
		return o, 0, false, errLower("TLD with these modifiers is not supported")
	}
	n := len(a)
	if n < 5 || a[n-2].Kind != fermi.ArgText || a[n-2].Text != "1D" || n != 5 {
		return o, 0, false, errLower("TLD of a shape other than 1D is not supported")
	}
	o.kind = kTld
	o.d = lowerArg(&a[0])
	o.s[0] = lowerArg(&a[1])
	o.sub = uint8(a[2].Imm) // texture
	o.lanes = uint8(a[4].Imm)
	o.sub2 = uint8(mod("texm")) // .T: the texture index is the slot (our only binding)
	return o, 0, false, nil
}

// kindOfName is the kind of the mnemonics whose case in lowerInst covers
// several (one table, not a map literal built at each instruction).
var kindOfName = map[string]kind{
	"SSY": kSsy, "PBK": kPbk, "PCNT": kPcnt, "PRET": kPret,
	"EXIT": kExit, "KIL": kKil, "RET": kRet, "BRK": kBrk, "CONT": kCont,
	"VADD": kVadd, "VMNMX": kVmnmx, "VABSDIFF": kVabsdiff, "VSET": kVset, "VSHL": kVshl, "VSHR": kVshr, "VMAD": kVmad,
	"LD": kLd, "LDU": kLd, "LDS": kLds, "LDL": kLdl,
	"ST": kSt, "STS": kSts, "STL": kStl,
}
