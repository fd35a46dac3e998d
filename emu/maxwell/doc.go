// Package maxwell runs NVIDIA Maxwell (sm_50, sm_52, sm_53) kernels, as
// ptxas builds them, on the SIMT engine of package emu.
//
// Lowering decodes every instruction with isa/maxwell and reads its operands
// from the printed text, which the disassembler tests prove equal to
// nvdisasm's: the spec stays the one description of the bits, and the
// emulator sees the instruction exactly as a reader of the listing does
// (registers, c[bank][offset], immediates, .H1 halves, |x| and -x, guards).
// Immediates of float forms are taken from the raw word so no precision is
// lost in printing.
//
// The launch convention is ptxas's: constant bank 0 holds ntid.xyz at
// 0x8/0xc/0x10, nctaid.xyz at 0x14/0x18/0x1c, the initial stack pointer
// (the per-thread local memory size) at 0x20 and the parameters at the
// offset the cubin's .nv.info gives (0x140). Local memory is per thread,
// addressed from 0. Registers R0..R254 live in engine rows; RZ, PT, the
// predicates and the carry flag have rows of their own after them.
//
// Control flow uses the engine's divergence stack: SSY/SYNC, PBK/BRK,
// PCNT/CONT, CAL/JCAL/PRET and RET, BRA/JMP (divergent branches push the
// not-taken path), BRX/JMX (lanes with different targets diverge), EXIT.
// .reuse flags and stall counts change nothing.
//
// A cubin is linked before it runs (LinkImage): the kernel at address 0,
// then the functions it reaches, from the cubin or from relocatable objects
// linked with it (a launch file's "link"), with their relocations applied.
package maxwell
