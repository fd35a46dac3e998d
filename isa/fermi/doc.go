// Package fermi disassembles and assembles NVIDIA Fermi (sm_20, sm_21) machine
// code the way NVIDIA's cuobjdump prints it.
//
// Every instruction form is written once, in fermi.spec; `go generate` turns
// it into tables.go, which the decoder (DecodeWord: index by opcode bits,
// mask/value match), the printer (AppendTextDialect) and the assembler
// (AssembleLineDialect, Assemble) all read. Bits a form does not describe must
// be zero, so every word that decodes reassembles to itself.
//
// Decoder{}.Decode(code, addr) decodes the instruction at address addr of
// code, the shape every ISA package of gpuisa shares (DecodeWord decodes a
// word); Inst.Args(pc) gives its operands as typed values.
//
// # Dialects
//
// cuobjdump printed sm_2x code in two styles. Old (CUDA 3.x/4.0, all of the
// real sm_20 listings in ../shared/oracle) writes c [0x0] [0x20], pt,
// SR_Tid_X, immediates as raw fields (0xfffff, float 0xbf800), NOP CC.T,
// F2F.PASS, and lists PSETP sources last to first. New (CUDA 5+, the
// default) writes c[0x0][0x20], PT, SR_TID.X, signed integers (-0x1),
// decimal floats (%.20g), ISUB for IADD with a negated second source, the
// product negation of FFMA/FMUL on the first factor, F2F.F32.F32. No tool
// that still prints sm_2x exists, so New follows the CUDA 5+ Kepler listings
// of the oracle (GK104 kept Fermi's encoding); TestKeplerCrossCheck prints
// every one of them identically.
//
// Where a negate bit meets an immediate, New prints "-+0x10" (negate bit,
// immediate 0x10) so that it cannot be read as the immediate -0x10; Old
// prints "-0x10", which cannot be a negative immediate there. NaN float
// immediates print as raw fields so their payload survives.
//
// # Known differences from the real listings
//
// CUDA 4.0 builds printed SHL, SHR, VSHL and VSHR with or without ".W" for
// the same word (NOTES.md of the oracle); we print .W exactly when the wrap
// bit is set, as CUDA 5+ does, so 7117 of the 94290 sm_20 rows differ only
// by that suffix, and their text cannot tell the assembler the wrap bit.
//
// # Forms no listing shows
//
// The mnemonics are those of NVIDIA's Fermi instruction set list (CUDA
// binary utilities) and of cuobjdump's opcode table as asfermi probed it
// (nanb.md: e.g. VSETP, TXA, SUQ, and the 4-byte MOV_N, IADD_N, ...); the
// encodings come from seed 003 and envytools. Spelled
// from the CUDA 5+ Kepler conventions: ATOM, B2R, CONT, CSET, CSETP, DMNMX,
// DSET, FFMA32I, IMAD32I, ISAD, ISCADD32I, JCAL, JMP, JMX, KIL, LDLK, LDSLK,
// LEPC, LONGJMP, MEMBAR, P2R, PCNT, PLONGJMP, PRET, R2P, STSUL, STUL, TEX,
// TLD4, TXQ, VABSDIFF, VMAD, VSET, and the variants of listed mnemonics that
// no row shows (typed RED, BAR.ARV, TLD without .LZ, video byte/half
// selectors and merge modes).
//
// Spelled as nvdisasm prints the same operations for sm_5x (the Maxwell
// rows of the oracle): CCTL.E.<type>.<op> [R2+0x10] and CCTLL;
// IMNMX.U32.XLO/.XMED/.XHI; byte and half sources of I2I/I2F/F2I/F2F
// ("-|R2.B3|", "R2.H1"); JMP/BRA/CAL/JCAL c[0x1][0x10]; BRX/JMX with a
// register ("BRX R6 -0x380"); the surface instructions SULD.D.BA,
// SUST.D.BA, SUST.P, SURED.P and SULEA.D.BA with dimension (.1D-.3D),
// cache, size and clamp (.CLAMP, .TRAP, none for the zeroing mode)
// modifiers; P2R/R2P on the condition code ("P2R R0, CC, R2, 0xf"); MOV and
// MOV32I with a lane mask other than all four, printed last ("MOV R1, R2,
// 0x3"); VADD/VMAD subtract modes as negated sources and add-one as .PO;
// texture .NDV and TLD4 .PTP.
//
// Spelled by us (fermi.spec gives the details): LD_LDU and LDS_LDU (a load
// paired with a uniform load) print both sizes, LD's first, then both
// destinations and addresses: "LD_LDU.E.32.64 R0, [R2+0x4], R6, [R4+0x8]";
// FSWZ prints the lane select and the op of each quad lane: "FSWZ.DX.FTZ
// R0, R1, R2, ADD, SUBR, SUB, MOV2"; BAR's general forms print every
// operand: "BAR.RED.OR P0, R5, R2, 0x40, P3" (result predicate and
// register, barrier, thread count, input predicate); TMML and TXD follow
// TEX's operand order (TXD's gradients in R26 after the coordinates).
//
// The 4-byte forms (bit 3 set; ptxas does not emit them) carry cuobjdump's
// names for them, MOV_N, IADD_N, LD_N, BRA_N, ..., with operands written as
// in the 8-byte forms ("MOV_N R1, c[0x10][0xfc]", "LDS_N.64 R4, [R2+0x3f8]",
// "BRA_N.U CC.NE, 0x80"); an instruction stream may mix both lengths, and
// the assembler sizes a statement by its mnemonic. Only the forms whose
// name the probe of cuobjdump's table established are decoded; the other
// 4-byte encodings are reported invalid (4 bytes skipped).
//
// Not implemented, reported as invalid: SUQ (opcode 0x39 of type 5), whose
// operand layout we could not establish; the 4-byte forms of unknown layout
// or name (VMAD_N, 0x88, 0xa8 and the 0x08 group other than NOP_N); the
// SIMD video forms (VADD2, VADD4, ...); FCCO; the graphics-only
// instructions (IPA, ALD, AST, OUT, PIXLD, VILD, STP, TXA, RTT, SAM, RAM).
package fermi
