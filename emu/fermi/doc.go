// Package fermi runs NVIDIA Fermi (sm_20, sm_21) machine code on the SIMT
// engine of package emu.
//
// A program (a cubin, a listing in our assembler's syntax or cuobjdump's,
// or raw code) is decoded once by isa/fermi and lowered into a flat slice
// of ops: every operand comes from the decoded fields (Inst.FormArgs: kind,
// register, constant bank and offset, immediate with its width and sign,
// negate/absolute/complement/.CC decorations, byte and half selectors) and
// every modifier from the spec's named fields (Inst.Mods: ".FTZ", "icmp",
// "rnd", "vtype", ...), never from printed text. The op slice runs in a
// switch loop over 32-lane warps; lowering happens once per program and
// is shared by all its launches. Each launch picks the fast form of the
// instructions kernels run most (fast.go: integer adds, shifts, logic,
// moves, selects, ISETP/FSETP, 32-bit loads and stores), which run in a
// loop of their own with unrolled lane loops (lanes.go); any lane that
// needs more sends the instruction the general way.
//
// docs/fermi-launch.md describes the launch convention (constant banks,
// pointer width, memory windows) and the source of each fact. In short:
// c[0x0][0x8..0x1c] hold ntid and nctaid, the parameters start at
// c[0x0][0x20], c[0x1][0x100] is the initial stack pointer; pointers are
// 4 bytes in a 32-bit build (no .E access) and 8 in a 64-bit one.
//
// # Semantics, and where they come from
//
//   - Control flow: SSY pushes a reconvergence point; an instruction with
//     .S runs, then the lanes that ran it (its guard's) wait there, the
//     others go on (mgpu's kernels: "@!P0 NOP.S" ends one path of a loop,
//     "MOV.S R5, RZ" is the last instruction of another path). BRA.U is
//     envytools' "allwarp": taken only when the guard holds in every
//     running lane (ptxas guards the fall-through code and puts no SSY
//     before it). PBK/BRK, PCNT/CONT, CAL/RET, PRET, EXIT/KIL and BRX/JMX
//     (divergent targets run one after the other) use the engine's stack.
//   - Integer: IADD/ISCADD/IMAD with .CC (carry, overflow, zero, sign)
//     and .X (carry in), .SAT; IMUL/IMAD .HI with either factor signed;
//     ISETP/ISET .X compare 64-bit values whose low words a subtraction
//     compared (mgpu's search: "IADD RZ.CC, R2, -R4" then "ISETP.LT.X");
//     SHL/SHR clamp shift amounts past 31 unless .W wraps them; BFE/BFI
//     follow PTX's bfe/bfi; POPC counts a AND b (mgpu: "POPC R13, R13,
//     R13"); FLO finds the top 1 (signed: the top bit unlike the sign);
//     PRMT follows PTX's prmt modes; IMNMX/FMNMX take the minimum when the
//     predicate holds; ICMP/FCMP select on the third source against 0.
//   - Video (VADD, VABSDIFF, VMNMX, VSET, VSETP, VSHL, VSHR, VMAD): PTX's
//     scalar video operations on byte/half/word sources, saturation to the
//     destination type, then the secondary operation (.ACC adds c,
//     .MIN/.MAX, .MRG_* merge).
//   - Single precision: IEEE results in the four rounding modes, denormals
//     kept unless .FTZ, FFMA fused, .SAT, FMUL's scale, .FMZ; NaN results
//     0x7fffffff. MUFU gives the correctly rounded function of the flushed
//     input, flushing denormal results; RRO passes its input through (MUFU
//     reads it as the plain value). Double precision: IEEE in all rounding
//     modes (math/big for directed ones), DFMA fused, NaN 0xfff8000000000000.
//   - Conversions: F2I and I2I.SAT clamp, NaN to 0; I2I without .SAT keeps
//     the low bits; byte/half selectors; F16 by IEEE binary16.
//   - Memory: LD/ST/LDU/ATOM/RED/LDLK/STUL take generic addresses (windows
//     onto shared and local memory, the rest global); LDS/STS shared, LDL/
//     STL local (per thread), LDC constant; sizes U8..128 with sign
//     extension; LD_LDU and LDS_LDU do both loads before writing. Cache
//     modifiers (.CG, .CS, .CV, .LU, .WT), CCTL, MEMBAR and BPT.DRAIN
//     change nothing here (one coherent memory). Atomics are atomic across
//     blocks; a warp's lanes apply in lane order. LDSLK/STSUL and
//     LDLK/STUL lock words as the hardware's shared-memory atomics need.
//   - BAR.RED (POPC/AND/OR) and BAR.SYNC wait for the block (or a thread
//     count); BAR.ARV only arrives; results land when the barrier releases.
//     VOTE writes the ballot and the predicate. S2R reads positions, sizes,
//     lane masks and windows; SR_CLOCKLO counts the warp's instructions.
//   - TLD.LZ of a 1D texture fetches from a buffer texture (tex1Dfetch;
//     the job's textures by slot). Other texture and surface instructions,
//     FSWZ, LONGJMP and the rest of the graphics forms fault, naming the
//     instruction.
//
// # Real kernels
//
// The tests rebuild real CUDA 3.x/4.x kernels from the oracle's listings
// and launch them as their host code does: testdata/real/survey.txt names
// each examined function's words by hash (real_test.go). mgpu's b-tree
// build (BuildTree4) is the one function whose every word is in the TSV
// of ../shared and runs everywhere; the others (global scan, argmax, block
// and warp scans, radix downsweep, SpMV finalize) need the public listing
// named by GPUISA_FERMI_LISTINGS (docs/fermi-launch.md).
package fermi
