package emu

import (
	"fmt"
	"sort"
	"strings"
)

// Sanitizer checks (gpuisa run -check memory,race,init), off by default so
// that results stay what the hardware gives: the ISA reports each lane's
// memory access to a Checker, which reports
//   - memory: accesses outside the launch's global regions (its buffers,
//     memory images and the program's own data; the gaps between them are
//     red zones) and past the declared shared memory size;
//   - race: conflicting accesses (a write and another access, not both
//     atomic, not two writes of the same value) to global or shared memory
//     by different warps with no barrier between them (warps of different
//     blocks never synchronise within a launch);
//   - init: reads of shared or local memory never written in the block
//     (the thread, for local memory), or preset by the launch; of a vector
//     load, the first word (the rest may be padding the program leaves).
// A launch with checks runs its blocks one after the other.

// Checkable is what an ISA's Exec offers the sanitizer: global memory's
// parts the launch owns (offsets), the declared shared memory per block, and
// the device address of global offset 0.
type Checkable interface {
	CheckInfo() CheckInfo
}

// CheckInfo is what the sanitizer knows of a launch's memory.
type CheckInfo struct {
	Regions      []Region // global memory's parts the launch owns (offsets)
	SharedSize   int      // the declared shared memory per block
	SharedImages []Region // shared memory the launch presets (written before the block starts)
	GlobalBase   uint64   // the device address of global offset 0
}

// CheckSet is a set of sanitizer checks.
type CheckSet uint8

// The checks.
const (
	CheckMemory CheckSet = 1 << iota
	CheckRace
	CheckInit
)

// ParseChecks reads a comma-separated list: memory, race, init, all.
func ParseChecks(s string) (CheckSet, error) {
	var c CheckSet
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "memory":
			c |= CheckMemory
		case "race":
			c |= CheckRace
		case "init":
			c |= CheckInit
		case "all":
			c |= CheckMemory | CheckRace | CheckInit
		case "":
		default:
			return 0, fmt.Errorf("unknown check %q (memory, race, init, all)", f)
		}
	}
	return c, nil
}

// Region is a named part of global memory a launch may access.
type Region struct {
	Name       string // "buffer y", "global variables", ...
	Addr, Size uint64 // offset in global memory
}

// Finding is a sanitizer report.
type Finding struct {
	Check  string // memory, race, init
	Block  Dim3
	Thread Dim3
	Warp   int
	Lane   int
	PC     uint64
	Inst   string
	Space  Space
	Addr   uint64 // the device address the kernel used
	Size   int
	Write  bool
	Detail string // where the address lies, what it conflicts with
	Count  int    // accesses with the same check, instruction and detail (the first is shown)
}

func (f Finding) String() string {
	rw := "read"
	if f.Write {
		rw = "write"
	}
	s := fmt.Sprintf("%s: %s %s of %d bytes at %#x by block %v thread %v (warp %d lane %d), pc %#04x %s: %s",
		f.Check, f.Space, rw, f.Size, f.Addr, f.Block, f.Thread, f.Warp, f.Lane, f.PC, strings.TrimSpace(f.Inst), f.Detail)
	if f.Count > 1 {
		s += fmt.Sprintf(" (%d such accesses)", f.Count)
	}
	return s
}

// MaxFindings is how many distinct findings a launch keeps.
const MaxFindings = 100

// Checker runs the checks of one launch.
type Checker struct {
	Set CheckSet
	// Regions are global memory's legitimate parts (sorted by Add);
	// SharedSize is the declared shared memory per block; GlobalBase is
	// what the ISA adds to a global offset to make the device address.
	regions    []Region
	SharedSize int
	GlobalBase uint64
	preset     []Region // shared memory written before each block

	findings []Finding
	index    map[string]int // finding key -> index
	dropped  int

	global map[uint64]*shadow // global memory, by offset, for the launch
	shared map[uint64]*shadow // the current block's shared memory
	local  map[uint64]bool    // the current block's written local bytes, by lane<<32|offset
	block  int                // the current block's index
}

// shadow is what the race and init checks know of one byte.
type shadow struct {
	written             bool
	wWarp, wBlock       int // the last write's warp (index within its block) and block
	wEpoch              uint64
	wPC                 uint64
	wAtomic             bool
	wVal                byte
	rWarp, rBlock       int // a read since, by a warp other than the writer's
	rEpoch              uint64
	rPC                 uint64
	rValid, rAtomicOnly bool
}

// NewChecker makes the checker of a launch.
func NewChecker(set CheckSet, info CheckInfo) *Checker {
	r := append([]Region(nil), info.Regions...)
	sort.Slice(r, func(i, j int) bool { return r[i].Addr < r[j].Addr })
	return &Checker{Set: set, regions: r, SharedSize: info.SharedSize, GlobalBase: info.GlobalBase, preset: info.SharedImages,
		index: map[string]int{}, global: map[uint64]*shadow{}, shared: map[uint64]*shadow{}, local: map[uint64]bool{}}
}

// Findings returns the reports so far, in the order found, and how many
// more were dropped past MaxFindings.
func (c *Checker) Findings() ([]Finding, int) { return c.findings, c.dropped }

// startBlock forgets the previous block's shared and local memory.
func (c *Checker) startBlock(index int) {
	c.block = index
	clear(c.shared)
	clear(c.local)
	for _, r := range c.preset {
		for a := r.Addr; a < r.Addr+r.Size; a++ {
			c.entry(c.shared, a).written = true
		}
	}
}

func (c *Checker) report(f Finding, key string) {
	if i, ok := c.index[key]; ok {
		c.findings[i].Count++
		return
	}
	if len(c.findings) >= MaxFindings {
		c.dropped++
		return
	}
	f.Count = 1
	c.index[key] = len(c.findings)
	c.findings = append(c.findings, f)
}

// Access is one lane's access: space and offset (global: from address 0 of
// global memory), size, whether it writes (and, for writes, the bytes
// written, read after the instruction) and whether it is atomic. inst and
// pc name the instruction.
func (c *Checker) Access(b *Block, w *Warp, lane int, pc uint64, inst string, space Space, addr uint64, size int,
	write, atomic bool, value []byte) {
	f := Finding{Block: b.ID, Thread: b.Dim.At(w.Index*WarpSize + lane), Warp: w.Index, Lane: lane, PC: pc, Inst: inst,
		Space: space, Addr: addr, Size: size, Write: write}
	if space == Global {
		f.Addr = c.GlobalBase + addr
	}
	if c.Set&CheckMemory != 0 {
		if detail := c.bounds(space, addr, size, write); detail != "" {
			f.Check, f.Detail = "memory", detail
			c.report(f, fmt.Sprintf("m%d/%s", pc, detail))
			return // the bytes are not the program's: no race or init verdict on them
		}
	}
	if c.Set&CheckInit != 0 && !write && !atomic && (space == Shared || space == Local) {
		// a vector load's first word: ptxas widens loads over padding and
		// fields the program leaves unused, never over the first
		for i := range uint64(min(size, 4)) {
			if space == Shared && addr+i >= uint64(c.SharedSize) {
				break // past the declared size (a vector read's slack): not the program's data
			}
			if !c.written(space, lane, w, addr+i) {
				f.Check = "init"
				f.Detail = fmt.Sprintf("byte %#x of %s memory was never written", addr+i, space)
				if space == Local {
					f.Detail = fmt.Sprintf("byte %#x of the thread's local memory was never written", addr+i)
				}
				c.report(f, fmt.Sprintf("i%d", pc))
				break
			}
		}
	}
	if write && c.Set&CheckInit != 0 {
		for i := range uint64(size) {
			c.markWritten(space, lane, w, addr+i)
		}
	}
	if c.Set&CheckRace != 0 && (space == Global || space == Shared) {
		c.race(f, b, w, space, addr, size, write, atomic, value)
	}
}

func (c *Checker) written(space Space, lane int, w *Warp, addr uint64) bool {
	if space == Local {
		return c.local[uint64(w.Index*WarpSize+lane)<<32|addr]
	}
	s := c.shared[addr]
	return s != nil && s.written
}

func (c *Checker) markWritten(space Space, lane int, w *Warp, addr uint64) {
	switch space {
	case Local:
		c.local[uint64(w.Index*WarpSize+lane)<<32|addr] = true
	case Shared:
		c.entry(c.shared, addr).written = true
	}
}

func (c *Checker) entry(m map[uint64]*shadow, addr uint64) *shadow {
	s := m[addr]
	if s == nil {
		s = &shadow{wWarp: -1, rWarp: -1}
		m[addr] = s
	}
	return s
}

// bounds says why an access is outside what the launch owns ("" if inside).
func (c *Checker) bounds(space Space, addr uint64, size int, write bool) string {
	end := addr + uint64(size)
	switch space {
	case Shared:
		n := uint64(c.SharedSize)
		// a read may start inside and run on within its 16-byte alignment
		// (ptxas vectorises loads of a declaration's last fields)
		if end <= n || !write && addr < n && end <= (n+15)&^15 {
			return ""
		}
		return fmt.Sprintf("%d bytes past the end of the block's %d bytes of shared memory", end-n, n)
	case Global:
		// the region holding addr, or the nearest ones
		i := sort.Search(len(c.regions), func(i int) bool { return c.regions[i].Addr+c.regions[i].Size > addr })
		if i < len(c.regions) && c.regions[i].Addr <= addr && end <= c.regions[i].Addr+c.regions[i].Size {
			return ""
		}
		var near []string
		if i < len(c.regions) && c.regions[i].Addr <= addr {
			r := c.regions[i]
			near = append(near, fmt.Sprintf("runs %d bytes past the end of %s (%#x, %d bytes)", end-(r.Addr+r.Size), r.Name, c.GlobalBase+r.Addr, r.Size))
		} else {
			if i > 0 {
				r := c.regions[i-1]
				near = append(near, fmt.Sprintf("%d bytes after the end of %s (%#x, %d bytes)", addr-(r.Addr+r.Size), r.Name, c.GlobalBase+r.Addr, r.Size))
			}
			if i < len(c.regions) {
				r := c.regions[i]
				near = append(near, fmt.Sprintf("%d bytes before %s (%#x)", r.Addr-addr, r.Name, c.GlobalBase+r.Addr))
			}
		}
		if len(near) == 0 {
			return "outside the launch's global memory"
		}
		return "outside the launch's buffers: " + strings.Join(near, ", ")
	}
	return ""
}

// race records the access and reports a conflict with an earlier access by
// another warp that no barrier orders before it.
func (c *Checker) race(f Finding, b *Block, w *Warp, space Space, addr uint64, size int, write, atomic bool, value []byte) {
	m := c.shared
	if space == Global {
		m = c.global
	}
	ordered := func(warp, block int, epoch uint64) bool {
		// the same warp, or the same block after a barrier
		return block == c.block && (warp == w.Index || epoch < b.Epoch)
	}
	who := func(warp, block int) string {
		if block != c.block {
			return fmt.Sprintf("warp %d of block %v", warp, b.GridDim.At(block))
		}
		return fmt.Sprintf("warp %d", warp)
	}
	for i := range uint64(size) {
		s := c.entry(m, addr+i)
		var conflict string
		var other uint64
		if s.wWarp >= 0 && !ordered(s.wWarp, s.wBlock, s.wEpoch) && !(atomic && s.wAtomic) {
			same := write && value != nil && int(i) < len(value) && value[i] == s.wVal
			if !write {
				conflict, other = fmt.Sprintf("reads what %s wrote", who(s.wWarp, s.wBlock)), s.wPC
			} else if !same {
				conflict, other = fmt.Sprintf("overwrites what %s wrote", who(s.wWarp, s.wBlock)), s.wPC
			}
		}
		if conflict == "" && write && s.rValid && !ordered(s.rWarp, s.rBlock, s.rEpoch) && !(atomic && s.rAtomicOnly) {
			conflict, other = fmt.Sprintf("overwrites what %s read", who(s.rWarp, s.rBlock)), s.rPC
		}
		if conflict != "" {
			f.Check = "race"
			f.Detail = fmt.Sprintf("%s at pc %#04x with no barrier between them", conflict, other)
			c.report(f, fmt.Sprintf("r%d/%d/%s", f.PC, other, conflict[:10]))
		}
		if write {
			s.wWarp, s.wBlock, s.wEpoch, s.wPC, s.wAtomic = w.Index, c.block, b.Epoch, f.PC, atomic
			if value != nil && int(i) < len(value) {
				s.wVal = value[i]
			}
			s.rValid = false
		} else if s.wWarp != w.Index || s.wBlock != c.block || !s.rValid {
			s.rWarp, s.rBlock, s.rEpoch, s.rPC, s.rValid, s.rAtomicOnly = w.Index, c.block, b.Epoch, f.PC, true, atomic
		}
		if conflict != "" {
			break // one report per access
		}
	}
}
