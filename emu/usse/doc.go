// Package usse runs PS Vita (PowerVR SGX543) USSE shaders: GXP programs,
// vertex or fragment, from launch files (docs/usse-launch.md) or from Go
// (Load, Program.Draw).
//
// # Execution model
//
// A GXP holds two programs. The secondary program runs once per draw, as
// the driver's uniform setup: it starts from the secondary attributes (SA)
// the driver placed (each uniform at its container's base SA plus its
// resource index, the literals at the literal container's base plus their
// offset; Program.PlaceUniforms) and, as in Vita3K, every unified-store
// bank it names (r, o, pa, sa) is SA. The primary program then runs once
// per vertex or fragment on a copy of the resulting SA, its primary
// attributes (PA) filled from the vertex attributes (by the parameter
// table's registers) or the fragment inputs (by the GXP's input
// descriptors: iterated values and textures sampled before the program
// starts).
//
// Instances run four at a time in lockstep (a quad: vertices 4k..4k+3, or
// a 2x2 block of pixels). Control flow is per instance: a branch the lanes
// disagree on splits the quad and each part runs on alone. Derivatives
// read the neighbours: dsx = source 1 of lane 1 minus source 2 of lane 0,
// dsy = source 1 of lane 2 minus source 2 of lane 0, the same in all four
// lanes (the console's vtstmsk_dsy results depend on exactly two of the
// four vertices, see below).
//
// An instance's state is one array of 32-bit words: the banks pa, sa, o
// and r (256 words each in this model), the internal registers i0..i3 (128
// bits each) and the fragment depth (depthf); then predicates p0..p3, the
// index registers idx1 and idx2, and the link register. Instructions are
// decoded by isa/usse and lowered once: every operand comes from the
// decoded fields (usse.Inst.Operands, RegField, Dual, Field, Enum), never
// from printed text, and resolves to a word of
// the array (or a constant), so the interpreter's loop is a switch on
// the lowered op. Repeats (.rpt) lower to one op per iteration. Words
// that do not decode, and forms this package cannot run, lower to fault
// ops: an instance faults (Fault: program, instance, address and text of
// the instruction, reason) only if control reaches one.
//
// Data paths: f32 channels are words, f16 and 16-bit integer channels are
// halves (x in bits 15..0, y in 31..16 of the first register, z and w in
// the next), u8/s8/o8 channels bytes, fx10 channels 10-bit fields (three
// per word, v/255). Internal registers always hold f32, whatever the
// operation's format (Vita3K). Constants c0..c63 read the hard-wired tables
// of usse.spec (f32: channel y reads bank 1, the others bank 0; f16: the
// halves of the banks by channel). Immediates read as their value
// converted to float for float operations (Vita3K). Swizzle selectors
// 0 1 2 h are the constants 0, 1, 2, 0.5.
//
// # What is emulated
//
// VMAD2, VMAD, VDP (vec3/vec4), V32NMAD/V16NMAD (mul add frc dsx dsy min
// max, and op 7 as a dot product of the written channels), VCOMP (rcp rsq
// log2 exp2 of one channel, f32/f16/fx10), VMOV (mov, cmov, cmov8), VPCK
// (u8 s8 o8 u16 s16 f16 f32 fx10 in any pair, with and without
// normalisation), VTST (a predicate, and with test_wben the result in the
// destination) and VTSTMSK (a mask) with all four operation tables (float;
// 16- and 32-bit integer add sub mul; 8-bit add sub mul fpsub; bitwise and
// or xor shl shr rol asr), dual issue (mad dot ssq mul add mov rsq rcp and
// the scalar mad add mul subflr exp log), the bitwise ops (and or xor
// xor.op2 shl shr asr rol, immediates, source-2 rotation, inversion; and
// the partial flag's 16-bit forms but rol), SOP2, SOP2M and SOP3 (blend
// arithmetic on bytes), I8MAD (with its channel selects and component
// modifiers), I16MAD, I32MAD (repeated too), I32MAD2 (steps 0 and 1), LIMM,
// SMP (1D, 2D and cube textures; f32 or f16 results), LDA/STA (elements of
// 4, 2 or 1 bytes; with or without the MOE bit), DEPTHF (the DEPTH output),
// repeats (Vita3K's repeat model, repeat.go) with SMLSI's MOE increments,
// branches (br relative, ba absolute, predicated, anyinst/allinst,
// .savelink), lapc, mov to and from pclink, kill, emitvtx (end), nop, phas,
// wdf, idf, smbo (MOE base offsets: Vita3K), lock (no effect on
// registers: scheduling and synchronisation have nothing to wait for
// here).
//
// Where the facts come from, besides the console (below): Vita3K's
// translator (its decode tables and what its code does with each field:
// VLDST's element sizes, I16MAD, I8MAD's selects, the test tables, frc as
// source 1 minus the floor of source 2, depthf to the fragment depth, cube
// lookups with three coordinates, the repeat modes and smlsi; SOP3 from the
// partial implementation its pull request 2177 added in 2022, read in a
// 2024 copy of its SPIR-V translator, spirv/translator/alu.cpp, in the
// korenkonder/Vita3K fork: its factor tables, that the second alpha factor
// follows csel2 and cmod2, add and sub only; IMG's own pixel shader
// combiner, combiner.c of its SGX DDK, builds a SOP3 with csel1 SRC0, csel2
// ZERO, cmod2 complement and asel1 SRC0ALPHA for "RGB = SRC0 * SRC1 + (1 -
// ZERO) * SRC2, A = SRC0 * SRC1 + (1 - ZERO) * SRC2", the same reading, the
// second alpha factor included, and its GLES1 driver builds IMA8 (I8MAD)
// with a complemented colour modifier, see lowerI8mad; the Vita3K copy's
// ialu.cpp gives VBW's partial flag as 16-bit operands with the rotation
// and inversion of source 2 within 16 bits, and repeats I32MAD in MOE mode
// with multiplier 1), and IMG's own SGX540 disassembler: its TEST (op1
// 0x09) and bitwise (0x0A..0x0E) words decode with this spec's SGX543
// layouts to the same text (373 and 390 words: mnemonics, registers,
// immediates, tests, channels; only the repeat field differs, which USSE1
// uses as a mask, 0001 = once), so they show the test write-back
// ("isub16.testtaz.chan0 r0, p0, r0, #1"; "!c0" where test_wben is clear),
// the integer table names, and the rotated immediates of VBW ("and r4, r4,
// ~#0xF0000003" is 0xfc00 rotated left by 18, inverted).
//
// Faulting as not emulated, because no description of their effect was
// found (searched: the seeds; ../shared/oracle/usse: the opcode map, NOTES,
// the SGX540 listings and their notes, psvgxp's grammar, Vita3K's decoder
// patterns; Vita3K's translator: ialu, alu, data, special, texture,
// translator.h, types.h, and its 2024 copy in korenkonder/Vita3K;
// Vita3K's pull requests and issues; linux-sunxi's USSE ISA page, the Vita
// wiki's SGX543 page, IMG's public Rogue documents; the copies of IMG's
// SGX DDK sources in public code: useasm.c, combiner.c, the GLES1 driver's
// texture-combiner and alpha-test code):
//   - SOP3's saturated source alpha factor (selector 1), its dmod and its
//     operations 2 and 3 (Vita3K's SOP3 leaves them out). IMG's compiler
//     (its USC's GetLiveChansInSOP3Argument) shows that SOP3's alpha half
//     is either a sum of products (ASOP, as emulated) or a lerp (ALRP,
//     which reads source 0's alpha); which encoding selects ALRP is not
//     known, so these cases stay faults.
//   - I8MAD2: Vita3K has no fields for it; the seed only a predicate and
//     .sat.
//   - I16MAD's abs and or_shift and source formats 2 and 3.
//   - The test operations fpmul.u8, fpadd.u8 and the unnamed table
//     entries; repeated tests, the onceonly flag, channels 4..7, VTSTMSK
//     without test_wben (Vita3K: "not supported yet").
//   - VBW rlp (op1 0x0E), rol with the partial flag (Vita3K has no rol),
//     the repeat select.
//   - pcoeff and ptoff: the seed gives the mnemonics only; no Vita3K
//     pattern, no word in any listing. IMG's own GLES1 driver (public
//     copies of its SGX DDK) shows what they are for, not how they encode
//     their operands: pcoeff hands the ISP a fragment's depth plane
//     coefficients (three sources, before an alpha test) and ptoff ends a
//     pass's punch-through; this model has no ISP to hand them to.
//   - emitpds (starts a PDS task: IMG's microkernel listing), emit kinds 1
//     and 2; ldr/str (the microkernel's register space, ldr r17, #155).
//   - ldl/ldt/stl/stt (local and tiled addressing: IMG's mnemonic lists
//     name ldl*/ldt* families, Vita3K reads the field and ignores it), the
//     address increment modes, load data type 3.
//   - Global registers g0..g63 (Vita3K reads none; IMG's microkernel
//     reads g1 and g22).
//   - SMLSI's register limits, MOE swizzle-mode increments past
//     iteration 3 (Vita3K leaves them stale).
//   - I32MAD2 repeats (Vita3K runs it once whatever the count).
//
// What vita3k-shader-tests' notes report of the console: an instruction
// naming an output register past the program's outputs, or a primary
// attribute past its PA count, discards the instance (here: when the GXP
// gives the counts, such an instruction ends the instance, discarded, and
// the trace says why); an invalid instruction crashes the driver or
// discards the pixel (here: a fault naming it); an end flag in the middle
// of a program crashes the driver (here: the instance ends there; the
// suite's vtstmsk programs carry an emitvtx.end before the end of their
// code and ran on the console). The scheduling flags (skipinv, nosched,
// syncstart, syncend, the data-ready counters of wdf/idf) have nothing to
// act on: every instance is valid and every load completes at once.
//
// # Checked against the hardware
//
// vita3k-shader-tests (a real Vita's results, 449 result files; see
// vita3k_test.go): 11152 of the 11152 compared bytes within the suite's
// +/-3, 11147 exact, when the corner pixels are modelled as the console
// rendered them: outputs interpolated at the pixel centre, read by the
// pass-through fragment program at half precision, stored as UCHAR4. The
// libvita2d shaders match Go references of their Cg sources on random
// inputs (libvita2d_test.go).
//
// Where the console contradicts the seed or Vita3K, the console wins:
//   - VMAD2 f16 writes to unified-store registers: a mask bit covers a
//     register (bit 0: x and y, bit 2: z and w; bits 1 and 3 write
//     nothing): vmad16's mad.f16 pa0.x-z (mask x and z) writes y and w,
//     as the console's o5 and o7 show. This is Vita3K's write-mask decode
//     for VMOV; V16NMAD does not use it (p4gfrag1's mul.f16 pa0.---w
//     writes w).
//   - A VPCK conversion with u8 on either side writes two channels:
//     after vtstmsk_gt_mask0_reg's pack.f16.u8 pa8.xyzw the console still
//     shows pa9's input (Vita3K writes z and w from the x and y selects).
//   - f16 VPCK sources read four halves of source 1 and the register after
//     it (pa0.zwzw, 0x1 reads pa1), and an f32 source whose source 2 is an
//     immediate reads all four channels from source 1 (libvita2d's
//     texture_tint_f packs i0.xyzw so).
//   - VTSTMSK's f32 and f16 masks hold 1.0 for a passing channel (Vita3K
//     writes all ones for f32): an all-ones word is a NaN, and NaN
//     becomes 0 in the console's colour conversion (p4gvert1: a NaN at one
//     vertex turns its neighbours' corner pixels to 0), yet the console
//     shows 255 for passing f32 masks.
//   - The complex test operations (rcp rsq log exp) are scalar: every
//     channel tests the x result (vtstmsk_log_mask2's y mask equals its x
//     mask).
//   - dsy in a vertex program reads the vertex two lanes on (above).
//
// Where other facts contradict Vita3K, and which wins:
//   - The tests' sign test reads the result's top bit also for unsigned
//     and bitwise operations: IMG's microkernel tests bits with
//     "shl.testnat" (Vita3K's unsigned "< 0" would never pass).
//   - log and exp are base 2 (IMG's documents of its later USC, where
//     exp(x) costs a multiply by 1.442695 before FEXP); Vita3K's
//     translator uses the natural log and exp. The console's log test
//     (sign and zero of the result) cannot tell them apart.
//   - VMAD's repeat mode 3, which the compiler sets, is Vita3K's MOE
//     ("SLMSI") mode, not "both" as this package first read it.
//
// # Assumed without evidence
//
// Listed so that a console run can settle them: the quad as the unit of
// lockstep (and dsx's neighbour, lane 1); branches that split a quad;
// mad is not fused (the suite cannot tell); min/max return the other
// operand for a NaN; f16 results are rounded once from the f32 result;
// conversions to integers round to nearest and saturate, NaN to 0; o8 is
// offset by 128; the "pn" predicate reads p(iteration); cmov's tests
// (eqzero 0, eqzero.tstb != 0, ltzero < 0, ltzero.tstb <= 0: only
// eqzero.tstb occurs in the suite); the test sign and zero tests (t, n =
// negative, p = positive; t, z = zero, nz = non-zero; s3 and z3 fail)
// combined by and/or.
//
// Repeats follow Vita3K's model (repeat.go), itself unchecked: external
// mode steps 4 registers, internal mode one internal register, MOE mode
// the smlsi increments (default: the iteration; smbo makes them the
// iteration plus a base offset) times 2 for unified registers (1 for VBW,
// integer VMOVs, VPCK's destination and integer sources); VDP rotates its
// write mask each iteration; smlsi's and smbo's state is taken in program
// order. Only VMOV f32 (libvita2d), VPCK and external
// VDP repeats (atlier.gxp) occur in the oracle's code.
//
// Integer tests: channels at the operation's width, wrapping results, the
// u and i forms alike; test_wben writes the tested channel only; fpsub.u8
// is a plain subtraction (Vita3K). I8MAD multiplies bytes without
// rescaling (Vita3K) and wraps unless .sat; I16MAD as Vita3K reads it
// (source 0's two halves times one channel of source 1 plus one of source
// 2; s2neg negates source 2). SOP2 and SOP3 after Vita3K's reading, in
// integers: (factor1 * source1 +/- factor2 * source2) / 255 truncated,
// results clamped to 0..255 (Vita3K computes in floats and converts back;
// its rounding there is not known). VBW: shift counts are taken mod 32
// (mod 32 also for the partial flag's 16-bit shifts: Vita3K shifts its
// zero-extended halves on 32 bits, so asr there does not extend a sign).
//
// SMP's sampler register holds the texture unit (the driver puts texture
// state there; launch files bind textures by unit), its format 0 means
// f32, LOD modes are ignored (textures have one level), texel centres at
// (i+0.5)/size; cube lookups pick the face of the largest coordinate (ties
// prefer z, then y) and do not filter across faces. lda/sta addresses are
// source 0 + source 1 + source 2 in bytes with an immediate source 1
// counted in elements; elements are packed into the registers from the
// first one's low byte; I32MAD2 step 1 writes source 2; indexed registers
// past a bank fault. depthf's source 0 is numbered as usse.spec prints it
// (Vita3K doubles it); the depth is 0 until depthf writes it.
// The VMOV integer formats' registers are doubled as usse.spec prints them
// (Vita3K does not double them), and SMP's coordinate register is read as
// usse.spec prints it (Vita3K doubles it).
package usse
