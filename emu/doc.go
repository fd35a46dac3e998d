// Package emu is the SIMT engine that the per-ISA emulators (emu/tesla,
// emu/maxwell, ...) share: launches described in Go (Job) or by launch files
// (Launch, docs/launch.md), bounds-checked memory spaces, the grid of
// blocks, warps of 32 lanes with an active mask and a divergence stack,
// barriers, limits, and the checks of expectations.
//
// A Job is one launch as Go values: the program (cubin bytes, a listing or
// raw code; the architecture is the cubin's own unless named), the grid,
// buffers from []byte, parameters (U32, F32, Ptr, ...), images. A Device
// holds global memory and loaded programs for a sequence of jobs; its Run
// dispatches to the emulator of the job's architecture among those it was
// made with (Emulator entries; emu/all lists every one and is the entry
// point: all.Run(job)). The Result holds the memory after the run
// (Result.Buffer) and the statistics. A launch file is read into a Job by
// (*Launch).Job, so `gpuisa run` and the library run the same value.
//
// An ISA package decodes a kernel once into a flat slice of lowered ops and
// implements Exec: Run executes one warp with a switch loop until the warp
// exits, waits at a barrier or uses its budget. The engine runs blocks in
// parallel on all cores (one goroutine per core, each reusing its block's
// registers) and, inside a block, the warps round-robin in a fixed order, so
// a race-free kernel's results never depend on goroutine scheduling. Blocks
// that race on global memory see their accesses in some order, as on the
// hardware (word and byte accesses, which Go's memory model keeps intact).
//
// The divergence stack follows the hardware: entries are reconvergence
// points (Tesla SSY with the .S join, Fermi/Maxwell SSY/SYNC), pending paths
// of divergent branches, call returns, break targets (breakaddr/break,
// PBK/BRK) and continue targets (PCNT/CONT). A path that reaches a join, or
// whose lanes all leave, resumes the next waiting path; lanes that return,
// break or continue are removed from the entries above their target, so a
// later rejoin does not revive them. Program counters are op indices.
//
// Global memory is sparse: a dense region at address 0 (the launch's
// buffers and its images below 1 GiB) and segments at any 64-bit address
// (images at or above 1 GiB), so a kernel can reach addresses far apart
// without the gap being allocated. Accesses check the dense region first
// and only then search the segments; an access outside every region is a
// *MemFault naming the address and size.
//
// Barriers are named (16 per block) and count warp arrivals: a barrier
// completes when the warps of its thread count (or every live warp) have
// arrived; warps that only arrive go on, warps that wait stop until then.
// When every live warp waits and no barrier can complete, that is a
// deadlock.
//
// Faults (out-of-bounds or misaligned accesses, step limit, barrier deadlock,
// invalid or unsupported instructions, stack overflow) stop the run with a
// *Fault naming the block, thread, pc and instruction; nothing panics.
package emu
