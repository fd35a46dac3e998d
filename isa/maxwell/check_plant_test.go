package maxwell

import (
	"encoding/binary"
	"slices"
	"testing"
)

// setCtrl sets instruction i's control field in code.
func setCtrl(code []byte, i int, c Ctrl) {
	b := i / 3 * BundleSize
	cw := binary.LittleEndian.Uint64(code[b:])
	sh := 21 * uint(i%3)
	cw = cw&^(0x1fffff<<sh) | uint64(c)<<sh
	binary.LittleEndian.PutUint64(code[b:], cw)
}

// chain follows the straight-line code after instruction i (each with the
// next as its only successor) and returns the first instruction that reads
// one of regs, or -1.
func chain(insts []checkInst, i int, regs RegSet, limit int) int {
	for j := i + 1; j < len(insts) && j <= i+limit; j++ {
		c := &insts[j]
		if !c.ok {
			return -1
		}
		if !c.use.src.Intersect(regs).Empty() {
			return j
		}
		if !c.use.dst.Intersect(regs).Empty() || len(c.succ) != 1 || c.succ[0] != j+1 {
			return -1
		}
	}
	return -1
}

// reportedIn reports whether hs has a finding of kind at an address in [lo, hi].
func reportedIn(hs []Hazard, kind HazardKind, lo, hi uint64) bool {
	return slices.ContainsFunc(hs, func(h Hazard) bool { return h.Kind == kind && h.Addr >= lo && h.Addr <= hi })
}

// TestCheckPlanted plants hazards in the oracle's ptxas code by changing
// control fields and counts how many Check finds: a wait removed between a
// variable-latency result and its reader, DEPBAR included (raw) or between a read barrier and
// an overwrite (war), a wait added on a barrier the kernel never sets
// (no-setter), the stall counts between a fixed-latency result and its
// reader cut to one cycle each (stall), a result and its reader made a
// dual-issued pair (dual-issue).
func TestCheckPlanted(t *testing.T) {
	planted := map[HazardKind]int{}
	found := map[HazardKind]int{}
	const perFunction = 3
	checkFunctions(t, func(name string, sm int, code []byte, opts CheckOptions) {
		insts := decodeForCheck(code, sm, append([]uint64{0}, opts.Entries...))
		n := map[HazardKind]int{}
		try := func(kind HazardKind, mutate func(c []byte), lo, hi uint64) {
			if n[kind] >= perFunction {
				return
			}
			n[kind]++
			c := slices.Clone(code)
			mutate(c)
			planted[kind]++
			if reportedIn(Check(c, sm, opts), kind, lo, hi) {
				found[kind]++
			} else if found[kind]+5 > planted[kind] {
				t.Logf("%s: %s planted between %04x and %04x not found", name, kind, lo, hi)
			}
		}
		// barriers no instruction sets
		var used uint8
		for i := range insts {
			if ci := &insts[i]; ci.ok && ci.varLat {
				used |= 1<<ci.ctrl.WriteBarrier() | 1<<ci.ctrl.ReadBarrier()
			}
		}
		for i := range insts {
			p := &insts[i]
			if !p.ok {
				continue
			}
			// raw: remove the waits between a result and its reader (a
			// DEPBAR on the barrier becomes a NOP)
			if wb := p.ctrl.WriteBarrier(); p.varLat && wb < 6 && !p.use.dst.Empty() {
				if j := chain(insts, i, p.use.dst, 64); j > 0 {
					try(HazRAW, func(c []byte) {
						for k := i + 1; k <= j; k++ {
							setCtrl(c, k, insts[k].ctrl&^Ctrl(1<<(11+wb)))
							if d := &insts[k]; d.depbar == wb || d.depSet&(1<<wb) != 0 {
								binary.LittleEndian.PutUint64(c[d.addr:], nopWord)
							}
						}
					}, insts[i+1].addr, insts[j].addr)
				}
			}
			// war: remove the waits between a read barrier and the first
			// fixed-latency overwrite of a source
			if rb := p.ctrl.ReadBarrier(); p.varLat && rb < 6 {
				for j := i + 1; j < len(insts) && j < i+64; j++ {
					c := &insts[j]
					if !c.ok || len(c.succ) != 1 || c.succ[0] != j+1 && j+1 < len(insts) {
						break
					}
					if !c.varLat && !c.use.dst.Intersect(p.use.src).Empty() {
						try(HazWAR, func(cd []byte) {
							for k := i + 1; k <= j; k++ {
								setCtrl(cd, k, insts[k].ctrl&^Ctrl(1<<(11+rb)))
							}
						}, insts[i+1].addr, c.addr)
						break
					}
				}
			}
			// no-setter: wait on a barrier the kernel never sets
			if opts.Kernel && used&0x3f != 0x3f {
				b := 0
				for used&(1<<b) != 0 {
					b++
				}
				try(HazNoSetter, func(c []byte) { setCtrl(c, i, p.ctrl|Ctrl(1<<(11+b))) }, p.addr, p.addr)
			}
			// stall: a fixed-latency result read a few instructions later,
			// with one cycle between each
			if !p.varLat && !p.use.dst.Empty() && p.fm.attrs&attrCF == 0 {
				if j := chain(insts, i, p.use.dst, 3); j > 0 && !insts[j].varLat {
					try(HazStall, func(c []byte) {
						for k := i; k < j; k++ {
							setCtrl(c, k, insts[k].ctrl&^0x1f|0x11)
						}
					}, insts[j].addr, insts[j].addr)
				}
			}
			// dual-issue: a result and its reader issued together
			if !p.varLat && !p.use.dst.Empty() && p.fm.attrs&attrCF == 0 && i%3 != 2 {
				if j := chain(insts, i, p.use.dst, 1); j == i+1 {
					try(HazDualIssue, func(c []byte) { setCtrl(c, i, p.ctrl&^0x1f|0x10) }, insts[j].addr, insts[j].addr)
				}
			}
		}
	})
	total, hit := 0, 0
	for k, p := range planted {
		total, hit = total+p, hit+found[k]
		t.Logf("%-12s planted %4d, found %4d", k, p, found[k])
		if found[k] < p { // every planted hazard is one (a DEPBAR in the way is removed too)
			t.Errorf("%s: %d of %d planted hazards found", k, found[k], p)
		}
	}
	t.Logf("all: %d of %d planted hazards found", hit, total)
}
