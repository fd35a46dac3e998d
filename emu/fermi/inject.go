package fermi

import (
	"maps"

	"github.com/gpuisa/gpuisa/emu"
)

// What fault injection (emu/inject) needs: the registers each lowered op
// reads and writes, its groups and unit (emu.Inspector), and copies of the
// state a checkpoint must keep (the block's, and the launch's global
// locks).

var _ emu.Inspector = (*Kernel)(nil)

// CloneAux implements emu.AuxCloner: reductions, pending BAR.RED results
// and shared locks are state.
func (s *scratch) CloneAux() any {
	c := &scratch{red: s.red, pending: append([]int32(nil), s.pending...), sharedEnd: s.sharedEnd}
	if s.locks != nil {
		c.locks = maps.Clone(s.locks)
	}
	return c
}

// SaveState and RestoreState implement emu.ExecState: the global locks
// LDLK takes live in the launch, not in a block.
func (k *Kernel) SaveState() any {
	k.glocks.mu.Lock()
	defer k.glocks.mu.Unlock()
	return maps.Clone(k.glocks.owner)
}

func (k *Kernel) RestoreState(s any) {
	k.glocks.mu.Lock()
	defer k.glocks.mu.Unlock()
	k.glocks.owner = maps.Clone(s.(map[uint64]uint64))
}

var kindOps = map[kind]string{
	kInvalid: "?", kUnsupported: "?", kNop: "NOP", kBra: "BRA", kBrx: "BRX", kCal: "CAL", kSsy: "SSY", kPbk: "PBK",
	kPcnt: "PCNT", kPret: "PRET", kExit: "EXIT", kKil: "KIL", kRet: "RET", kBrk: "BRK", kCont: "CONT", kBpt: "BPT",
	kIadd: "IADD", kImul: "IMUL", kImad: "IMAD", kIscadd: "ISCADD", kShl: "SHL", kShr: "SHR", kLop: "LOP", kBfe: "BFE",
	kBfi: "BFI", kFlo: "FLO", kPopc: "POPC", kImnmx: "IMNMX", kIset: "ISET", kIsetp: "ISETP", kIcmp: "ICMP",
	kIsad: "ISAD", kSel: "SEL", kPrmt: "PRMT", kMov: "MOV", kS2R: "S2R", kLepc: "LEPC", kFadd: "FADD", kFmul: "FMUL",
	kFfma: "FFMA", kFmnmx: "FMNMX", kFset: "FSET", kFsetp: "FSETP", kFcmp: "FCMP", kMufu: "MUFU", kRro: "RRO",
	kDadd: "DADD", kDmul: "DMUL", kDfma: "DFMA", kDmnmx: "DMNMX", kDset: "DSET", kDsetp: "DSETP", kF2F: "F2F",
	kF2I: "F2I", kI2F: "I2F", kI2I: "I2I", kCset: "CSET", kCsetp: "CSETP", kPset: "PSET", kPsetp: "PSETP",
	kP2R: "P2R", kR2P: "R2P", kVote: "VOTE", kBar: "BAR", kB2R: "B2R", kVadd: "VADD", kVmnmx: "VMNMX",
	kVabsdiff: "VABSDIFF", kVset: "VSET", kVsetp: "VSETP", kVshl: "VSHL", kVshr: "VSHR", kVmad: "VMAD", kLd: "LD",
	kSt: "ST", kLds: "LDS", kSts: "STS", kLdl: "LDL", kStl: "STL", kLdc: "LDC", kLdLdu: "LD_LDU", kAtom: "ATOM",
	kRed: "RED", kLdlk: "LDLK", kStul: "STUL", kTld: "TLD",
}

// regsOfOpnd appends the registers operand x reads (n words wide).
func regsOfOpnd(out []emu.Reg, x *opnd, n int) []emu.Reg {
	switch x.kind {
	case oReg, oMem, oCIdx:
		for i := range n {
			if r := int(x.row) + i; x.row < rowRZ && r < rowRZ {
				out = append(out, emu.Reg{File: emu.RegGPR, N: uint16(r)})
			}
		}
	case oPred:
		if x.row < predPT {
			out = append(out, emu.Reg{File: emu.RegPred, N: uint16(x.row)})
		}
	}
	return out
}

func isF64(k kind) bool { return k >= kDadd && k <= kDsetp }

func words(size uint8) int { return max(1, int(size)/4) }

// Sites implements emu.Inspector.
func (k *Kernel) Sites() []emu.Site {
	p := k.Prog
	sites := make([]emu.Site, len(p.ops))
	for i := range p.ops {
		sites[i] = site(&p.ops[i])
	}
	return sites
}

func site(o *op) emu.Site {
	st := emu.Site{Op: kindOps[o.kind]}
	if o.guard < predPT {
		st.Guard = emu.Reg{File: emu.RegPred, N: uint16(o.guard)}
	}
	cc := emu.Reg{File: emu.RegCC}
	switch o.kind {
	case kBra, kBrx, kExit, kKil, kRet, kBrk, kCont:
		if o.cc != 15 {
			st.Src = append(st.Src, cc) // a condition-code test
		}
	}
	if o.flags&fX != 0 || o.kind == kCset || o.kind == kCsetp || o.kind == kP2R && o.flags&fCCPR != 0 {
		st.Src = append(st.Src, cc)
	}
	wideAddr := func() int {
		if o.flags&fE != 0 {
			return 2
		}
		return 1
	}
	// sources and their widths
	sw := [4]int{1, 1, 1, 1}
	switch {
	case isF64(o.kind):
		sw = [4]int{2, 2, 2, 1}
	case o.kind >= kF2F && o.kind <= kI2I:
		sw[0] = max(1, typeBits(o.size2)/32)
	case o.kind == kSt || o.kind == kSts || o.kind == kStl || o.kind == kStul:
		sw = [4]int{wideAddr(), words(o.size), 1, 1}
		st.Value = regsOfOpnd(nil, &o.s[1], sw[1])
		st.Addr = regsOfOpnd(nil, &o.s[0], sw[0])
		st.Offset = o.s[0].imm
		st.Groups |= emu.GroupST
	case o.kind == kLd || o.kind == kLdlk || o.kind == kLdLdu:
		sw[0] = wideAddr()
		if o.kind == kLdLdu {
			sw[0], sw[1] = 1, 1
			if o.flags&fE != 0 && o.flags&fShared == 0 {
				sw[0] = 2
			}
			if o.flags&fE != 0 || o.flags&fUniform != 0 {
				sw[1] = 2
			}
		}
	case o.kind == kAtom || o.kind == kRed:
		sw = [4]int{wideAddr(), 1, 1, 1}
		if o.size == 8 {
			sw[1], sw[2] = 2, 2
		}
		if o.kind == kRed {
			st.Value = regsOfOpnd(nil, &o.s[1], sw[1])
			st.Addr = regsOfOpnd(nil, &o.s[0], sw[0])
			st.Offset = o.s[0].imm
			st.Groups |= emu.GroupST
		}
	}
	for i := range o.s {
		st.Src = regsOfOpnd(st.Src, &o.s[i], sw[i])
	}
	if o.kind == kP2R && o.flags&fCCPR == 0 {
		for i := range predPT {
			st.Src = append(st.Src, emu.Reg{File: emu.RegPred, N: uint16(i)})
		}
	}
	// destinations and their widths
	dw := 1
	switch {
	case isF64(o.kind) && o.kind != kDset && o.kind != kDsetp:
		dw = 2
	case o.kind >= kF2F && o.kind <= kI2I:
		dw = max(1, typeBits(o.size)/32)
	case o.kind == kLd || o.kind == kLds || o.kind == kLdl || o.kind == kLdc || o.kind == kLdlk || o.kind == kLdLdu:
		dw = words(o.size)
	case o.kind == kAtom && o.size == 8:
		dw = 2
	}
	full := func(d *opnd, n int) {
		switch d.kind {
		case oReg:
			if d.row < rowRZ {
				for i := range n {
					if r := int(d.row) + i; r < rowRZ {
						st.Dst = append(st.Dst, emu.Reg{File: emu.RegGPR, N: uint16(r)})
					}
				}
			}
		case oPred:
			if d.row < predPT {
				st.Dst = append(st.Dst, emu.Reg{File: emu.RegPred, N: uint16(d.row)})
			}
		}
	}
	switch o.kind {
	case kMov:
		if o.lanes == 0xf {
			full(&o.d, 1)
		} else {
			st.Partial = regsOfOpnd(st.Partial, &o.d, 1)
		}
	case kBar, kLdlk:
		// BAR.RED's results come when the barrier completes; a lock that
		// fails loads nothing
		st.Partial = regsOfOpnd(st.Partial, &o.d, dw)
		st.Partial = regsOfOpnd(st.Partial, &o.d2, 1)
	case kTld:
		st.Partial = regsOfOpnd(st.Partial, &o.d, 4)
	case kR2P:
		if o.flags&fCCPR != 0 {
			st.Partial = append(st.Partial, cc)
		} else {
			for i := range predPT {
				st.Partial = append(st.Partial, emu.Reg{File: emu.RegPred, N: uint16(i)})
			}
		}
	case kLdLdu:
		full(&o.d, words(o.size))
		full(&o.d2, words(o.size2))
		st.Addr2, st.Offset2 = regsOfOpnd(nil, &o.s[1], sw[1]), o.s[1].imm
	case kSt, kSts, kStl, kStul, kRed:
	default:
		full(&o.d, dw)
		full(&o.d2, 1)
	}
	if o.flags&fCCOut != 0 {
		st.Dst = append(st.Dst, cc)
	}
	st.Groups |= emu.DestGroups(st.Dst, st.Partial)
	gp := st.Groups&emu.GroupGP != 0
	switch {
	case o.kind >= kFadd && o.kind <= kRro:
		st.Groups |= emu.GroupFP32
		st.Unit = emu.UnitFP32
		if o.kind == kMufu {
			st.Unit = emu.UnitSFU
		}
	case isF64(o.kind):
		st.Groups |= emu.GroupFP64
		st.Unit = emu.UnitFP64
	case o.kind >= kF2F && o.kind <= kI2I:
		st.Unit = emu.UnitSFU
	case o.kind >= kLd && o.kind <= kTld:
		st.Unit, st.Mem = emu.UnitLSU, true
		if gp && o.kind != kStul {
			st.Groups |= emu.GroupLD
		}
		if st.Addr == nil && o.s[0].kind == oMem {
			st.Addr = regsOfOpnd(nil, &o.s[0], sw[0])
			st.Offset = o.s[0].imm
		}
	case o.kind >= kIadd:
		st.Unit = emu.UnitInt
	}
	switch o.kind {
	case kVote, kBar:
		st.CrossLane = true
	case kBra, kCal:
		st.Groups |= emu.GroupBranch
		st.Target, st.HasTarget = o.target, true
	case kBrx, kExit, kKil, kRet, kBrk, kCont:
		st.Groups |= emu.GroupBranch // guarded control: a wrong guard sends lanes elsewhere
	}
	return st
}

// Reg implements emu.Inspector.
func (k *Kernel) Reg(w *emu.Warp, r emu.Reg, l int) uint32 {
	switch r.File {
	case emu.RegGPR:
		if r.N < rowRZ {
			return w.Regs[int(r.N)*32+l]
		}
	case emu.RegPred:
		if r.N < predPT {
			return w.Regs[rowFlags*32+int(r.N)] >> l & 1
		}
	case emu.RegCC:
		if r.N != 0 {
			return 0
		}
		f := w.Regs[rowFlags*32:]
		return f[flagZ]>>l&1 | (f[flagS]>>l&1)<<1 | (f[flagC]>>l&1)<<2 | (f[flagO]>>l&1)<<3
	}
	return 0
}

// SetReg implements emu.Inspector.
func (k *Kernel) SetReg(w *emu.Warp, r emu.Reg, l int, v uint32) {
	set := func(word int, bit uint32) {
		m := &w.Regs[rowFlags*32+word]
		*m = *m&^(1<<l) | (bit&1)<<l
	}
	switch r.File {
	case emu.RegGPR:
		if r.N < rowRZ {
			w.Regs[int(r.N)*32+l] = v
		}
	case emu.RegPred:
		if r.N < predPT {
			set(int(r.N), v)
		}
	case emu.RegCC:
		if r.N != 0 {
			return
		}
		set(flagZ, v)
		set(flagS, v>>1)
		set(flagC, v>>2)
		set(flagO, v>>3)
	}
}

// Index implements emu.Inspector.
func (k *Kernel) Index(addr uint64) (uint32, bool) { return k.Prog.indexOf(addr) }

// Accesses implements emu.Inspector: loads (both of LD_LDU's), stores,
// atomics, locks, buffer texture fetches.
func (k *Kernel) Accesses(b *emu.Block, w *emu.Warp, pc uint32, l int, into []emu.Access) ([]emu.Access, bool) {
	if int(pc) >= len(k.ops) {
		return into, true
	}
	o := &k.ops[pc]
	space := func(m *emu.Memory) emu.Space {
		switch m {
		case k.Global:
			return emu.Global
		case &b.Shared:
			return emu.Shared
		}
		return m.Space
	}
	at := func(m *opnd, wide bool, size uint8, read, write bool) bool {
		var local emu.Memory
		mm, addr, err := k.laneMem(b, w, o, m, wide, l, &local)
		if err != nil {
			return true // it faults
		}
		into = append(into, emu.Access{Space: space(mm), Addr: addr, Size: int(size), Read: read, Write: write})
		return true
	}
	wide := o.flags&fE != 0
	switch o.kind {
	case kLd, kLds, kLdl, kLdc, kLdlk:
		return into, at(&o.s[0], wide, o.size, true, false)
	case kSt, kSts, kStl, kStul:
		return into, at(&o.s[0], wide, o.size, false, true)
	case kLdLdu:
		// the LD (or LDS) part's address, then the uniform LDU part's
		ld := op{kind: kLd}
		if o.flags&fShared != 0 {
			ld.kind = kLds
		}
		wideU := o.flags&fUniform != 0 || o.flags&fShared != 0 && o.flags&fE != 0
		for _, part := range []struct {
			o    *op
			m    *opnd
			wide bool
			size uint8
		}{{&ld, &o.s[0], wide && o.flags&fShared == 0, o.size}, {&op{kind: kLd}, &o.s[1], wideU, o.size2}} {
			var local emu.Memory
			mm, addr, err := k.laneMem(b, w, part.o, part.m, part.wide, l, &local)
			if err != nil {
				return into, true // it faults
			}
			into = append(into, emu.Access{Space: space(mm), Addr: addr, Size: int(part.size), Read: true})
		}
		return into, true
	case kAtom, kRed:
		var local emu.Memory
		mm, addr, err := k.generic(b, w, address(w.Regs, &o.s[0], wide, l), l, &local)
		if err != nil {
			return into, true
		}
		return append(into, emu.Access{Space: space(mm), Addr: addr, Size: int(o.size), Read: true, Write: true}), true
	case kTld:
		// element i of the buffer texture (none past its end)
		if int(o.sub) >= len(k.Textures) {
			return into, true
		}
		t := &k.Textures[o.sub]
		i := uint64(w.Regs[int(o.s[0].row)*32+l])
		if o.s[0].row == rowRZ {
			i = 0
		}
		if i >= t.Elements {
			return into, true
		}
		return append(into, emu.Access{Space: emu.Global, Addr: t.Addr + i*uint64(t.Channels)*4, Size: 4 * int(t.Channels),
			Read: true}), true
	}
	return into, true
}
