package usse

// kind is what a lowered op does; exec.go switches on it.
type kind uint8

const (
	kFault       kind = iota // cannot execute: err says why
	kNop                     // nop, phas, wdf, idf, smlsi, smbo, lock: no register effect when run (smlsi and smbo act as they are lowered)
	kEnd                     // emit (emitvtx/emitpds) with end, or the end of the code
	kEmit                    // emit without end
	kMad                     // d = a*b + c (f32/f16 data paths)
	kVop                     // vector two-source op (sub-op in aux)
	kDot                     // d = dot(a, b) over aux channels, or ssq
	kComplex                 // rcp rsq log exp of one channel (aux)
	kMov                     // bit copy of channels
	kCmov                    // d = test(s0) ? s1 : s2 (aux: test)
	kPack                    // format conversion per channel
	kTest                    // vtst: predicate from a test
	kTestMask                // vtstmsk: a mask from a test
	kTestInt                 // vtst of an integer operation (lower_tst.go)
	kTestMaskInt             // vtstmsk of an integer operation
	kBitwise                 // and or xor shl shr rol asr rlp (aux)
	kIntMad                  // integer multiply-add (aux: variant)
	kSop                     // sum of products (blend-style), 8-bit channels
	kBranch                  // br/ba (aux: target op index; link in flags)
	kSetLink                 // link = source word
	kSaveLink                // dest word = link
	kLoadPC                  // lapc: jump to link
	kLimm                    // dest = 32-bit immediate
	kKill                    // stop the instance, discarded
	kSample                  // texture sample
	kLoad                    // lda/ldl/ldt
	kStore                   // sta/stl/stt
	kDepth                   // depthf: depth feedback
	kDual                    // two ops of a dual-issue word (sub ops in dual)
	kDiscard                 // names a register the program does not have: the console discards the instance
)

// Operations of kVop and dual issue (aux).
const (
	vMul = iota
	vAdd
	vFrc
	vDsx
	vDsy
	vMin
	vMax
	vDp // nmad op 7 (Vita3K: a dot product; see doc)
	vSub
	vRcp
	vRsq
	vLog
	vExp
	vMov
	vSubflr // a - floor(b), as frc
)

// op is one lowered instruction (one iteration of a repeated one).
type op struct {
	kind kind
	// pred: 0 always; else 1 + predicate register p0..p3, +8 when negated;
	// predRpt reads p(iteration) (the "pn" predicate).
	pred  uint8
	end   bool  // the instance stops after this op
	last  bool  // last op of its instruction (repeats expand to several)
	inst  int32 // index of the instruction in its program
	it    uint8 // repeat iteration (op index within its instruction)
	n     uint8 // channels written (dst[:n])
	nsrc  uint8 // sources used
	fmt   fmtID // data format of the computation (kMad, kVop, ...)
	sfmt  fmtID // source format where it differs (kPack, kComplex)
	mods  [3]uint8
	aux   uint32
	aux2  uint32
	dst   [4]chanDst
	src   [3][4]chanSrc
	err   error // kFault
	dual  *[2]dualOp
	words [4]uint32 // kLimm value, kSample/kLoad parameters
}

// dualOp is one operation of a dual-issue word.
type dualOp struct {
	vop  int
	n    uint8 // channels written
	nsrc uint8
	nch  uint8 // source channels read (dot products)
	mods [3]uint8
	dst  [4]chanDst
	src  [3][4]chanSrc
}

// Source modifiers.
const (
	modNeg = 1
	modAbs = 2
)

// fmtID is a data format of the USSE data paths.
type fmtID uint8

const (
	fF32 fmtID = iota
	fF16
	fFX10 // fixed point, 10 bits, 2.8 (value/255), three per word
	fU8
	fS8
	fO8 // offset 8-bit: value - 128
	fU16
	fS16
	fU32
	fS32
)

var fmtNames = [...]string{"f32", "f16", "fx10", "u8", "s8", "o8", "u16", "s16", "u32", "s32"}

func (f fmtID) String() string {
	if int(f) < len(fmtNames) {
		return fmtNames[f]
	}
	return "fmt?"
}

// fmtByName maps the spec's format spellings (pckfmt, movfmt, cfmt, ...).
var fmtByName = map[string]fmtID{
	"f32": fF32, "f16": fF16, "fx10": fFX10, "c10": fFX10,
	"u8": fU8, "s8": fS8, "o8": fO8, "i8": fU8,
	"u16": fU16, "s16": fS16, "i16": fU16,
	"u32": fU32, "s32": fS32, "i32": fU32,
}

// width is the bits of one channel of a format in a register.
func (f fmtID) width() int {
	switch f {
	case fF32, fU32, fS32:
		return 32
	case fF16, fU16, fS16:
		return 16
	case fFX10:
		return 10
	}
	return 8
}
