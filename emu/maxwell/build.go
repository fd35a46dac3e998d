package maxwell

import (
	"fmt"
	"slices"

	"github.com/gpuisa/gpuisa/emu/internal/fp"
)

// kind is what a lowered op does.
type kind uint8

const (
	kInvalid kind = iota
	kNop
	kMov
	kSel
	kIAdd
	kIAdd3
	kXmad
	kImad
	kImul
	kIscadd
	kLea
	kLeaHi
	kLop
	kLop3
	kShl
	kShr
	kShf
	kBfe
	kBfi
	kPopc
	kFlo
	kImnmx
	kIsetp
	kIset
	kIcmp
	kPrmt
	kFadd
	kFmul
	kFfma
	kFmnmx
	kFsetp
	kFset
	kFcmp
	kMufu
	kRro
	kFchk
	kDadd
	kDmul
	kDfma
	kDmnmx
	kDsetp
	kDset
	kF2F
	kF2I
	kI2F
	kI2I
	kPsetp
	kPset
	kCsetp
	kP2R
	kR2P
	kS2R
	kCs2r
	kLd
	kSt
	kLdg
	kStg
	kLds
	kSts
	kLdl
	kStl
	kLdc
	kAtom
	kAtoms
	kRed
	kShfl
	kVote
	kBar
	kSsy
	kSync
	kPbk
	kBrk
	kPcnt
	kCont
	kCal
	kRet
	kBra
	kExit
	kBpt
	kHadd2
	kHmul2
	kHfma2
	kHsetp2
	kHset2
	kVabsdiff
	kVabsdiff4
	kBrx
	kB2R
	kVideo
	kPret  // push a return address (the callee's RET comes back there)
	kPexit // push a pre-exit target: EXIT sends lanes there (emu.Warp.ExitLanes)
	kJmx   // indirect jump to an absolute address per lane
	kTex   // texture and surface instructions (tex_run.go)
)

// video operations (op.sub of kVideo)
const (
	vAdd uint8 = iota
	vMnmx
	vSet
	vShl
	vShr
	vMad
)

// video secondary operations (op.bop of kVideo; vSet keeps its comparison in op.rnd)
const (
	v2None uint8 = iota
	v2Add
	v2Min
	v2Max
)

// Comparison codes: bit 0 less, 1 equal, 2 greater, 3 unordered.
var cmpCodes = map[string]uint8{"F": 0, "LT": 1, "EQ": 2, "LE": 3, "GT": 4, "NE": 5, "GE": 6, "NUM": 7,
	"NAN": 8, "LTU": 9, "EQU": 10, "LEU": 11, "GTU": 12, "NEU": 13, "GEU": 14, "T": 15}

var bopCodes = map[string]uint8{"AND": 0, "OR": 1, "XOR": 2}

// Conversion types.
const (
	tU8 uint8 = iota + 1
	tS8
	tU16
	tS16
	tU32
	tS32
	tU64
	tS64
	tF16
	tF32
	tF64
)

var cvtTypes = map[string]uint8{"U8": tU8, "S8": tS8, "U16": tU16, "S16": tS16, "U32": tU32, "S32": tS32,
	"U64": tU64, "S64": tS64, "F16": tF16, "F32": tF32, "F64": tF64}

var rndCodes = map[string]uint8{"RN": 0, "RM": 1, "RP": 2, "RZ": 3, "ROUND": 4, "FLOOR": 5, "CEIL": 6, "TRUNC": 7}

// MUFU functions (package fp's codes, which sm_2x shares).
const (
	mCos    = fp.Cos
	mSin    = fp.Sin
	mEx2    = fp.Ex2
	mLg2    = fp.Lg2
	mRcp    = fp.Rcp
	mRsq    = fp.Rsq
	mRcp64h = fp.Rcp64H
	mRsq64h = fp.Rsq64H
	mSqrt   = fp.Sqrt
)

var mufuCodes = map[string]uint8{"COS": mCos, "SIN": mSin, "EX2": mEx2, "LG2": mLg2, "RCP": mRcp, "RSQ": mRsq,
	"RCP64H": mRcp64h, "RSQ64H": mRsq64h, "SQRT": mSqrt}

// Atomic ops (sub).
const (
	aAdd uint8 = iota
	aMin
	aMax
	aInc
	aDec
	aAnd
	aOr
	aXor
	aExch
	aCas
)

var atomCodes = map[string]uint8{"ADD": aAdd, "MIN": aMin, "MAX": aMax, "INC": aInc, "DEC": aDec, "AND": aAnd,
	"OR": aOr, "XOR": aXor, "EXCH": aExch, "CAS": aCas}

// Special registers.
const (
	srLaneID = iota
	srTidX
	srTidY
	srTidZ
	srCtaX
	srCtaY
	srCtaZ
	srClockLo
	srClockHi
	srEqMask
	srLtMask
	srLeMask
	srGtMask
	srGeMask
	srZero
	srWarpID
	srNWarpID
	srSMID
	srVirtID
	srTimerLo
	srTimerHi
	srSMemSz
)

var sregs = map[string]int{"SR_LANEID": srLaneID, "SR_TID.X": srTidX, "SR_TID.Y": srTidY, "SR_TID.Z": srTidZ,
	"SR_CTAID.X": srCtaX, "SR_CTAID.Y": srCtaY, "SR_CTAID.Z": srCtaZ, "SR_CLOCKLO": srClockLo,
	"SR_CLOCKHI": srClockHi, "SR_EQMASK": srEqMask, "SR_LTMASK": srLtMask, "SR_LEMASK": srLeMask,
	"SR_GTMASK": srGtMask, "SR_GEMASK": srGeMask, "SRZ": srZero, "SR_VIRTCFG": srZero, "SR_VIRTID": srVirtID,
	"SR_GLOBALTIMERLO": srTimerLo, "SR_GLOBALTIMERHI": srTimerHi, "SR_SMEMSZ": srSMemSz,
	"SR_PM0": srZero, "SR_PM3": srZero, "SR_PM_HI0": srZero, "SR_LMEMHIOFF": srZero, "SR_WARPID": srWarpID,
	"SR_NWARPID": srNWarpID, "SR_SMID": srSMID, "SR_CLOCK": srClockLo}

var errNoSem = fmt.Errorf("no semantics for this instruction")

// build fills o from the mnemonic, its modifiers and operands.
func build(o *op, name string, mods []string, x []opnd, word uint64) error {
	has := func(m string) bool { return slices.Contains(mods, m) }
	need := func(n int) error {
		if len(x) < n {
			return fmt.Errorf("%s needs %d operands, has %d", name, n, len(x))
		}
		return nil
	}
	flag := func(m string, f uint32) {
		if has(m) {
			o.flags |= f
		}
	}
	flag("FTZ", fFTZ)
	flag("SAT", fSAT)
	flag("X", fX)
	flag("U32", fU32)
	flag("HI", fHI)
	flag("E", fE)
	flag("W", fW)
	flag("BREV", fBREV)
	flag("SH", fSH)
	flag("BF", fBF)
	for _, m := range mods {
		if r, ok := rndCodes[m]; ok {
			o.rnd = r
		}
	}
	// destination, then sources
	alu := func(nsrc int) error {
		if err := need(1 + nsrc); err != nil {
			return err
		}
		o.d = x[0]
		copy(o.s[:], x[1:1+nsrc])
		o.nsrc = uint8(nsrc)
		return nil
	}
	cmpMods := func() {
		for _, m := range mods {
			if c, ok := cmpCodes[m]; ok {
				o.sub = c
				break
			}
		}
		for _, m := range mods {
			if b, ok := bopCodes[m]; ok {
				o.bop = b
			}
		}
	}
	setp := func() error { // P, P, a, b, c
		if err := need(5); err != nil {
			return err
		}
		cmpMods()
		o.d, o.d2 = x[0], x[1]
		copy(o.s[:], x[2:5])
		return nil
	}
	setr := func() error { // R, a, b, c
		if err := need(4); err != nil {
			return err
		}
		cmpMods()
		o.d = x[0]
		copy(o.s[:], x[1:4])
		return nil
	}
	memTypes := func(def uint8) {
		o.size = def
		for _, m := range mods {
			switch m {
			case "U8":
				o.size = 1
			case "S8":
				o.size, o.flags = 1, o.flags|fSigned
			case "U16":
				o.size = 2
			case "S16":
				o.size, o.flags = 2, o.flags|fSigned
			case "32":
				o.size = 4
			case "64":
				o.size = 8
			case "128":
				o.size = 16
			}
		}
	}
	if p, ok := plainALU[name]; ok {
		o.kind = p.kind
		return alu(p.nsrc)
	}
	switch name {
	case "NOP", "MEMBAR", "DEPBAR", "CCTL", "CCTLL", "PMEVENT", "NOP.TRIG":
		o.kind = kNop
		return nil
	case "MOV", "MOV32I":
		o.kind = kMov
		return alu(1)
	case "IADD", "IADD32I":
		o.kind = kIAdd
		if has("PO") {
			o.sub = 1
		}
		return alu(2)
	case "IADD3":
		o.kind = kIAdd3
		flag("RS", fRS)
		flag("LS", fLS)
		return alu(3)
	case "XMAD":
		o.kind = kXmad
		flag("PSL", fPSL)
		flag("MRG", fMRG)
		flag("CHI", fCHI)
		flag("CLO", fCLO)
		flag("CBCC", fCBCC)
		flag("CSFU", fCSFU)
		// type modifiers: .S16.U16 etc: first is a, second b
		var ts []string
		for _, m := range mods {
			if m == "S16" || m == "U16" {
				ts = append(ts, m)
			}
		}
		if len(ts) >= 1 && ts[0] == "S16" {
			o.flags |= fS16A
		}
		if len(ts) >= 2 && ts[1] == "S16" {
			o.flags |= fS16B
		}
		return alu(3)
	case "IMAD", "IMAD32I":
		o.kind = kImad
		imulTypes(o, mods)
		return alu(3)
	case "IMUL", "IMUL32I":
		o.kind = kImul
		imulTypes(o, mods)
		return alu(2)
	case "ISCADD", "ISCADD32I":
		o.kind = kIscadd
		return alu(3)
	case "LEA":
		o.kind = kLea
		if has("HI") {
			o.kind = kLeaHi
		}
		// LEA [P,] Rd, a, b[, shift]; LEA.HI [P,] Rd, a, b, c[, shift]
		if len(x) > 0 && x[0].kind == oPred {
			o.d2, x = x[0], x[1:]
		}
		if err := need(3); err != nil {
			return err
		}
		o.d = x[0]
		rest := x[1:]
		copy(o.s[:], rest)
		o.nsrc = uint8(len(rest))
		if o.kind == kLea && len(rest) == 2 {
			o.s[2] = opnd{kind: oImm, bc: -1} // shift 0
		}
		if o.kind == kLeaHi && len(rest) == 3 {
			o.s[3] = opnd{kind: oImm, bc: -1}
		}
		return nil
	case "LOP", "LOP32I":
		o.kind = kLop
		for i, m := range []string{"AND", "OR", "XOR", "PASS_B"} {
			if has(m) {
				o.sub = uint8(i)
			}
		}
		flag("NZ", fNZ)
		flag("Z", fZ)
		if len(x) > 0 && x[0].kind == oPred {
			o.d2 = x[0]
			x = x[1:]
		}
		return alu(2)
	case "LOP3":
		o.kind = kLop3
		flag("NZ", fNZ)
		flag("Z", fZ)
		if len(x) > 0 && x[0].kind == oPred {
			o.d2 = x[0]
			x = x[1:]
		}
		if err := alu(4); err != nil {
			return err
		}
		o.sub = uint8(o.s[3].imm)
		return nil
	case "SHR":
		o.kind = kShr
		if !has("U32") {
			o.flags |= fSigned
		}
		return alu(2)
	case "SHF":
		o.kind = kShf
		flag("L", fL)
		flag("R", fR)
		flag("HI", fHI)
		if has("S64") || has("U64") {
			o.flags |= f64
		}
		if has("S64") {
			o.flags |= fSigned
		}
		return alu(3)
	case "POPC":
		o.kind = kPopc
		if len(x) == 3 {
			return alu(2)
		}
		return alu(1)
	case "IMNMX":
		o.kind = kImnmx
		flag("XHI", fXHI)
		flag("XLO", fXLO)
		return alu(3)
	case "ISETP":
		o.kind = kIsetp
		return setp()
	case "ISET":
		o.kind = kIset
		return setr()
	case "ICMP":
		o.kind = kIcmp
		cmpMods()
		return alu(3)
	case "PRMT":
		o.kind = kPrmt
		for i, m := range []string{"F4E", "B4E", "RC8", "ECL", "ECR", "RC16"} {
			if has(m) {
				o.sub = uint8(i + 1)
			}
		}
		return alu(3)
	case "FADD", "FADD32I":
		o.kind = kFadd
		return alu(2)
	case "FMUL", "FMUL32I":
		o.kind = kFmul
		if has("FMZ") {
			o.flags |= fFTZ
		}
		for i, m := range []string{"D2", "D4", "D8", "M8", "M4", "M2"} {
			if has(m) {
				o.sub = uint8(i + 1)
			}
		}
		return alu(2)
	case "FFMA", "FFMA32I":
		o.kind = kFfma
		if has("FMZ") {
			o.flags |= fFTZ
		}
		return alu(3)
	case "FSETP":
		o.kind = kFsetp
		return setp()
	case "FSET":
		o.kind = kFset
		return setr()
	case "FCMP":
		o.kind = kFcmp
		cmpMods()
		return alu(3)
	case "MUFU":
		o.kind = kMufu
		for _, m := range mods {
			if f, ok := mufuCodes[m]; ok {
				o.sub = f
			}
		}
		return alu(1)
	case "FCHK":
		o.kind = kFchk
		if err := need(3); err != nil {
			return err
		}
		o.d = x[0]
		copy(o.s[:], x[1:3])
		return nil
	case "DSETP":
		o.kind = kDsetp
		return setp()
	case "DSET":
		o.kind = kDset
		return setr()
	case "F2F", "F2I", "I2F", "I2I":
		o.kind = kindOfName[name]
		var ts []uint8
		for _, m := range mods {
			if t, ok := cvtTypes[m]; ok {
				ts = append(ts, t)
			}
		}
		switch len(ts) {
		case 2:
			o.dt, o.st = ts[0], ts[1]
		default:
			def := map[string][2]uint8{"F2F": {tF32, tF32}, "F2I": {tS32, tF32}, "I2F": {tF32, tS32}, "I2I": {tS32, tS32}}[name]
			o.dt, o.st = def[0], def[1]
			if len(ts) == 1 { // the one written is the destination unless it fits the source
				if name == "F2I" || name == "I2I" {
					o.dt = ts[0]
				} else if ts[0] >= tF16 {
					o.dt = ts[0]
				} else {
					o.st = ts[0]
				}
			}
		}
		return alu(1)
	case "PSETP":
		o.kind = kPsetp
		if err := need(5); err != nil {
			return err
		}
		bops := bopList(mods)
		o.sub, o.bop = bops[0], bops[1]
		o.d, o.d2 = x[0], x[1]
		copy(o.s[:], x[2:5])
		return nil
	case "PSET":
		o.kind = kPset
		if err := need(4); err != nil {
			return err
		}
		bops := bopList(mods)
		o.sub, o.bop = bops[0], bops[1]
		o.d = x[0]
		copy(o.s[:], x[1:4])
		return nil
	case "CSETP":
		o.kind = kCsetp
		if err := need(4); err != nil {
			return err
		}
		cmpMods()
		for _, m := range mods {
			if c, ok := ccTests[m]; ok {
				o.sub = c
			}
		}
		o.d, o.d2 = x[0], x[1]
		o.s[0] = x[3]
		return nil
	case "R2P":
		o.kind = kR2P
		if err := need(3); err != nil {
			return err
		}
		o.d = x[0]
		copy(o.s[:], x[1:3])
		return nil
	case "LD", "LDG", "LDL", "LDS":
		o.kind = kindOfName[name]
		memTypes(4)
		return alu(1)
	case "ST", "STG", "STL", "STS":
		o.kind = kindOfName[name]
		memTypes(4)
		if err := need(2); err != nil {
			return err
		}
		o.d = x[0] // the address
		o.s[0] = x[1]
		return nil
	case "LDC":
		o.kind = kLdc
		memTypes(4)
		return alu(1)
	case "ATOM", "ATOMS", "RED":
		o.kind = kindOfName[name]
		if len(x) > 0 && x[0].kind == oPred {
			return fmt.Errorf("%s with a predicate output is not supported", name)
		}
		o.size = 4
		for _, m := range mods {
			if a, ok := atomCodes[m]; ok {
				o.sub = a
			}
			switch m {
			case "S32":
				o.flags |= fSigned
			case "U64", "64", "S64":
				o.size = 8
			case "F32":
				o.dt = tF32
			}
		}
		if m := mods; slices.Contains(m, "S64") {
			o.flags |= fSigned
		}
		if name == "RED" {
			if err := need(2); err != nil {
				return err
			}
			o.d = opnd{kind: oReg, reg: 255}
			copy(o.s[:], x)
			return nil
		}
		if err := need(3); err != nil {
			return err
		}
		o.d = x[0]
		copy(o.s[:], x[1:])
		return nil
	case "SHFL":
		o.kind = kShfl
		for i, m := range []string{"IDX", "UP", "DOWN", "BFLY"} {
			if has(m) {
				o.sub = uint8(i)
			}
		}
		if err := need(5); err != nil {
			return err
		}
		o.d2, o.d = x[0], x[1]
		copy(o.s[:], x[2:5])
		return nil
	case "VOTE":
		o.kind = kVote
		for i, m := range []string{"ALL", "ANY", "EQ"} {
			if has(m) {
				o.sub = uint8(i)
			}
		}
		if err := need(3); err != nil {
			return err
		}
		o.d, o.d2, o.s[0] = x[0], x[1], x[2]
		return nil
	case "BAR":
		o.kind = kBar
		o.sub = 0 // SYNC
		switch {
		case has("ARV"):
			o.sub = 1
		case has("RED"):
			o.sub = 2
			for i, m := range []string{"POPC", "AND", "OR"} {
				if has(m) {
					o.bop = uint8(i)
				}
			}
		}
		if o.sub == 2 {
			// BAR.RED.OP id[, count], {!}Pc; B2R.RESULT reads the result
			if err := need(2); err != nil {
				return err
			}
			o.s[0] = x[0]
			if len(x) == 3 {
				o.s[1] = x[1]
			}
			o.s[2] = x[len(x)-1]
			o.nsrc = 1
			return nil
		}
		copy(o.s[:], x)
		o.nsrc = uint8(len(x))
		return nil
	case "SSY", "PBK", "PCNT", "PEXIT", "CAL", "BRA", "JCAL", "JMP", "PRET":
		// JCAL and JMP take absolute addresses, the others PC-relative
		// ones, which the listing prints as addresses: the same for us
		o.kind = kindOfName[name]
		if err := need(1); err != nil {
			return err
		}
		// .NOINC only keeps a call out of the hardware's call-depth limit
		// count (BRX/JMX.LMT test it); the stack is ours, so it changes nothing
		if (name == "BRA" || name == "JMP") && x[0].kind == oCC {
			// BRA CC.test, target: taken where the guard and the test hold
			o.s[1] = x[0]
			o.flags |= fCCTest
			x = x[1:]
			if err := need(1); err != nil {
				return err
			}
		}
		if x[0].kind != oImm {
			return fmt.Errorf("%s with a non-immediate target is not supported", name)
		}
		t, ok := addrIndex(x[0].imm)
		if !ok {
			return fmt.Errorf("target %#x is not an instruction", x[0].imm)
		}
		o.target, o.hasTarg = t, true
		return nil
	case "VABSDIFF", "VABSDIFF4":
		o.kind = kVabsdiff
		if name == "VABSDIFF4" {
			o.kind = kVabsdiff4
		}
		var ts []uint8
		for _, m := range mods {
			if t, ok := cvtTypes[m]; ok {
				ts = append(ts, t)
			}
		}
		o.st, o.dt = tS32, tS32
		if len(ts) == 2 {
			o.st, o.dt = ts[0], ts[1]
		}
		if has("ACC") {
			o.flags |= fArrive // accumulate c
		}
		return alu(3)
	case "HADD2", "HMUL2", "HFMA2":
		o.kind = kindOfName[name]
		if name == "HFMA2" {
			return alu(3)
		}
		return alu(2)
	case "HSETP2":
		o.kind = kHsetp2
		return setp()
	case "HSET2":
		o.kind = kHset2
		return setr()
	case "B2R":
		if !has("RESULT") {
			return errNoSem
		}
		o.kind = kB2R
		if err := need(1); err != nil {
			return err
		}
		o.d = x[0]
		if len(x) > 1 {
			o.d2 = x[1]
		}
		return nil
	case "VADD", "VMNMX", "VSET", "VSHL", "VSHR", "VMAD":
		o.kind = kVideo
		o.sub = map[string]uint8{"VADD": vAdd, "VMNMX": vMnmx, "VSET": vSet, "VSHL": vShl, "VSHR": vShr, "VMAD": vMad}[name]
		var ts []uint8
		for _, m := range mods {
			if t, ok := cvtTypes[m]; ok {
				ts = append(ts, t)
			}
			switch m {
			case "ACC":
				o.bop = v2Add
			case "MIN":
				o.bop = v2Min
			case "MAX":
				o.bop = v2Max
			case "MX":
				o.flags |= fXHI // the primary operation is max
			case "UD":
				o.flags |= fUD
			case "SHR_7":
				o.size = 7
			case "SHR_15":
				o.size = 15
			}
			if c, ok := cmpCodes[m]; ok && name == "VSET" {
				o.rnd = c
			}
		}
		o.st, o.dt = tS32, tS32
		if len(ts) == 2 {
			o.st, o.dt = ts[0], ts[1]
		}
		return alu(3)
	case "SYNC", "BRK", "CONT", "RET", "EXIT", "KIL":
		// KIL ends threads like EXIT; all of them may test the condition code
		o.kind = kindOfName[name]
		if name == "KIL" {
			o.sub = 1 // ends lanes even under a PEXIT target
		}
		if len(x) > 0 && x[0].kind == oCC {
			o.s[1] = x[0]
			o.flags |= fCCTest
		}
		return nil
	case "BPT":
		o.kind = kBpt
		if has("TRAP") {
			o.sub = 1
		}
		return nil
	}
	return errNoSem
}

// ccTests are CSETP's flag tests beyond the comparisons (codes 0..15).
var ccTests = map[string]uint8{"OFF": 16, "LO": 17, "SFF": 18, "LS": 19, "HI": 20, "SFT": 21, "HS": 22, "OFT": 23}

func bopList(mods []string) [2]uint8 {
	var out [2]uint8
	n := 0
	for _, m := range mods {
		if b, ok := bopCodes[m]; ok && n < 2 {
			out[n] = b
			n++
		}
	}
	return out
}

// imulTypes reads IMUL/IMAD's .U32.U32, .S32.U32, ... (unsigned by
// default only when written).
func imulTypes(o *op, mods []string) {
	var ts []string
	for _, m := range mods {
		if m == "U32" || m == "S32" {
			ts = append(ts, m)
		}
	}
	o.flags &^= fU32
	// sub bit 0: a signed, bit 1: b signed
	switch len(ts) {
	case 0:
		o.sub = 3
	case 2:
		if ts[0] == "S32" {
			o.sub |= 1
		}
		if ts[1] == "S32" {
			o.sub |= 2
		}
	}
}

// kindOfName is the kind of the mnemonics whose case in build covers several
// (a table, not a map literal in each case: that would be built per call).
var kindOfName = map[string]kind{
	"F2F": kF2F, "F2I": kF2I, "I2F": kI2F, "I2I": kI2I,
	"LD": kLd, "LDG": kLdg, "LDL": kLdl, "LDS": kLds,
	"ST": kSt, "STG": kStg, "STL": kStl, "STS": kSts,
	"ATOM": kAtom, "ATOMS": kAtoms, "RED": kRed,
	"SSY": kSsy, "PBK": kPbk, "PCNT": kPcnt, "PEXIT": kPexit, "CAL": kCal, "BRA": kBra, "JCAL": kCal, "JMP": kBra, "PRET": kPret,
	"HADD2": kHadd2, "HMUL2": kHmul2, "HFMA2": kHfma2,
	"SYNC": kSync, "BRK": kBrk, "CONT": kCont, "RET": kRet, "EXIT": kExit, "KIL": kExit,
}

// plainALU are the mnemonics whose lowering needs nothing but their kind
// and a destination with nsrc sources.
var plainALU = map[string]struct {
	kind kind
	nsrc int
}{
	"SEL":   {kSel, 3},
	"SHL":   {kShl, 2},
	"BFE":   {kBfe, 2},
	"BFI":   {kBfi, 3},
	"FLO":   {kFlo, 1},
	"FMNMX": {kFmnmx, 3},
	"RRO":   {kRro, 1},
	"DADD":  {kDadd, 2},
	"DMUL":  {kDmul, 2},
	"DFMA":  {kDfma, 3},
	"DMNMX": {kDmnmx, 3},
	"P2R":   {kP2R, 3},
	"S2R":   {kS2R, 1},
	"CS2R":  {kCs2r, 1},
}
