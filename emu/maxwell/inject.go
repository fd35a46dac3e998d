package maxwell

import (
	"github.com/gpuisa/gpuisa/emu"
)

var _ emu.Inspector = (*Kernel)(nil)

// What fault injection (emu/inject) needs: the registers each lowered op
// reads and writes, its groups and unit (emu.Inspector), and a copy of the
// block state for checkpoints.

// CloneAux implements emu.AuxCloner: barrier reductions in progress are
// state.
func (s *scratch) CloneAux() any {
	c := &scratch{red: s.red}
	c.lastBar = append([]uint8(nil), s.lastBar...)
	return c
}

// kindOps names the lowered kinds for per-opcode statistics (a kind
// covers a mnemonic's forms: FADD and FADD32I are kFadd).
var kindOps = map[kind]string{
	kInvalid: "?", kNop: "NOP", kMov: "MOV", kSel: "SEL", kIAdd: "IADD", kIAdd3: "IADD3", kXmad: "XMAD",
	kImad: "IMAD", kImul: "IMUL", kIscadd: "ISCADD", kLea: "LEA", kLeaHi: "LEA.HI", kLop: "LOP", kLop3: "LOP3",
	kShl: "SHL", kShr: "SHR", kShf: "SHF", kBfe: "BFE", kBfi: "BFI", kPopc: "POPC", kFlo: "FLO", kImnmx: "IMNMX",
	kIsetp: "ISETP", kIset: "ISET", kIcmp: "ICMP", kPrmt: "PRMT", kFadd: "FADD", kFmul: "FMUL", kFfma: "FFMA",
	kFmnmx: "FMNMX", kFsetp: "FSETP", kFset: "FSET", kFcmp: "FCMP", kMufu: "MUFU", kRro: "RRO", kFchk: "FCHK",
	kDadd: "DADD", kDmul: "DMUL", kDfma: "DFMA", kDmnmx: "DMNMX", kDsetp: "DSETP", kDset: "DSET", kF2F: "F2F",
	kF2I: "F2I", kI2F: "I2F", kI2I: "I2I", kPsetp: "PSETP", kPset: "PSET", kCsetp: "CSETP", kP2R: "P2R", kR2P: "R2P",
	kS2R: "S2R", kCs2r: "CS2R", kLd: "LD", kSt: "ST", kLdg: "LDG", kStg: "STG", kLds: "LDS", kSts: "STS", kLdl: "LDL",
	kStl: "STL", kLdc: "LDC", kAtom: "ATOM", kAtoms: "ATOMS", kRed: "RED", kShfl: "SHFL", kVote: "VOTE", kBar: "BAR",
	kSsy: "SSY", kSync: "SYNC", kPbk: "PBK", kBrk: "BRK", kPcnt: "PCNT", kCont: "CONT", kCal: "CAL", kRet: "RET",
	kBra: "BRA", kExit: "EXIT", kBpt: "BPT", kHadd2: "HADD2", kHmul2: "HMUL2", kHfma2: "HFMA2", kHsetp2: "HSETP2",
	kHset2: "HSET2", kVabsdiff: "VABSDIFF", kVabsdiff4: "VABSDIFF4", kBrx: "BRX", kB2R: "B2R", kVideo: "VIDEO",
	kPret: "PRET", kPexit: "PEXIT", kJmx: "JMX", kTex: "TEX",
}

func isF64Kind(k kind) bool {
	switch k {
	case kDadd, kDmul, kDfma, kDmnmx, kDsetp, kDset:
		return true
	}
	return false
}

func isF32Kind(k kind) bool {
	switch k {
	case kFadd, kFmul, kFfma, kFmnmx, kFsetp, kFset, kFcmp, kFchk, kRro, kMufu, kHadd2, kHmul2, kHfma2, kHsetp2, kHset2:
		return true
	}
	return false
}

func wideType(t uint8) bool { return t == tU64 || t == tS64 || t == tF64 }

// wideAddr reports whether a memory operand of o is a 64-bit register pair.
func wideAddr(o *op) bool {
	switch o.kind {
	case kLd, kSt, kLdg, kStg, kAtom, kRed:
		return o.flags&fE != 0
	}
	return false
}

// gprs appends registers reg..reg+n-1 (RZ is none).
func gprs(out []emu.Reg, reg uint8, n int) []emu.Reg {
	for i := range n {
		if r := int(reg) + i; r < 255 {
			out = append(out, emu.Reg{File: emu.RegGPR, N: uint16(r)})
		}
	}
	return out
}

// operandRegs appends the registers operand x reads (n words wide).
func operandRegs(out []emu.Reg, x *opnd, n int, o *op) []emu.Reg {
	switch x.kind {
	case oReg:
		return gprs(out, x.reg, n)
	case oCIdx:
		return gprs(out, x.reg, 1)
	case oAddr:
		w := 1
		if wideAddr(o) {
			w = 2
		}
		return gprs(out, x.reg, w)
	case oPred:
		if x.reg < 7 {
			out = append(out, emu.Reg{File: emu.RegPred, N: uint16(x.reg)})
		}
	case oCC:
		out = append(out, emu.Reg{File: emu.RegCC})
	case oPR:
		for i := range 7 {
			out = append(out, emu.Reg{File: emu.RegPred, N: uint16(i)})
		}
	}
	return out
}

// Sites implements emu.Inspector.
func (k *Kernel) Sites() []emu.Site {
	p := k.Prog
	sites := make([]emu.Site, len(p.ops))
	for i := range p.ops {
		sites[i] = p.site(&p.ops[i])
	}
	return sites
}

func (p *Program) site(o *op) emu.Site {
	st := emu.Site{Op: kindOps[o.kind]}
	if g := int(o.guard) - p.rowP(0); g >= 0 && g < 7 {
		st.Guard = emu.Reg{File: emu.RegPred, N: uint16(g)}
	}
	if o.kind == kInvalid {
		return st
	}
	if o.kind == kTex {
		st.Mem = true
		return p.texSite(st, o)
	}
	st.Mem = o.kind >= kLd && o.kind <= kRed
	words := max(1, int(o.size)/4)
	// source widths
	sw := [4]int{1, 1, 1, 1}
	switch {
	case isF64Kind(o.kind):
		sw = [4]int{2, 2, 2, 2}
	case o.kind == kF2F || o.kind == kF2I || o.kind == kI2F || o.kind == kI2I:
		if wideType(o.st) {
			sw[0] = 2
		}
	case o.kind == kSt || o.kind == kStg || o.kind == kSts || o.kind == kStl:
		sw[0] = words
	case (o.kind == kAtom || o.kind == kAtoms || o.kind == kRed) && o.size == 8:
		sw[1], sw[2] = 2, 2
	}
	for i := range o.s {
		st.Src = operandRegs(st.Src, &o.s[i], sw[i], o)
	}
	if o.flags&(fX|fCCTest) != 0 || o.kind == kCsetp {
		st.Src = append(st.Src, emu.Reg{File: emu.RegCC})
	}
	// destinations
	dw := 1
	switch {
	case isF64Kind(o.kind) && o.kind != kDsetp && o.kind != kDset:
		dw = 2
	case o.kind == kF2F || o.kind == kF2I || o.kind == kI2F || o.kind == kI2I:
		if wideType(o.dt) {
			dw = 2
		}
	case o.kind == kLd || o.kind == kLdg || o.kind == kLds || o.kind == kLdl || o.kind == kLdc:
		dw = words
	case (o.kind == kAtom || o.kind == kAtoms) && o.size == 8:
		dw = 2
	}
	skipDst := false
	switch o.kind {
	case kSt, kStg, kSts, kStl:
		skipDst = true
		st.Addr = operandRegs(nil, &o.d, 1, o)
		st.Offset = int64(o.d.imm)
		st.Value = operandRegs(nil, &o.s[0], words, o)
		st.Src = append(st.Src, st.Addr...)
		st.Groups |= emu.GroupST
	case kRed:
		skipDst = true // its d is a sink
		st.Addr = operandRegs(nil, &o.s[0], 1, o)
		st.Offset = int64(o.s[0].imm)
		st.Value = operandRegs(nil, &o.s[1], sw[1], o)
		st.Groups |= emu.GroupST
	case kR2P:
		if o.d.kind == oCC {
			st.Partial = append(st.Partial, emu.Reg{File: emu.RegCC})
		} else {
			st.Partial = operandRegs(st.Partial, &opnd{kind: oPR}, 1, o)
		}
		skipDst = true
	}
	if !skipDst {
		for _, d := range []*opnd{&o.d, &o.d2} {
			switch d.kind {
			case oReg:
				st.Dst = gprs(st.Dst, d.reg, dw)
			case oPred:
				if d.reg < 7 {
					st.Dst = append(st.Dst, emu.Reg{File: emu.RegPred, N: uint16(d.reg)})
				}
			}
		}
	}
	if o.flags&fCC != 0 {
		if o.kind == kImnmx {
			st.Partial = append(st.Partial, emu.Reg{File: emu.RegCC})
		} else {
			st.Dst = append(st.Dst, emu.Reg{File: emu.RegCC})
		}
	}
	// groups and unit
	st.Groups |= emu.DestGroups(st.Dst, st.Partial)
	gp := st.Groups&emu.GroupGP != 0
	switch o.kind {
	case kShfl, kVote, kBar:
		st.CrossLane = true
	case kBra, kCal:
		st.Groups |= emu.GroupBranch
		if o.hasTarg {
			st.Target, st.HasTarget = o.target, true
		}
	case kSync, kBrk, kCont, kRet, kExit, kBrx, kJmx:
		st.Groups |= emu.GroupBranch // guarded control: a wrong guard sends lanes elsewhere
	}
	switch {
	case isF64Kind(o.kind):
		st.Groups |= emu.GroupFP64
		st.Unit = emu.UnitFP64
	case isF32Kind(o.kind):
		st.Groups |= emu.GroupFP32
		st.Unit = emu.UnitFP32
		if o.kind == kMufu {
			st.Unit = emu.UnitSFU
		}
	case o.kind == kF2F || o.kind == kF2I || o.kind == kI2F || o.kind == kI2I:
		st.Unit = emu.UnitSFU
	case o.kind >= kLd && o.kind <= kRed:
		st.Unit = emu.UnitLSU
		if gp && o.kind != kRed {
			st.Groups |= emu.GroupLD
		}
		if st.Addr == nil && o.s[0].kind == oAddr {
			st.Addr = operandRegs(nil, &o.s[0], 1, o)
			st.Offset = int64(o.s[0].imm)
		}
	case o.kind == kNop || o.kind >= kSsy && o.kind <= kBpt || o.kind >= kPret:
		// control
	default:
		st.Unit = emu.UnitInt
	}
	return st
}

// texSite: texture and surface instructions read up to four registers
// from each source group (a superset) and write the registers their
// component mask (texWrite) or access size gives.
func (p *Program) texSite(st emu.Site, o *op) emu.Site {
	t := o.tx
	st.Unit = emu.UnitLSU
	if t == nil {
		return st
	}
	for _, r := range []uint8{t.ra, t.rb} {
		st.Src = gprs(st.Src, r, 4)
	}
	if t.bindless {
		st.Src = gprs(st.Src, t.rh, 1)
	}
	n := bitsSet(t.mask)
	regs := func(r uint8, k int) { st.Dst = gprs(st.Dst, r, k) }
	switch t.op {
	case tSuld, tSuatom, tSust, tSured:
		words := max(1, int(t.size)/4)
		if t.formatted {
			words = n
		}
		switch t.op {
		case tSuld:
			regs(t.rd, words)
		case tSuatom:
			regs(t.rd, 1)
		}
		if t.op != tSuld {
			st.Value = gprs(nil, t.rb, words)
			if t.op == tSuatom {
				st.Value = gprs(nil, t.rb, 1) // the operand (CAS: and its second)
			}
			st.Groups |= emu.GroupST
		}
	default:
		switch {
		case t.f16:
			regs(t.rd, 1)
			if n > 2 {
				regs(t.rd2, 1)
			}
		case t.op == tTexs || t.op == tTlds || t.op == tTld4s:
			regs(t.rd, min(n, 2))
			regs(t.rd2, n-min(n, 2))
		default:
			regs(t.rd, n)
		}
	}
	st.Groups |= emu.DestGroups(st.Dst)
	if len(st.Dst) > 0 {
		st.Groups |= emu.GroupLD
	}
	return st
}

func bitsSet(m uint8) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// Images implements emu.ImageLister: the launch's texture and surface
// images in global memory (a buffer's, where one holds the image).
func (k *Kernel) Images() []emu.Region {
	if k.tex == nil {
		return nil
	}
	var out []emu.Region
	for _, im := range k.tex.imgs {
		if im != nil && im.bytes > 0 {
			out = append(out, emu.Region{Name: im.what(), Addr: im.base, Size: im.bytes})
		}
	}
	return out
}

// Reg implements emu.Inspector.
func (k *Kernel) Reg(w *emu.Warp, r emu.Reg, l int) uint32 {
	p := k.Prog
	switch r.File {
	case emu.RegGPR:
		if int(r.N) < p.nGPR {
			return w.Regs[int(r.N)*32+l]
		}
	case emu.RegPred:
		if r.N < 7 {
			return w.Regs[p.rowP(int(r.N))*32] >> l & 1
		}
	case emu.RegCC:
		if r.N != 0 {
			return 0
		}
		return ccFlags(w.Regs, p.rowCC(), l)
	}
	return 0
}

// SetReg implements emu.Inspector.
func (k *Kernel) SetReg(w *emu.Warp, r emu.Reg, l int, v uint32) {
	p := k.Prog
	switch r.File {
	case emu.RegGPR:
		if int(r.N) < p.nGPR {
			w.Regs[int(r.N)*32+l] = v
		}
	case emu.RegPred:
		if r.N < 7 {
			m := &w.Regs[p.rowP(int(r.N))*32]
			*m = *m&^(1<<l) | (v&1)<<l
		}
	case emu.RegCC:
		if r.N != 0 {
			return
		}
		cc := w.Regs[p.rowCC()*32:]
		for i, row := range [4]int{1, 2, 0, 3} { // ccFlags's order: Z, S, C, O
			cc[row] = cc[row]&^(1<<l) | (v>>i&1)<<l
		}
	}
}

// Index implements emu.Inspector.
func (k *Kernel) Index(addr uint64) (uint32, bool) {
	i, ok := addrIndex(addr)
	return i, ok && int(i) < len(k.ops)
}

// Accesses implements emu.Inspector: loads, stores, atomics, the texels
// of texture lookups and the elements of surface accesses.
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
		return emu.Local
	}
	switch o.kind {
	case kLd, kLdg, kLds, kLdl, kSt, kStg, kSts, kStl:
		m := &o.s[0]
		load := o.kind == kLd || o.kind == kLdg || o.kind == kLds || o.kind == kLdl
		if !load {
			m = &o.d
		}
		var local emu.Memory
		mm, addr, err := k.laneMem(b, w, o, m, l, &local)
		if err != nil {
			return into, true // it faults
		}
		return append(into, emu.Access{Space: space(mm), Addr: addr, Size: int(o.size), Read: load, Write: !load}), true
	case kLdc:
		return append(into, emu.Access{Space: emu.Constant, Size: int(o.size), Read: true}), true
	case kAtom, kAtoms, kRed:
		sp, wide := emu.Global, o.flags&fE != 0
		if o.kind == kAtoms {
			sp, wide = emu.Shared, false
		}
		addr := k.address(w.Regs, &o.s[0], wide, l)
		return append(into, emu.Access{Space: sp, Addr: addr, Size: int(o.size), Read: true, Write: true}), true
	case kTex:
		return k.texAccesses(w, o.tx, l, into), true
	}
	return into, true
}

// texAccesses appends lane l's accesses of a texture or surface
// instruction: the texels a lookup reads (the lookup runs on a copy of
// the kernel that notes them), or the surface element; none where the
// instruction faults.
func (k *Kernel) texAccesses(w *emu.Warp, t *texInst, l int, into []emu.Access) []emu.Access {
	if t == nil {
		return into
	}
	switch t.op {
	case tSuld, tSust, tSured, tSuatom:
		get := func(r uint8, i, l int) uint32 {
			if r == 255 {
				return 0
			}
			return w.Regs[(int(r)+i)*32+l]
		}
		_, at, size, ignored, err := k.surfAt(get, t, l)
		if err != nil || ignored {
			return into
		}
		return append(into, emu.Access{Space: emu.Global, Addr: at, Size: size, Read: t.op != tSust, Write: t.op != tSuld})
	}
	var args [32]texArgs
	k.texSources(w.Regs, t, &args)
	c := *k
	c.texReads = &into
	c.texLane(t, &args, l)
	return into
}
