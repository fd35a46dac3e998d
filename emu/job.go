package emu

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Job is one kernel launch described in Go: the program, the grid, the data
// and the parameters, as values. A launch file is read into a Job
// ((*Launch).Job); emu/all's Run and a Device run one.
//
// Buffers are placed in global memory in order, after the images, each at
// a multiple of 256 and never at address 0; a Ptr argument passes a
// buffer's address. After the run, Result.Buffer returns a buffer's bytes.
type Job struct {
	Program *Program
	// Grid and Block are the launch shape; a 0 component counts as 1, so
	// Dim3{256} is a block of 256 threads.
	Grid, Block Dim3
	Buffers     []Alloc
	Args        []Arg
	// Memory holds images placed at fixed addresses before the launch.
	Memory []Placement
	// Textures and Surfaces are images the kernel reads (and, surfaces,
	// writes) through texture and surface instructions (sm_5x). A Tex or
	// Surf argument passes the handle of one; image i of Textures has
	// header index i+1, the surfaces follow the textures.
	Textures, Surfaces []TexImage

	SharedBytes int // shared memory per block beyond the kernel's own (0: none)
	LocalBytes  int // local memory per thread (0: the program's, else the ISA's default)
	// GlobalBytes is the size of the dense region of global memory at
	// address 0 (0: what the images and buffers need, at least
	// DefaultGlobalBytes).
	GlobalBytes uint64
	MaxSteps    int64 // warp-instructions per block (0: DefaultMaxSteps)

	// How to run, not what: blocks run in parallel (0: every core), and an
	// optional trace of every executed warp-instruction.
	Workers int
	Trace   *Trace
	// Limits of the whole launch (budget.go): warp-instructions in all
	// (0: DefaultBudget, <0: none) and a deadline (zero: none).
	Budget   int64
	Deadline time.Time
	// BudgetShare: a launch of a sequence's place in the run's budget
	// (Config.BudgetShare).
	BudgetShare BudgetShare
	// Progress, when not nil, counts the work done as the run goes (for a
	// progress display; a sequence's jobs may share one).
	Progress *Progress
	// Check runs sanitizer checks (sanitize.go; sm_5x) and Schedule orders
	// the warps' turns (engine.go): both leave the results of a correct
	// kernel as they are.
	Check    CheckSet
	Schedule Schedule
	// WarpCores is how many cores a block's warps may use (0: those the
	// blocks leave idle; 1: one), WarpCoresAfter after how many
	// warp-instructions (0: 32768): results do not depend on them.
	WarpCores      int
	WarpCoresAfter int64

	// reach is the end of what a launch file's outputs read in the dense
	// region, which the region must cover.
	reach uint64
}

// Program is the code a job runs: an ELF cubin, a fatbin, a listing in our
// assembler's syntax, or raw machine code (little-endian).
type Program struct {
	Name string // for errors, e.g. the file name
	Data []byte
	// Arch is the architecture ("sm_52"); "" takes the cubin's own (see
	// ArchOf). Raw code and listings need it.
	Arch string
	// Kernel is the function to run; "" is the only kernel of the cubin.
	Kernel string
	// Link is relocatable cubins linked with a relocatable Data (sm_5x).
	Link []Object
}

// Object is a named file's contents.
type Object struct {
	Name string
	Data []byte
}

// Alloc is a named global buffer and its initial contents (its size is
// len(Data)).
type Alloc struct {
	Name string
	Data []byte
}

// Placement is bytes at a fixed address of a memory space before the
// launch: Global (at any 64-bit address), Constant (in bank Bank) or Shared
// (copied into every block's shared memory).
type Placement struct {
	Space Space
	Bank  int
	Addr  uint64
	Data  []byte
}

// TexImage is a texture or surface: its texels and how the kernel sees
// them (format, shape, sampler state). See docs/launch.md for the values.
type TexImage struct {
	Name string
	// Data is the texels, level 0 first; nil is an image of Fill bytes.
	// Data shorter than the image is an error unless Pad is set (the rest
	// is then Fill).
	Data []byte
	Fill byte
	Pad  bool
	// Buffer, instead of Data, names a buffer whose global memory the
	// image shares.
	Buffer string
	Format string // r|rg|rgba + 8|16|32 + unorm|snorm|ui|i|f (no 8f), e.g. "r32f"
	Size   []int  // width[, height[, depth]] in texels, each 1..65535
	Layers int    // 0 or 1: not layered
	Levels int    // mipmap levels (0 or 1: one)
	// Filter and MipFilter: "nearest" ("") or "linear". Address: per
	// dimension, or one for all: "clamp" (""), "wrap", "mirror", "border".
	Filter, MipFilter string
	Address           []string
	Normalized        bool
	// Border is the border colour's components as raw bits: integers for
	// integer formats, float32 bits for the others.
	Border  []uint32
	Compare string // depth compare: "lequal" (""), "never", "less", ...
	Cube    bool   // layers are cube faces (+X, -X, +Y, -Y, +Z, -Z)
}

// Trace asks for one line per executed warp-instruction.
type Trace struct {
	W     io.Writer
	Block int // linear index of the only block traced; -1: every block
	Warp  int // the only warp traced in each block; -1: every warp
}

// ArgKind is the type of a kernel parameter.
type ArgKind uint8

// Kernel parameter types.
const (
	ArgU32 ArgKind = iota + 1
	ArgS32
	ArgU64
	ArgF32
	ArgF64
	ArgPtr  // a buffer's address (4 bytes on sm_1x, 8 on sm_2x and later)
	ArgTex  // the 64-bit handle of a texture
	ArgSurf // the 64-bit handle of a surface
)

var argKindNames = [...]string{ArgU32: "u32", ArgS32: "s32", ArgU64: "u64", ArgF32: "f32", ArgF64: "f64",
	ArgPtr: "ptr", ArgTex: "tex", ArgSurf: "surf"}

func (k ArgKind) String() string {
	if int(k) < len(argKindNames) && argKindNames[k] != "" {
		return argKindNames[k]
	}
	return "arg" + strconv.Itoa(int(k))
}

// Arg is one kernel parameter: a value (its bits, little-endian in Size
// bytes) or a reference by name to a buffer, texture or surface.
type Arg struct {
	Kind ArgKind
	Bits uint64
	Name string
}

// U32, S32, U64, F32 and F64 are value parameters; Ptr passes a buffer's
// address, Tex and Surf an image's handle.
func U32(v uint32) Arg    { return Arg{Kind: ArgU32, Bits: uint64(v)} }
func S32(v int32) Arg     { return Arg{Kind: ArgS32, Bits: uint64(uint32(v))} }
func U64(v uint64) Arg    { return Arg{Kind: ArgU64, Bits: v} }
func F32(v float32) Arg   { return Arg{Kind: ArgF32, Bits: uint64(math.Float32bits(v))} }
func F64(v float64) Arg   { return Arg{Kind: ArgF64, Bits: math.Float64bits(v)} }
func Ptr(buf string) Arg  { return Arg{Kind: ArgPtr, Name: buf} }
func Tex(name string) Arg { return Arg{Kind: ArgTex, Name: name} }
func Surf(name string) Arg {
	return Arg{Kind: ArgSurf, Name: name}
}

// Size is the parameter's size in bytes; ptrSize is the ISA's pointer size.
func (a Arg) Size(ptrSize int) int {
	switch a.Kind {
	case ArgU32, ArgS32, ArgF32:
		return 4
	case ArgPtr:
		return ptrSize
	}
	return 8
}

func (a Arg) String() string {
	switch a.Kind {
	case ArgPtr, ArgTex, ArgSurf:
		return fmt.Sprintf("%s %q", a.Kind, a.Name)
	case ArgS32:
		return fmt.Sprintf("s32 %d", int32(a.Bits))
	case ArgF32:
		return fmt.Sprintf("f32 %g", math.Float32frombits(uint32(a.Bits)))
	case ArgF64:
		return fmt.Sprintf("f64 %g", math.Float64frombits(a.Bits))
	}
	return fmt.Sprintf("%s %d", a.Kind, a.Bits)
}

// ImageHandle is the 64-bit handle a Tex or Surf argument passes: the
// header index i (1 for the first texture) in bits 0..19 and, for a
// texture, its sampler index (also i) in bits 20..31.
func (j *Job) ImageHandle(a Arg) (uint64, error) {
	switch a.Kind {
	case ArgTex:
		for i := range j.Textures {
			if j.Textures[i].Name == a.Name {
				return uint64(i+1) | uint64(i+1)<<20, nil
			}
		}
		return 0, fmt.Errorf("tex: no texture %q", a.Name)
	case ArgSurf:
		for i := range j.Surfaces {
			if j.Surfaces[i].Name == a.Name {
				return uint64(len(j.Textures) + i + 1), nil
			}
		}
		return 0, fmt.Errorf("surf: no surface %q", a.Name)
	}
	return 0, fmt.Errorf("%s is not a tex or surf parameter", a.Kind)
}

// shape is the launch shape with 0 components counted as 1.
func shape(d Dim3) Dim3 {
	for i, v := range d {
		if v == 0 {
			d[i] = 1
		}
	}
	return d
}

// check checks what Setup and a Device need before placing anything.
func (j *Job) check() error {
	if j.Program == nil {
		return fmt.Errorf("no program")
	}
	g, b := shape(j.Grid), shape(j.Block)
	if uint64(g[0])*uint64(g[1]) > MaxBlocks || uint64(g[0])*uint64(g[1])*uint64(g[2]) > MaxBlocks {
		return fmt.Errorf("grid %v has more than %d blocks", g, MaxBlocks)
	}
	if uint64(b[0])*uint64(b[1])*uint64(b[2]) > MaxThreadsPerBlock {
		return fmt.Errorf("block %v has more than %d threads", b, MaxThreadsPerBlock)
	}
	for name, n := range map[string]int{"SharedBytes": j.SharedBytes, "LocalBytes": j.LocalBytes} {
		if n < 0 || n > MaxMemory {
			return fmt.Errorf("%s %d is not in 0..%d", name, n, MaxMemory)
		}
	}
	if j.GlobalBytes > MaxMemory {
		return fmt.Errorf("global memory of %#x bytes is larger than %#x", j.GlobalBytes, MaxMemory)
	}
	if j.MaxSteps < 0 {
		return fmt.Errorf("MaxSteps %d is negative", j.MaxSteps)
	}
	bufs := map[string]bool{}
	for _, a := range j.Buffers {
		if bufs[a.Name] {
			return fmt.Errorf("two buffers named %q", a.Name)
		}
		bufs[a.Name] = true
		if len(a.Data) > MaxMemory {
			return fmt.Errorf("buffer %q: larger than %d bytes", a.Name, MaxMemory)
		}
	}
	for i, m := range j.Memory {
		if m.Space != Global && m.Space != Shared && m.Space != Constant {
			return fmt.Errorf("memory[%d]: images go to global, shared or constant memory, not %v", i, m.Space)
		}
		if m.Bank < 0 || m.Bank >= 16 || m.Bank != 0 && m.Space != Constant {
			return fmt.Errorf("memory[%d]: bank %d (0..15, constant memory only)", i, m.Bank)
		}
		if len(m.Data) > MaxMemory {
			return fmt.Errorf("memory[%d]: larger than %d bytes", i, MaxMemory)
		}
		if err := checkImageEnd(m.Space, m.Addr, uint64(len(m.Data))); err != nil {
			return fmt.Errorf("memory[%d]: %v", i, err)
		}
	}
	for i, a := range j.Args {
		switch a.Kind {
		case ArgPtr:
			if !bufs[a.Name] {
				return fmt.Errorf("params[%d]: ptr to unknown buffer %q", i, a.Name)
			}
		case ArgTex, ArgSurf:
			if _, err := j.ImageHandle(a); err != nil {
				return fmt.Errorf("params[%d]: %v", i, err)
			}
		case ArgU32, ArgS32, ArgF32, ArgU64, ArgF64:
		default:
			return fmt.Errorf("params[%d]: unknown parameter kind %d", i, a.Kind)
		}
	}
	return j.checkImages(bufs)
}

// checkImages checks the images' names, shapes and sources.
func (j *Job) checkImages(bufs map[string]bool) error {
	if len(j.Textures)+len(j.Surfaces) >= 1<<12 {
		return fmt.Errorf("more than %d textures and surfaces", 1<<12-1)
	}
	for _, group := range []struct {
		what string
		ims  []TexImage
	}{{"texture", j.Textures}, {"surface", j.Surfaces}} {
		seen := map[string]bool{}
		for _, im := range group.ims {
			if seen[im.Name] {
				return fmt.Errorf("two %ss named %q", group.what, im.Name)
			}
			seen[im.Name] = true
			if len(im.Size) == 0 || len(im.Size) > 3 {
				return fmt.Errorf("%s %q: size needs 1 to 3 numbers", group.what, im.Name)
			}
			for i, n := range im.Size {
				if n < 1 || n >= 1<<16 {
					return fmt.Errorf("%s %q: size[%d] must be 1..65535", group.what, im.Name, i)
				}
			}
			if im.Layers < 0 || im.Layers >= 1<<16 || im.Levels < 0 || im.Levels >= 1<<16 {
				return fmt.Errorf("%s %q: layers and levels must be 1..65535", group.what, im.Name)
			}
			if im.Buffer != "" {
				if !bufs[im.Buffer] {
					return fmt.Errorf("%s %q: no buffer %q", group.what, im.Name, im.Buffer)
				}
				if im.Data != nil || im.Pad {
					return fmt.Errorf("%s %q: texels from a buffer, or from data or a fill, not both", group.what, im.Name)
				}
			}
			if im.Format == "" {
				return fmt.Errorf("%s %q has no format", group.what, im.Name)
			}
			if _, err := TexBytes(im.Format, im.Size, im.Layers, im.Levels); err != nil {
				return fmt.Errorf("%s %q: %v", group.what, im.Name, err)
			}
		}
	}
	return nil
}
