// Package maxwell runs NVIDIA Maxwell (sm_50, sm_52, sm_53) kernels, as
// ptxas builds them, on the SIMT engine of package emu.
//
// Lowering decodes every instruction with isa/maxwell and reads its
// operands from the decoded fields (maxwell.Inst.Operands): registers,
// predicates, immediates with the sign and width the spec gives their
// field (IADD3's 0xffff0 is -16 whatever nvdisasm prints), float
// immediates in their encoding, c[bank][offset], .H1 halves, |x|, -x and
// .NEG, guards, and the modifiers by the names spec.txt gives them. The
// printed text is kept only for traces and fault messages.
//
// The launch convention is ptxas's: constant bank 0 holds ntid.xyz at
// 0x8/0xc/0x10, nctaid.xyz at 0x14/0x18/0x1c, the initial stack pointer
// (the per-thread local memory size) at 0x20 and the parameters at the
// offset the cubin's .nv.info gives (0x140). Local memory is per thread,
// addressed from 0. Registers R0..R254 live in engine rows; RZ, PT, the
// predicates and the carry flag have rows of their own after them.
//
// Memory is laid out as the hardware allocates it: a block's shared memory
// (static plus dynamic) in 256-byte granules (SharedAllocUnit, the
// occupancy calculator's allocation unit for sm_5x), so ptxas's vectorised
// loads past the declared end read within the granule and accesses past it
// fault; a thread's local memory (at least the 1 KiB default stack) in
// 16-byte units. A fault in global memory names the device address the
// kernel computed (0x1_00401100), the launch buffer it falls in or lies
// nearest to, and the offset from that buffer's start.
//
// Control flow uses the engine's divergence stack: SSY/SYNC, PBK/BRK,
// PCNT/CONT, CAL/JCAL/PRET and RET, BRA/JMP (divergent branches push the
// not-taken path), BRX/JMX (lanes with different targets diverge), EXIT.
// .reuse flags and stall counts change nothing.
//
// A cubin is linked before it runs (LinkImage): the kernel at address 0,
// then the functions it reaches, from the cubin or from relocatable objects
// linked with it (a launch file's "link"), with their relocations applied.
//
// # Textures and surfaces
//
// Facts from ptxas's output (17_texsurf and our probes) and NVIDIA's NVN
// notes; where neither says, the choice is CUDA's documented behaviour or
// stated as ours.
//
// Handles. A 32-bit handle holds the texture header (TIC) index in bits
// 0..19 and the sampler (TSC) index in bits 20..31; surfaces use the header
// index only, so TXQ on a surface handle (what suq.width becomes) works. An
// instruction's immediate index i reads the handle from c[0][4i] (the
// cubin's EIATTR_BINDLESS_TEXTURE_BANK is 0), where parameters and the
// relocated bound references live; the .B forms take it from a register.
// Bound references are symbols of type STT_CUDA_TEXTURE / STT_CUDA_SURFACE;
// .rel.nv.constant0.<kernel> relocates a bank-0 word against each
// (R_CUDA_TEX_HEADER_INDEX, R_CUDA_SURF_HEADER_INDEX), and the launch writes
// the handle of the image of the same name there.
// Index 0 and indices past the launch's images fault; an index that is a
// bound reference the launch lacks faults naming the symbol. TLD, TLDS and
// TXQ need no sampler; the others fault on a bad sampler index.
//
// Descriptor tables. txq.num_mipmap_levels, array_size, normalized_coords,
// filter_mode, addr_mode_N, channel_data_type, channel_order and the suq
// queries other than width/height compile to loads from
// c[0][0xb0] + index x .nv.unified.texrefDescSize + c[2][k] (surfaces:
// c[0][0xc0], .nv.surfrefDescSize). We make the entries 0x40 and 0x20 bytes
// (the relocations get those sizes) and fill the fields at the offsets
// ptxas's c[2] words name: textures 0x0c/0x10/0x14 address modes (CUDA's
// numbering: wrap 0, clamp 1, mirror 2, border 3), 0x18 filter (0 nearest,
// 1 linear), 0x1c normalized, 0x20 channel data type, 0x24 channel order
// (OpenCL's CL_* values, as PTX documents), 0x28 layers, 0x2c levels;
// surfaces 0x08 depth, 0x0c data type, 0x10 order, 0x1c layers.
//
// Registers. Sources come from two groups, Ra.. and Rb..: full forms (TEX,
// TLD, TLD4) read [layer] x [y [z]] from Ra, then [handle] [lod or bias]
// [offsets] [depth reference] [multisample] from Rb; TXD reads [handle]
// [layer] coordinates from Ra and the gradients from Rb as dx.x, dy.x,
// dx.y, dy.y (dx.z, dy.z); TXQ reads [handle] lod from Ra. The scalar forms
// (TEXS, TLDS, TLD4S) split the same list: one register from Ra when there
// are two sources, else two (TLDS ARRAY_2D: the layer alone). Full forms
// write the enabled components to Rd, Rd+1, ...; scalar forms write the
// first two to the Rd pair, the others to the second destination's pair.
// Layers are the low 16 bits (ptxas saturates them), clamped to the last
// layer. Offsets are 4-bit fields (TLD4: 6-bit, 8 bits apart).
//
// Sampling. Normalized coordinates are scaled by the level-0 size;
// coordinates are in level-0 texels and scaled to each level (also for
// unnormalized coordinates with mip levels, which CUDA does not allow).
// Nearest takes floor(u) + offset. Linear takes i0 = floor(u - 0.5) +
// offset, i0+1 with the weight frac(u - 0.5) in 1.8 fixed point (rounded to
// a multiple of 1/256; 1.0 is representable) as CUDA's programming guide
// documents; the weighted sum is exact in float64 and rounded once to
// float32. Integer formats always use nearest. Address modes apply per
// texel index: clamp, wrap, mirror (period 2n), border (the sampler's color);
// wrap and mirror with unnormalized coordinates clamp (CUDA supports them
// for normalized coordinates only). A lookup with more dimensions than the
// image (3D on a 2D texture) sees size 1 in the missing ones.
//
// Level of detail. LZ: 0; LL: the register; LB: implicit + bias; TXD:
// lambda = log2 of the longer of the x and y gradient vectors in texels; no
// modifier: implicit, from coarse derivatives across the quad (lanes
// l&^3 + 1 and + 2 minus lane l&^3, the registers of inactive lanes too), as
// the hardware does for compute; .NDV gives 0. Lambda is clamped to [0,
// levels-1]; mip nearest takes level 0 up to 0.5, else ceil(lambda+0.5)-1
// (OpenGL's rule); mip linear blends floor(lambda) and the next level with
// an 8-bit fraction.
//
// TLD/TLDS fetch integer texels at an integer level with no sampler;
// outside the image (or levels) they read 0, as CUDA documents for
// tex1Dfetch. TLD4/TLD4S return one component of the bilinear footprint at
// level 0 in OpenGL's order (i0,j1) (i1,j1) (i1,j0) (i0,j0). Depth compare
// tests ref OP texel.r per texel (1.0 or 0.0; default lequal), then
// filters, and returns the result in all four components. TXQ
// TEX_HEADER_DIMENSION returns width, height, depth (layers when layered)
// and levels of the level in its register. Formats decode to float bits
// (unorm, snorm, float) or integers; missing components read 0, 0, 1.
//
// Surfaces. Coordinates are x [y [z]] then the layer, from Ra; .BA makes x a
// byte offset (the .b forms), else an element index (.p forms). Accesses
// need element alignment. Out of range, .TRAP faults (naming block, thread
// and instruction), .IGN loads 0 and drops stores (PTX .zero), and the
// default clamps every coordinate to the last whole access (.clamp).
// Formatted stores convert with saturation and round-to-nearest-even and
// keep the components the mask leaves out. SURED and SUATOM are 32-bit (add,
// min, max, inc, dec, and, or, xor, exch, cas with compare then new value
// from Rb, Rb+1 as ATOM.CAS).
//
// TMML (no PTX instruction produces it) returns the computed level of detail
// and the clamped one as signed 8.8 fixed point (Mesa converts TMML's
// results with a 1/256 scale; the order is our reading of its lowering).
//
// The .F16 scalar forms (ptxas's f16x2 results, sm_53) pack the enabled
// components as binary16 (round to nearest even), the first two in Rd (low
// half first), the others in the second destination.
//
// Cube maps (a launch image with "cube": true): the direction's major axis
// picks the face (x, then y, then z on ties) and the face coordinates, as
// OpenGL's cube-map table; filtering clamps at the face's edges (no
// filtering across faces: whether Maxwell's compute path filters seamlessly
// is not documented), and implicit and gradient levels of detail use the
// face coordinates.
//
// Not supported (fault when reached): 3D-array textures (no PTX lookup
// makes one), .PTP offsets, 64-bit, float and formatted surface atomics. The sparse-residency
// predicate output is not written.
package maxwell
