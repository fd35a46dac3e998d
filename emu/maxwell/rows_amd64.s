//go:build amd64 && !purego

// Lane loops over whole rows in SSE2 (every amd64 has it), four lanes per
// instruction: the declarations and the reasons are in rows_amd64.go, the
// same operations in Go in rows_go.go.

#include "textflag.h"

// RUN_DEVIATION compares the row of low words at AX with X4 (lanes 0..3's
// expected words, X5 added for each next four) and the row of high words
// at BX with X6: DX is 0xffff when every word is as expected.
#define RUN_GROUP(off) \
	MOVOU off(AX), X1 \
	PXOR  X4, X1 \
	POR   X1, X0 \
	MOVOU off(BX), X2 \
	PXOR  X6, X2 \
	POR   X2, X0 \
	PADDL X5, X4

#define RUN_DEVIATION \
	PXOR X0, X0 \
	RUN_GROUP(0) \
	RUN_GROUP(16) \
	RUN_GROUP(32) \
	RUN_GROUP(48) \
	RUN_GROUP(64) \
	RUN_GROUP(80) \
	RUN_GROUP(96) \
	RUN_GROUP(112) \
	PXOR X3, X3 \
	PCMPEQB X3, X0 \
	PMOVMSKB X0, DX

// func add64Rows(a1, b1, d1, a2, b2, d2 *lanes)
TEXT ·add64Rows(SB), NOSPLIT, $0-48
	MOVQ a1+0(FP), AX
	MOVQ b1+8(FP), BX
	MOVQ d1+16(FP), CX
	MOVQ a2+24(FP), DX
	MOVQ b2+32(FP), SI
	MOVQ d2+40(FP), DI
	MOVL $0x80000000, R8
	MOVL R8, X7
	PSHUFD $0, X7, X7 // the sign bits: unsigned order as signed
	XORQ R9, R9

add64loop:
	MOVOU (AX)(R9*1), X0
	MOVOU (BX)(R9*1), X1
	PADDL X0, X1
	MOVOU X1, (CX)(R9*1) // d1 before a2 and b2 are read: they may be d1
	PXOR  X7, X0
	PXOR  X7, X1
	PCMPGTL X1, X0       // a1 > a1+b1 (unsigned): all ones where it carries
	MOVOU (DX)(R9*1), X2
	MOVOU (SI)(R9*1), X3
	PADDL X3, X2
	PSUBL X0, X2         // minus all ones: plus the carry
	MOVOU X2, (DI)(R9*1)
	ADDQ  $16, R9
	CMPQ  R9, $128
	JNE   add64loop
	RET

// func wordsDiffer(a, b *uint32, n int) bool
TEXT ·wordsDiffer(SB), NOSPLIT, $0-25
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	PXOR X0, X0
	XORQ R9, R9

differloop:
	MOVOU (AX)(R9*1), X1
	MOVOU (BX)(R9*1), X2
	PXOR  X2, X1
	POR   X1, X0
	ADDQ  $16, R9
	CMPQ  R9, CX
	JLT   differloop
	PXOR  X3, X3
	PCMPEQB X3, X0
	PMOVMSKB X0, DX
	CMPL  DX, $0xffff
	SETNE ret+24(FP)
	RET

// func runDiffers(lo, hi *lanes, first *[4]uint32, step, h uint32) bool
TEXT ·runDiffers(SB), NOSPLIT, $0-33
	MOVQ lo+0(FP), AX
	MOVQ hi+8(FP), BX
	MOVQ first+16(FP), CX
	MOVOU (CX), X4   // lanes 0..3's expected low words
	MOVL step+24(FP), DX
	SHLL $2, DX
	MOVL DX, X5
	PSHUFD $0, X5, X5 // four steps: from lanes l..l+3 to l+4..l+7
	MOVL h+28(FP), DX
	MOVL DX, X6
	PSHUFD $0, X6, X6 // the high word of every lane
	RUN_DEVIATION
	CMPL  DX, $0xffff
	SETNE ret+32(FP)
	RET

// func ffmaRows(d, a, b, c *lanes) (careful uint32)
TEXT ·ffmaRows(SB), NOSPLIT, $0-36
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), SI
	MOVL $0x0fffffff, DX
	MOVL DX, X8
	PSHUFD $0, X8, X8 // the low 28 bits of a double's low word
	PXOR X9, X9
	XORQ R9, R9       // byte offset of lanes l..l+3
	XORL R11, R11     // the lanes left for the careful path
	XORL CX, CX       // l

ffmaloop:
	MOVOU (AX)(R9*1), X0
	MOVOU (BX)(R9*1), X1
	MOVOU (SI)(R9*1), X2
	CVTPS2PD X0, X3 // lanes l, l+1 as doubles: a*b exact, one rounding of the sum
	CVTPS2PD X1, X4
	MULPD X4, X3
	CVTPS2PD X2, X4
	ADDPD X4, X3
	MOVHLPS X0, X0 // lanes l+2, l+3
	MOVHLPS X1, X1
	MOVHLPS X2, X2
	CVTPS2PD X0, X5
	CVTPS2PD X1, X6
	MULPD X6, X5
	CVTPS2PD X2, X6
	ADDPD X6, X5
	MOVAPS X3, X0
	SHUFPS $0x88, X5, X0 // the four sums' low words
	PAND X8, X0
	PCMPEQL X9, X0       // all ones: a possible float32 tie (or inf, NaN, 0)
	MOVMSKPS X0, R10
	CVTPD2PS X3, X3
	CVTPD2PS X5, X5
	MOVLHPS X5, X3       // the four float32 results
	TESTL R10, R10
	JNE ffmablend
	MOVOU X3, (DI)(R9*1)
	JMP ffmanext

ffmablend: // keep those lanes as they were: the careful path reads a, b and c, which d may be
	MOVOU (DI)(R9*1), X1
	PAND X0, X1
	PANDN X3, X0
	POR X1, X0
	MOVOU X0, (DI)(R9*1)
	SHLL CX, R10
	ORL R10, R11

ffmanext:
	ADDQ $16, R9
	ADDL $4, CX
	CMPQ R9, $128
	JNE ffmaloop
	MOVL R11, careful+32(FP)
	RET

// func rowRun32(row, lo, hi *lanes, mem *byte, n, off uint64, store bool) (start uint64, ok bool)
TEXT ·rowRun32(SB), NOSPLIT, $0-65
	MOVQ lo+8(FP), AX
	MOVQ hi+16(FP), BX
	MOVL (AX), R8   // lane 0's low word
	MOVL 124(AX), R9
	SUBL R8, R9
	CMPL R9, $124   // lane 31's: the quick test
	JNE  runfail
	CMPL R8, $0xffffff83 // no wrap between lane 0 and lane 31
	JHI  runfail
	MOVL (BX), R10  // the high word
	MOVL R8, X4
	PSHUFD $0, X4, X4
	MOVQ $0x0000000400000000, R11
	MOVQ R11, X0
	MOVQ $0x0000000c00000008, R11
	MOVQ R11, X1
	PUNPCKLQDQ X1, X0
	PADDL X0, X4    // lanes 0..3's low words
	MOVL $16, R11
	MOVL R11, X5
	PSHUFD $0, X5, X5 // four lanes on
	MOVL R10, X6
	PSHUFD $0, X6, X6
	RUN_DEVIATION
	CMPL  DX, $0xffff
	JNE   runfail
	SHLQ  $32, R10
	ORQ   R8, R10
	ADDQ  off+40(FP), R10 // the offset in memory: aligned, 128 bytes inside
	TESTQ $3, R10
	JNE   runfail
	MOVQ  n+32(FP), R11
	CMPQ  R10, R11
	JAE   runfail
	SUBQ  R10, R11
	CMPQ  R11, $128
	JB    runfail
	MOVQ  mem+24(FP), SI
	ADDQ  R10, SI
	MOVQ  row+0(FP), DI
	MOVBLZX store+48(FP), DX
	TESTL DX, DX
	JNE   runstore
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVOU 64(SI), X4
	MOVOU 80(SI), X5
	MOVOU 96(SI), X6
	MOVOU 112(SI), X7
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
	MOVOU X4, 64(DI)
	MOVOU X5, 80(DI)
	MOVOU X6, 96(DI)
	MOVOU X7, 112(DI)
	JMP   rundone

runstore:
	MOVOU 0(DI), X0
	MOVOU 16(DI), X1
	MOVOU 32(DI), X2
	MOVOU 48(DI), X3
	MOVOU 64(DI), X4
	MOVOU 80(DI), X5
	MOVOU 96(DI), X6
	MOVOU 112(DI), X7
	MOVOU X0, 0(SI)
	MOVOU X1, 16(SI)
	MOVOU X2, 32(SI)
	MOVOU X3, 48(SI)
	MOVOU X4, 64(SI)
	MOVOU X5, 80(SI)
	MOVOU X6, 96(SI)
	MOVOU X7, 112(SI)

rundone:
	MOVQ  R10, start+56(FP)
	MOVB  $1, ok+64(FP)
	RET

runfail:
	MOVQ  $0, start+56(FP)
	MOVB  $0, ok+64(FP)
	RET

// func cmpRows(a, b *lanes, flip uint32) (lt, eq uint32)
TEXT ·cmpRows(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVL flip+16(FP), DX
	XORL $0x80000000, DX // PCMPGTL compares signed
	MOVL DX, X7
	PSHUFD $0, X7, X7
	XORL R10, R10
	XORL R11, R11
	XORQ R9, R9
	XORL CX, CX

cmploop:
	MOVOU (AX)(R9*1), X0
	MOVOU (BX)(R9*1), X1
	PXOR  X7, X0
	PXOR  X7, X1
	MOVO  X1, X2
	PCMPGTL X0, X2 // b > a
	PCMPEQL X1, X0
	MOVMSKPS X2, DX
	SHLL  CX, DX
	ORL   DX, R10
	MOVMSKPS X0, DX
	SHLL  CX, DX
	ORL   DX, R11
	ADDQ  $16, R9
	ADDL  $4, CX
	CMPQ  R9, $128
	JNE   cmploop
	MOVL  R10, lt+24(FP)
	MOVL  R11, eq+28(FP)
	RET

// func addRowsNeg(d, a, b *lanes, na, nb uint32)
TEXT ·addRowsNeg(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVL na+24(FP), DX
	MOVL DX, X6
	PSHUFD $0, X6, X6
	MOVL nb+28(FP), DX
	MOVL DX, X7
	PSHUFD $0, X7, X7
	XORQ R9, R9

addloop:
	MOVOU (AX)(R9*1), X0
	PXOR  X6, X0
	PSUBL X6, X0
	MOVOU (BX)(R9*1), X1
	PXOR  X7, X1
	PSUBL X7, X1
	PADDL X1, X0
	MOVOU X0, (DI)(R9*1)
	ADDQ  $16, R9
	CMPQ  R9, $128
	JNE   addloop
	RET

// func shlAddRows(d, a, b *lanes, sh uint32)
TEXT ·shlAddRows(SB), NOSPLIT, $0-28
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVL sh+24(FP), DX
	ANDL $31, DX
	MOVQ DX, X7
	XORQ R9, R9

shladdloop:
	MOVOU (AX)(R9*1), X0
	PSLLL X7, X0
	MOVOU (BX)(R9*1), X1
	PADDL X1, X0
	MOVOU X0, (DI)(R9*1)
	ADDQ  $16, R9
	CMPQ  R9, $128
	JNE   shladdloop
	RET
