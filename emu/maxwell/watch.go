package maxwell

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
)

// What an instruction touches, for the trace (what it wrote) and the
// sanitizer (what it read and wrote, where).

// access is one lane's memory access by an instruction.
type access struct {
	lane        int
	space       emu.Space
	addr        uint64 // offset in the space (global: from GlobalBase)
	size        int
	read, write bool
	view        []byte // the bytes, nil when outside the memory (the access faults)
}

// accesses appends the memory accesses of o's active lanes (mask) to out,
// as the instruction is about to run: loads, stores, atomics and
// reductions in global, shared and local memory (generic addresses
// resolved). Constant, texture and surface accesses are not listed.
func (k *Kernel) accesses(b *emu.Block, w *emu.Warp, o *op, mask uint32, out []access) []access {
	var read, write bool
	switch o.kind {
	case kLd, kLdg, kLds, kLdl:
		read = true
	case kSt, kStg, kSts, kStl:
		write = true
	case kAtom, kAtoms, kRed:
		read, write = o.kind != kRed, true
	default:
		return out
	}
	m := &o.s[0] // the address (mem.go's operands: a store's is its destination)
	if write && !read && o.kind != kRed {
		m = &o.d
	}
	size := max(int(o.size), 1)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		var mem *emu.Memory
		var addr uint64
		local := emu.Memory{Space: emu.Local}
		switch o.kind {
		case kAtom, kRed:
			mem, addr = k.Global, k.address(w.Regs, m, o.flags&fE != 0, l)
		case kAtoms:
			mem, addr = &b.Shared, k.address(w.Regs, m, false, l)
		default:
			var err error
			if mem, addr, err = k.laneMem(b, w, o, m, l, &local); err != nil {
				continue
			}
		}
		a := access{lane: l, space: mem.Space, addr: addr, size: size, read: read, write: write}
		a.view, _ = mem.Slice(addr, size, false)
		out = append(out, a)
	}
	return out
}

// where is an access's address as the kernel sees it.
func (a *access) where() string {
	switch a.space {
	case emu.Global:
		return fmt.Sprintf("%#x", GlobalBase+a.addr)
	case emu.Shared:
		return fmt.Sprintf("shared[%#x]", a.addr)
	}
	return fmt.Sprintf("local[%#x]", a.addr)
}

// traceState is what the trace keeps of an instruction before it runs.
type traceState struct {
	regs   []uint32
	stores []access
	mask   uint32 // the lanes that ran it
	dest   [2]opnd
	rows   int // register rows of the destination
}

// traceBefore notes the registers and the memory an instruction will write.
func (k *Kernel) traceBefore(b *emu.Block, w *emu.Warp, o *op, mask uint32, ts *traceState) {
	ts.regs = append(ts.regs[:0], w.Regs...)
	ts.stores = ts.stores[:0]
	ts.mask, ts.dest, ts.rows = mask, [2]opnd{o.d, o.d2}, 1
	switch o.kind {
	case kLd, kLdg, kLds, kLdl, kLdc:
		ts.rows = max(1, int(o.size)/4)
	}
	for _, a := range k.accesses(b, w, o, mask, nil) {
		if a.write {
			ts.stores = append(ts.stores, a)
		}
	}
}

// traceAfter prints what the instruction wrote: register rows (per lane,
// or one value for all the lanes that changed alike), predicates and the
// condition code (lane masks), memory (per lane, as little-endian bytes).
func (k *Kernel) traceAfter(out io.Writer, w *emu.Warp, ts *traceState) {
	p := k.Prog
	var line strings.Builder
	// the destination's rows for the lanes that ran it (also when the value
	// stays), and any other row that changed
	isDest := func(row int) bool {
		for _, d := range ts.dest {
			if d.kind == oReg && d.reg != 255 && row >= int(d.row) && row < int(d.row)+ts.rows {
				return true
			}
		}
		return false
	}
	for row := 0; row < p.nGPR; row++ {
		before, after := ts.regs[row*32:row*32+32], w.Regs[row*32:row*32+32]
		var changed uint32
		for l := range 32 {
			if before[l] != after[l] {
				changed |= 1 << l
			}
		}
		if isDest(row) {
			changed |= ts.mask
		}
		if changed == 0 {
			continue
		}
		fmt.Fprintf(&line, " R%d", row)
		first := after[bits.TrailingZeros32(changed)]
		same := true
		for l := range 32 {
			same = same && (changed>>l&1 == 0 || after[l] == first)
		}
		if same {
			fmt.Fprintf(&line, "=%#x(lanes %08x)", first, changed)
			continue
		}
		line.WriteString("={")
		sep := ""
		for l := range 32 {
			if changed>>l&1 != 0 {
				fmt.Fprintf(&line, "%s%d:%#x", sep, l, after[l])
				sep = " "
			}
		}
		line.WriteString("}")
	}
	for i := range 7 {
		r := p.rowP(i) * 32
		dest := false
		for _, d := range ts.dest {
			dest = dest || d.kind == oPred && int(d.row) == p.rowP(i)
		}
		if dest || ts.regs[r] != w.Regs[r] {
			fmt.Fprintf(&line, " P%d=%08x", i, w.Regs[r])
		}
	}
	cc := p.rowCC() * 32
	for i, name := range []string{"C", "Z", "S", "O"} {
		if ts.regs[cc+i] != w.Regs[cc+i] {
			fmt.Fprintf(&line, " CC.%s=%08x", name, w.Regs[cc+i])
		}
	}
	for _, a := range ts.stores {
		if a.view != nil {
			fmt.Fprintf(&line, " [%s]=%s(lane %d)", a.where(), words(a.view), a.lane)
		}
	}
	if line.Len() > 0 {
		fmt.Fprintf(out, "    wrote%s\n", line.String())
	}
}

// words shows memory bytes as little-endian values: one of their size, or
// 32-bit words for 8 and 16 bytes.
func words(b []byte) string {
	switch len(b) {
	case 1:
		return fmt.Sprintf("%#x", b[0])
	case 2:
		return fmt.Sprintf("%#x", binary.LittleEndian.Uint16(b))
	}
	var s []string
	for i := 0; i+4 <= len(b); i += 4 {
		s = append(s, fmt.Sprintf("%#x", binary.LittleEndian.Uint32(b[i:])))
	}
	return strings.Join(s, ",")
}
