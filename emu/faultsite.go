package emu

import "strconv"

// What fault injection (emu/inject) needs to know about a program: an
// Exec that also implements Inspector describes every instruction by the
// registers it reads and writes, its instruction groups and functional
// unit, and gives access to the registers of a warp. Everything comes from
// the ISA's lowered ops (decoded fields), never from listing text.

// RegFile is a kind of architectural register.
type RegFile uint8

const (
	RegNone RegFile = iota
	RegGPR          // 32-bit general register (R0, R1, ...)
	RegPred         // 1-bit predicate (sm_2x and later: P0..P6)
	RegCC           // condition code: 4 flag bits (sm_1x: $c0..$c3, each a register; later: one)
	RegAddr         // sm_1x address register ($a1..$a7)
)

// Reg is one architectural register of a thread.
type Reg struct {
	File RegFile
	N    uint16
}

func (r Reg) String() string {
	n := strconv.Itoa(int(r.N))
	switch r.File {
	case RegGPR:
		return "R" + n
	case RegPred:
		return "P" + n
	case RegCC:
		return "CC" + n
	case RegAddr:
		return "A" + n
	}
	return "-"
}

// Bits is the width of a register of the file.
func (f RegFile) Bits() int {
	switch f {
	case RegGPR, RegAddr:
		return 32
	case RegPred:
		return 1
	case RegCC:
		return 4
	}
	return 0
}

// Group is a set of instruction groups: the groups of NVBitFI (GP, FP32,
// FP64, LD, PR) and SASSIFI (CC, stores), and control flow.
type Group uint16

const (
	GroupGP     Group = 1 << iota // writes a general register
	GroupFP32                     // single-precision arithmetic
	GroupFP64                     // double-precision arithmetic
	GroupLD                       // reads memory into registers (loads, atomics with a result, textures)
	GroupPR                       // writes predicates and no general register
	GroupCC                       // writes the condition code
	GroupST                       // stores to memory (the value and the address it writes)
	GroupBranch                   // transfers control: branches, calls, and guarded exits, returns, breaks
)

// DestGroups is the groups of an instruction writing the given registers:
// GP when it writes a general register, PR when it writes predicates and
// no general register, CC when it writes the condition code.
func DestGroups(lists ...[]Reg) Group {
	var g Group
	pred := false
	for _, rs := range lists {
		for _, r := range rs {
			switch r.File {
			case RegGPR:
				g |= GroupGP
			case RegPred:
				pred = true
			case RegCC:
				g |= GroupCC
			}
		}
	}
	if pred && g&GroupGP == 0 {
		g |= GroupPR
	}
	return g
}

// Unit is the functional unit an instruction runs on (for permanent faults).
type Unit uint8

const (
	UnitNone Unit = iota
	UnitInt       // integer ALU (and moves, logic, comparisons)
	UnitFP32      // single-precision FMA unit
	UnitFP64      // double-precision unit
	UnitSFU       // special functions and conversions
	UnitLSU       // load/store unit (its address path)
)

var unitNames = [...]string{"none", "int", "fp32", "fp64", "sfu", "lsu"}

func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return "unit" + strconv.Itoa(int(u))
}

// Site is what fault injection knows about one static instruction.
type Site struct {
	Op     string // the opcode (per-opcode statistics)
	Groups Group
	Unit   Unit
	// Dst are the registers the instruction writes in every lane that
	// executes it, each completely; Partial are those it may write only
	// in part (16-bit halves, some lanes' flags), which never count as
	// overwriting a corrupted value. Src are the registers it reads
	// (a superset is harmless; a missing one is a bug).
	Dst, Partial, Src []Reg
	// Guard is the predicate or condition register its guard reads
	// (RegNone: unguarded).
	Guard Reg
	// CrossLane: lanes read Src registers of other lanes (shuffles,
	// votes).
	CrossLane bool
	// Mem: it accesses memory (Inspector.Accesses says where).
	Mem bool
	// Value are the registers a store writes to memory; Addr the
	// registers of a memory address (the low word first), to which
	// Offset is added.
	Value, Addr []Reg
	Offset      int64
	// Addr2 and Offset2: a second address the instruction accesses
	// (sm_2x LD_LDU's uniform load), for the lsu stuck-at.
	Addr2   []Reg
	Offset2 int64
	// Target is the program index a branch or call goes to (HasTarget).
	Target    uint32
	HasTarget bool
}

// Access is one lane's memory access by an instruction.
type Access struct {
	Space       Space
	Addr        uint64 // in the space's own addressing (global: the Memory's)
	Size        int
	Read, Write bool
}

// Inspector is implemented by the Execs of ISAs that fault injection can
// run. Its methods must not change anything the run sees.
type Inspector interface {
	// Sites describes every instruction, indexed by program index.
	Sites() []Site
	// Reg reads register r of lane l of w (predicates 0 or 1, a condition
	// register its 4 flag bits); SetReg writes it.
	Reg(w *Warp, r Reg, l int) uint32
	SetReg(w *Warp, r Reg, l int, v uint32)
	// Index is the program index of the instruction at a byte address.
	Index(addr uint64) (uint32, bool)
	// Accesses appends lane l's memory accesses if the instruction at pc
	// executed now (ok false: they cannot be told in advance).
	Accesses(b *Block, w *Warp, pc uint32, l int, into []Access) (out []Access, ok bool)
}

// ExecState is implemented by Execs that keep state of a launch outside
// its blocks and global memory (sm_2x's global locks): a checkpoint saves
// it and puts it back.
type ExecState interface {
	SaveState() any
	RestoreState(any)
}

// ImageLister is implemented by Execs that place images of a launch in
// global memory themselves (sm_5x textures and surfaces): fault
// injection's memory models hit them too.
type ImageLister interface {
	Images() []Region
}
