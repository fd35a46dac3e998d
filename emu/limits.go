package emu

import (
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"strconv"
	"strings"
)

// The limits a launch is held to before anything runs (docs/limits.md).
// Sizes a launch file declares are checked against them before memory is
// allocated or a file is read.

// ConstBankBytes is the size of a constant bank on every NVIDIA
// architecture: a constant image must end within it.
const ConstBankBytes = 64 << 10

// MaxLaunchFileBytes bounds the launch file itself.
const MaxLaunchFileBytes = 16 << 20

// MaxProgramBytes bounds a program file (cubin, fatbin, listing or raw
// code) and each file a launch links.
const MaxProgramBytes = 256 << 20

// MaxWordsFileBytes bounds an expectation's TSV of words.
const MaxWordsFileBytes = 256 << 20

// ArchLimits are what an architecture lets a launch ask for.
type ArchLimits struct {
	Arch         string
	Grid         Dim3 // largest grid, per dimension
	Block        Dim3 // largest block, per dimension
	BlockThreads int  // threads per block
	SharedBytes  int  // shared memory of a block, everything included
	LocalBytes   int  // local memory per thread
}

// LimitsOf returns the limits of an architecture the emulators run (CUDA's
// figures for the compute capability), and false for others.
func LimitsOf(arch string) (ArchLimits, bool) {
	switch arch {
	case "sm_10", "sm_11", "sm_12", "sm_13":
		// G80/GT200: 2-D grids and 16 KiB of shared memory (which also
		// holds the launch words and the parameters); blocks of up to 1024
		// threads as FlexGripPlus runs them (its apps use them; the G80
		// stops at 512), shaped as R0 packs tid (x 16 bits, y 10, z 6)
		return ArchLimits{Arch: arch, Grid: Dim3{65535, 65535, 1}, Block: Dim3{1024, 1024, 64}, BlockThreads: 1024,
			SharedBytes: 16 << 10, LocalBytes: 16 << 10}, true
	case "sm_20", "sm_21":
		return ArchLimits{Arch: arch, Grid: Dim3{65535, 65535, 65535}, Block: Dim3{1024, 1024, 64}, BlockThreads: 1024,
			SharedBytes: 48 << 10, LocalBytes: 512 << 10}, true
	case "sm_50", "sm_52", "sm_53":
		return ArchLimits{Arch: arch, Grid: Dim3{1<<31 - 1, 65535, 65535}, Block: Dim3{1024, 1024, 64}, BlockThreads: 1024,
			SharedBytes: 48 << 10, LocalBytes: 512 << 10}, true
	}
	return ArchLimits{}, false
}

// CheckShape checks the grid and block of s against the limits.
func (lim ArchLimits) CheckShape(s *Setup) error {
	for i := range 3 {
		if s.Grid[i] > lim.Grid[i] {
			return fmt.Errorf("grid %s: %s allows at most %s", dimList(s.Grid), lim.Arch, dimList(lim.Grid))
		}
		if s.Block[i] > lim.Block[i] {
			return fmt.Errorf("block %s: %s allows at most %s", dimList(s.Block), lim.Arch, dimList(lim.Block))
		}
	}
	if n := s.Block.Count(); n > lim.BlockThreads {
		return fmt.Errorf("block %s has %d threads, %s allows at most %d", dimList(s.Block), n, lim.Arch, lim.BlockThreads)
	}
	if s.LocalBytes > lim.LocalBytes {
		return fmt.Errorf("local_bytes %d: %s allows at most %d per thread", s.LocalBytes, lim.Arch, lim.LocalBytes)
	}
	return nil
}

// CheckShared checks a block's shared memory: need bytes in all (the
// kernel's static part, the launch's shared_bytes and whatever the ISA
// keeps there), and the shared images.
func (lim ArchLimits) CheckShared(s *Setup, need int) error {
	if need > lim.SharedBytes {
		return fmt.Errorf("shared memory of %d bytes per block (shared_bytes %d and the kernel's own): %s allows at most %d",
			need, s.SharedBytes, lim.Arch, lim.SharedBytes)
	}
	for _, im := range s.Shared {
		if end := im.Addr + uint64(len(im.Data)); end > uint64(lim.SharedBytes) {
			return fmt.Errorf("shared memory image at %#x ends at %#x, past the %d bytes of %s shared memory",
				im.Addr, end, lim.SharedBytes, lim.Arch)
		}
	}
	return nil
}

// checkImageEnd checks that a constant or shared image of n bytes at addr
// ends within its space (a constant bank; the most shared memory any
// architecture has), before anything is allocated: a 256-byte constant
// image at 0x3fffff00 made a 1 GiB bank.
func checkImageEnd(sp Space, a, n uint64) error {
	var end uint64
	switch sp {
	case Constant:
		end = ConstBankBytes
	case Shared:
		end = maxSharedImageEnd
	default:
		return nil
	}
	if a > end || n > end-a {
		return fmt.Errorf("%s image of %#x bytes at %#x ends past %#x", sp, n, a, end)
	}
	return nil
}

// imageLimit is the most a memory image's file may hold at addr of sp:
// the rest of a constant bank or of shared memory, or of global memory's
// dense region (images at or above it get segments of their own).
func imageLimit(sp Space, addr uint64) uint64 {
	switch {
	case sp == Constant:
		return ConstBankBytes - min(addr, ConstBankBytes)
	case sp == Shared:
		return maxSharedImageEnd - min(addr, maxSharedImageEnd)
	case addr < MaxMemory:
		return MaxMemory - addr
	}
	return MaxMemory
}

// maxSharedImageEnd bounds shared memory images before the architecture is
// known: no architecture has more shared memory per block.
const maxSharedImageEnd = 64 << 10

// CheckProgram checks what a program asks for against the limits before
// a launch of it is built: its local memory per thread and static shared
// memory (sizes a cubin declares, possibly absurd), with the launch's
// shared_bytes and shared images.
func (lim ArchLimits) CheckProgram(s *Setup, localBytes, staticShared int) error {
	if localBytes < 0 || localBytes > lim.LocalBytes {
		return fmt.Errorf("the program asks for %d bytes of local memory per thread; %s allows at most %d",
			uint(localBytes), lim.Arch, lim.LocalBytes)
	}
	if staticShared < 0 || staticShared > lim.SharedBytes {
		return fmt.Errorf("the program asks for %d bytes of static shared memory; %s allows at most %d",
			uint(staticShared), lim.Arch, lim.SharedBytes)
	}
	return lim.CheckShared(s, s.SharedBytes+staticShared)
}

// CheckArch checks the launch's shape against its architecture's limits
// (a launch for an architecture without limits here passes).
func (s *Setup) CheckArch() error {
	lim, ok := LimitsOf(s.Arch)
	if !ok {
		return nil
	}
	return lim.CheckShape(s)
}

func dimList(d Dim3) string { return fmt.Sprintf("[%d,%d,%d]", d[0], d[1], d[2]) }

// checkOutputFile rejects output names that would leave -out DIR.
func checkOutputFile(name string) error {
	if !filepath.IsLocal(name) || strings.ContainsRune(name, '\\') {
		return fmt.Errorf("file %q is not a plain name inside the output directory", name)
	}
	return nil
}

// intIn returns the number as the bits of an integer in [lo, hi]: a
// negative text must fit lo, a non-negative one hi (so that
// "0xffffffffffffffff" is 2^64-1, not -1).
func (n Num) intIn(lo int64, hi uint64) (uint64, error) {
	s := cTrim(strings.TrimSpace(n.Text), false)
	if strings.HasPrefix(s, "-") {
		v, err := n.Int()
		if err != nil {
			return 0, err
		}
		if v < lo {
			return 0, fmt.Errorf("%q is below %d", n.Text, lo)
		}
		return uint64(v), nil
	}
	u, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 0, 64)
	if err != nil {
		v, ierr := n.Int() // an integral float such as 1e3
		if ierr != nil || v < 0 {
			return 0, fmt.Errorf("%q is not an integer in range", n.Text)
		}
		u = uint64(v)
	}
	if u > hi {
		return 0, fmt.Errorf("%q is above %#x", n.Text, hi)
	}
	return u, nil
}

// TexelFormat is an image format of a launch file: r, rg or rgba; 8, 16
// or 32 bits per channel; unorm, snorm, ui, i or f (no 8-bit f).
type TexelFormat struct {
	Name     string
	Channels int
	Bits     int  // per channel
	Kind     byte // 'u' unorm, 's' snorm, 'U' unsigned int, 'I' signed int, 'f' float
}

// Bytes is the size of a texel.
func (f TexelFormat) Bytes() int { return f.Channels * f.Bits / 8 }

// ParseTexelFormat reads a format name such as "rgba8unorm" or "r32f".
func ParseTexelFormat(s string) (TexelFormat, error) {
	f := TexelFormat{Name: s}
	rest := s
	for _, ch := range []string{"rgba", "rg", "r"} {
		if r, ok := strings.CutPrefix(rest, ch); ok {
			f.Channels, rest = len(ch), r
			break
		}
	}
	for _, b := range []string{"8", "16", "32"} {
		if r, ok := strings.CutPrefix(rest, b); ok {
			f.Bits, _ = strconv.Atoi(b)
			rest = r
			break
		}
	}
	kinds := map[string]byte{"unorm": 'u', "snorm": 's', "ui": 'U', "i": 'I', "f": 'f'}
	k, ok := kinds[rest]
	if f.Channels == 0 || f.Bits == 0 || !ok || k == 'f' && f.Bits == 8 {
		return TexelFormat{}, fmt.Errorf("format %q not known (r|rg|rgba + 8|16|32 + unorm|snorm|ui|i|f, no 8f)", s)
	}
	f.Kind = k
	return f, nil
}

// ImageBytes is the size of a launch file's texture or surface with every
// level and layer (TexBytes), its numbers checked first.
func ImageBytes(im Image) (uint64, error) {
	if len(im.Size) == 0 || len(im.Size) > 3 {
		return 0, fmt.Errorf("size needs 1 to 3 numbers")
	}
	var size []int
	for i, n := range im.Size {
		v, err := n.Uint(1 << 16)
		if err != nil || v == 0 {
			return 0, fmt.Errorf("size[%d] must be 1..65535", i)
		}
		size = append(size, int(v))
	}
	layers, levels := uint64(1), uint64(1)
	var err error
	if im.Layers.Set() {
		if layers, err = im.Layers.Uint(1 << 16); err != nil || layers == 0 {
			return 0, fmt.Errorf("layers must be 1..65535")
		}
	}
	if im.Levels.Set() {
		if levels, err = im.Levels.Uint(1 << 16); err != nil || levels == 0 {
			return 0, fmt.Errorf("levels must be 1..65535")
		}
	}
	return TexBytes(im.Format, size, int(layers), int(levels))
}

// TexBytes is the size of an image of the format and shape (sizes
// 1..65535, layers and levels 0 or 1 for one) with every level and layer,
// computed without overflow and checked against the global memory it must
// fit in (MaxMemory) before anything is allocated: a texture of 65535^3
// texels by 65535 layers wrapped to a small size, a 64 GiB one was
// allocated before its check.
func TexBytes(format string, size []int, layers, levels int) (uint64, error) {
	f, err := ParseTexelFormat(format)
	if err != nil {
		return 0, err
	}
	dims := [3]uint64{1, 1, 1}
	for i, n := range size[:min(len(size), 3)] {
		dims[i] = uint64(max(n, 1))
	}
	var total uint64
	for lv := range min(max(levels, 1), 64) {
		n := uint64(f.Bytes()) * uint64(max(layers, 1))
		for d := range 3 {
			n = mulCapped(n, max(1, dims[d]>>lv))
		}
		total += n
		if total > MaxMemory {
			return 0, fmt.Errorf("%v texels x %d layers of %s need more than the %d bytes of global memory",
				dims[:max(len(size), 1)], max(layers, 1), f.Name, MaxMemory)
		}
	}
	return total, nil
}

// mulCapped is a*b, or MaxMemory+1 when that is larger (or overflows).
func mulCapped(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 || lo > MaxMemory {
		return MaxMemory + 1
	}
	return lo
}

// imageRoom is the global memory a job's textures and surfaces take after
// the dense region (their texels, alignment and descriptor tables), which
// the placement reserves as capacity so that placing them copies nothing.
func (j *Job) imageRoom() uint64 {
	var room uint64
	for _, ims := range [][]TexImage{j.Textures, j.Surfaces} {
		for _, im := range ims {
			if im.Buffer != "" {
				continue
			}
			if n, err := TexBytes(im.Format, im.Size, im.Layers, im.Levels); err == nil {
				room += n + 256
			}
		}
	}
	if room == 0 {
		return 0
	}
	n := uint64(len(j.Textures) + len(j.Surfaces) + 1)
	return min(room+n*0x60+512, MaxMemory)
}

// WriteOutput writes the bytes one of the launch file's outputs asks for
// to w, from the result's memory as it is (OutputBytes copies them).
func (l *Launch) WriteOutput(w io.Writer, o Output, r *Result) error {
	b, err := (&Setup{Launch: l, Buffers: r.Buffers}).outputView(o, r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
