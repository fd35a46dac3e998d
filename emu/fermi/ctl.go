package fermi

import (
	"fmt"
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// predOps runs CSET, CSETP, PSET, PSETP, P2R and R2P.
func (k *Kernel) predOps(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	switch o.kind {
	case kCset, kCsetp:
		t := k.ccMask(regs, o.cc, ^uint32(0))
		p := pred(regs, &o.s[0])
		if o.kind == kCsetp {
			setPred(regs, &o.d, mask, bop(o.sub2, t, p))
			setPred(regs, &o.d2, mask, bop(o.sub2, ^t, p))
			return
		}
		k.setBool(regs, o, mask, bop(o.sub2, t, p))
	case kPset, kPsetp:
		x := bop(o.sub, pred(regs, &o.s[0]), pred(regs, &o.s[1]))
		p := pred(regs, &o.s[2])
		if o.kind == kPsetp {
			setPred(regs, &o.d, mask, bop(o.sub2, x, p))
			setPred(regs, &o.d2, mask, bop(o.sub2, ^x, p))
			return
		}
		k.setBool(regs, o, mask, bop(o.sub2, x, p))
	case kP2R:
		// P2R Rd, PR|CC, Ra, mask: d = a &^ mask | bits & mask
		var buf, buf2 lanes
		a := k.row(regs, &o.s[0], &buf)
		mk := k.row(regs, &o.s[1], &buf2)
		for mm := mask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			v := prBits(regs, o.flags&fCCPR != 0, l)
			regs[dstRow(&o.d, 0)*32+l] = a[l]&^mk[l] | v&mk[l]
		}
	case kR2P:
		// R2P PR|CC, Ra, mask: the bits of a that mask selects
		var buf, buf2 lanes
		a := k.row(regs, &o.s[0], &buf)
		mk := k.row(regs, &o.s[1], &buf2)
		f := regs[rowFlags*32 : rowFlags*32+32]
		for mm := mask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			if o.flags&fCCPR != 0 {
				for i, fl := range [4]int{flagZ, flagS, flagC, flagO} {
					if mk[l]>>i&1 != 0 {
						f[fl] = f[fl]&^(1<<l) | (a[l]>>i&1)<<l
					}
				}
				continue
			}
			for i := range 7 {
				if mk[l]>>i&1 != 0 {
					f[i] = f[i]&^(1<<l) | (a[l]>>i&1)<<l
				}
			}
		}
	}
}

// prBits is lane l's predicates P0..P6 (bits 0..6) or condition code (Z,
// S, C, O in bits 0..3).
func prBits(regs []uint32, cc bool, l int) uint32 {
	f := regs[rowFlags*32 : rowFlags*32+32]
	var v uint32
	if cc {
		for i, fl := range [4]int{flagZ, flagS, flagC, flagO} {
			v |= (f[fl] >> l & 1) << i
		}
		return v
	}
	for i := range 7 {
		v |= (f[i] >> l & 1) << i
	}
	return v
}

// setBool writes a set instruction's register result: all ones (1.0 with
// .BF) where t holds, 0 elsewhere; .CC sets zero and sign.
func (k *Kernel) setBool(regs []uint32, o *op, mask, t uint32) {
	on := ^uint32(0)
	if o.flags&fBF != 0 {
		on = 0x3f800000
	}
	row := dstRow(&o.d, 0) * 32
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		v := uint32(0)
		if t>>l&1 != 0 {
			v = on
		}
		regs[row+l] = v
	}
	if o.flags&fCCOut != 0 {
		s := t
		if o.flags&fBF != 0 {
			s = 0
		}
		setCC(regs, mask, ^t, s, 0, 0)
	}
}

// vote is VOTE.ALL/ANY/EQ: the register gets the ballot of the input
// predicate over the lanes that run it, the predicate whether all, any or
// none-or-all of them hold it.
func (k *Kernel) vote(w *emu.Warp, o *op, mask uint32) {
	if mask == 0 {
		return
	}
	regs := w.Regs
	p := pred(regs, &o.s[0]) & mask
	if o.d.kind == oReg {
		row := dstRow(&o.d, 0) * 32
		for mm := mask; mm != 0; mm &= mm - 1 {
			regs[row+bits.TrailingZeros32(mm)] = p
		}
	}
	var r bool
	switch o.sub {
	case 0:
		r = p == mask
	case 1:
		r = p != 0
	default:
		r = p == 0 || p == mask
	}
	v := uint32(0)
	if r {
		v = ^uint32(0)
	}
	setPred(regs, &o.d2, mask, v)
}

// bar runs the barriers: BAR.RED (with or without results), BAR.SYNC and
// BAR.ARV. The barrier number and thread count come from a register (the
// first running lane's) or an immediate; RZ or 0 threads means every
// thread of the block. A warp whose guard fails everywhere does not take
// part.
func (k *Kernel) bar(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch, pc uint32) error {
	if mask == 0 {
		return nil
	}
	regs := w.Regs
	first := firstLane(mask)
	id, threads := 0, 0
	if o.s[0].kind != oNone {
		id = int(k.row(regs, &o.s[0], &sc.a)[first])
	}
	if o.s[1].kind != oNone {
		threads = int(k.row(regs, &o.s[1], &sc.b)[first])
	}
	if id < 0 || id >= emu.NumBarriers {
		return fmt.Errorf("barrier %d does not exist (0..%d)", id, emu.NumBarriers-1)
	}
	if threads%emu.WarpSize != 0 {
		return fmt.Errorf("barrier thread count %d is not a multiple of the warp size", threads)
	}
	arrive := o.flags&fArrive != 0
	if !arrive {
		// the reduction (every BAR.RED has one; without results it only
		// synchronises)
		r := &sc.red[id]
		r.settle(w.Index)
		if r.arrived == 0 {
			r.count, r.all, r.any = 0, true, false
		}
		p := pred(regs, &o.s[2]) & mask
		r.count += uint32(bits.OnesCount32(p))
		r.all = r.all && p == mask
		r.any = r.any || p != 0
		r.arrived++
		r.sub = o.sub
		r.warps |= 1 << (w.Index & 63)
		// complete when the warps that arrived are as many as the
		// thread count's, or as the live warps (counted only until
		// they outnumber the arrivals: the early arrivals of a large
		// block stop soon)
		complete := threads > 0 && r.arrived >= (threads+emu.WarpSize-1)/emu.WarpSize
		if !complete {
			live := 0
			for i := range b.Warps {
				if !b.Warps[i].Done {
					if live++; live > r.arrived {
						break
					}
				}
			}
			complete = r.arrived >= live
		}
		if complete {
			r.finish()
		}
		if o.flags&fRedDst != 0 {
			sc.pending[w.Index] = int32(pc)
		}
	}
	return b.Barrier(w, id, threads, true, !arrive)
}

// finish completes a reduction: its result, and the next arrival starts
// another.
func (r *reduction) finish() {
	switch r.sub {
	case 1:
		r.result, r.truth = b2u(r.all), r.all
	case 2:
		r.result, r.truth = b2u(r.any), r.any
	default:
		r.result, r.truth = r.count, r.count != 0
	}
	r.arrived, r.warps = 0, 0
}

// settle finishes the reduction warp wi arrived in, if it is still open:
// the warp runs again, so the engine released the barrier, the other
// warps having arrived or exited (bar counted live the warps that exited
// after the last arrival, so it could not tell).
func (r *reduction) settle(wi int) {
	if r.warps>>(wi&63)&1 != 0 {
		r.finish()
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// barResult writes a BAR.RED's results once the barrier has released the
// warp: the count (POPC) or truth (AND, OR) in the register, the truth in
// the predicate. The results go to the lanes that are running.
func (k *Kernel) barResult(w *emu.Warp, o *op, sc *scratch) {
	regs := w.Regs
	var buf lanes
	id := 0
	if o.s[0].kind != oNone {
		id = int(k.row(regs, &o.s[0], &buf)[firstLane(w.Active)])
	}
	if id < 0 || id >= emu.NumBarriers {
		return
	}
	r := &sc.red[id]
	r.settle(w.Index)
	row := dstRow(&o.d, 0) * 32
	for mm := w.Active; mm != 0; mm &= mm - 1 {
		regs[row+bits.TrailingZeros32(mm)] = r.result
	}
	v := uint32(0)
	if r.truth {
		v = ^uint32(0)
	}
	setPred(regs, &o.d2, w.Active, v)
}

// b2r reads the result of the last reduction on a barrier.
func (k *Kernel) b2r(w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	id := int(o.s[0].imm)
	if id < 0 || id >= emu.NumBarriers {
		return fmt.Errorf("barrier %d does not exist (0..%d)", id, emu.NumBarriers-1)
	}
	sc.red[id].settle(w.Index)
	row := dstRow(&o.d, 0) * 32
	for mm := mask; mm != 0; mm &= mm - 1 {
		w.Regs[row+bits.TrailingZeros32(mm)] = sc.red[id].result
	}
	return nil
}

// Special registers (fermi.spec's sreg lines).
const (
	srLaneID   = 0x00
	srTid      = 0x20
	srTidX     = 0x21
	srCtaidX   = 0x25
	srNtidX    = 0x29
	srNctaidX  = 0x2d
	srSWinLo   = 0x30
	srSWinSz   = 0x31
	srSMemSz   = 0x32
	srSMemBank = 0x33
	srLWinLo   = 0x34
	srLWinSz   = 0x35
	srLMemLoSz = 0x36
	srEqMask   = 0x38
	srLtMask   = 0x39
	srLeMask   = 0x3a
	srGtMask   = 0x3b
	srGeMask   = 0x3c
	srClockLo  = 0x50
)

// s2r reads a special register. Thread, block and grid positions and
// sizes are the launch's; SR_TID packs x | y<<16 | z<<26 (Tesla's R0
// layout; no sm_2x listing reads it); the windows are the generic address
// windows (mem.go); SR_CLOCKLO counts the warp's instructions so runs
// repeat; performance counters, error status and virtual ids read 0.
func (k *Kernel) s2r(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) {
	sr := int(o.s[0].imm)
	flat := b.Dim[1] == 1 && b.Dim[2] == 1
	// the registers kernels read first thing, for the whole warp at once
	var v uint32
	switch {
	case sr == srTidX && flat:
		base := uint32(w.Index * emu.WarpSize)
		if mask == ^uint32(0) {
			addImmLanes(rowAt(w.Regs, dstRow(&o.d, 0)), &laneIndex, base)
			return
		}
		r := &sc.r
		addImmLanes(r, &laneIndex, base)
		write(w.Regs, dstRow(&o.d, 0), mask, r)
		return
	case sr >= srCtaidX && sr <= srCtaidX+2:
		v = b.ID[sr-srCtaidX]
	case sr >= srNtidX && sr <= srNtidX+2:
		v = b.Dim[sr-srNtidX]
	case sr >= srNctaidX && sr <= srNctaidX+2:
		v = b.GridDim[sr-srNctaidX]
	default:
		k.s2rLanes(b, w, o, mask, flat)
		return
	}
	r := rowAt(w.Regs, dstRow(&o.d, 0))
	if mask == ^uint32(0) {
		fillLanes(r, v)
		return
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		r[bits.TrailingZeros32(mm)] = v
	}
}

// laneIndex is each lane's index (read-only).
var laneIndex = func() (x lanes) {
	for l := range x {
		x[l] = uint32(l)
	}
	return x
}()

// s2rLanes is s2r lane by lane (of the registers s2r does not read for
// the whole warp).
func (k *Kernel) s2rLanes(b *emu.Block, w *emu.Warp, o *op, mask uint32, flat bool) {
	sr := int(o.s[0].imm)
	row := dstRow(&o.d, 0) * 32
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var t emu.Dim3
		if flat {
			t = emu.Dim3{uint32(w.Index*emu.WarpSize + l), 0, 0}
		} else {
			t = b.Dim.At(w.Index*emu.WarpSize + l)
		}
		var v uint32
		switch {
		case sr == srLaneID:
			v = uint32(l)
		case sr == srTid:
			v = t[0] | t[1]<<16 | t[2]<<26
		case sr >= srTidX && sr <= srTidX+2:
			v = t[sr-srTidX]
		case sr == srSWinLo:
			v = SharedWindow
		case sr == srSWinSz, sr == srLWinSz:
			v = WindowSize
		case sr == srSMemSz:
			v = uint32(len(b.Shared.Data))
		case sr == srSMemBank:
			v = 32
		case sr == srLWinLo:
			v = LocalWindow
		case sr == srLMemLoSz:
			v = uint32(k.LocalBytes)
		case sr == srEqMask:
			v = 1 << l
		case sr == srLtMask:
			v = 1<<l - 1
		case sr == srLeMask:
			v = 1<<(l+1) - 1
		case sr == srGtMask:
			v = ^(1<<(l+1) - 1)
		case sr == srGeMask:
			v = ^(1<<l - 1)
		case sr == srClockLo:
			v = uint32(w.Steps)
		}
		w.Regs[row+l] = v
	}
}

// lepc loads the address of the instruction itself.
func (k *Kernel) lepc(w *emu.Warp, o *op, mask uint32, pc uint32) {
	row := dstRow(&o.d, 0) * 32
	for mm := mask; mm != 0; mm &= mm - 1 {
		w.Regs[row+bits.TrailingZeros32(mm)] = uint32(k.Prog.addrs[pc])
	}
}
