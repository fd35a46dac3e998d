package maxwell

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// The operand roles of isa/maxwell (Operands.Access: what an instruction
// reads and writes, from spec.txt) against what the emulator's lowered
// instructions do: each instruction runs once on a warp whose registers,
// predicates and condition code hold random values (and whose address
// registers point into memory), and the rows it changes are its writes.

// roleWord is one instruction to check.
type roleWord struct {
	sm   int
	word uint64
	ctrl maxwell.Ctrl
	from string
}

// roleWords are the distinct instruction words of the committed cubins and,
// with the oracle, of insns.tsv.
func roleWords(t *testing.T) []roleWord {
	seen := map[[2]uint64]bool{}
	var out []roleWord
	add := func(sm int, w uint64, c maxwell.Ctrl, from string) {
		k := [2]uint64{uint64(sm), w}
		if !seen[k] {
			seen[k] = true
			out = append(out, roleWord{sm, w, c, from})
		}
	}
	paths, _ := filepath.Glob("testdata/*.cubin")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Functions {
			for b := 0; b+32 <= len(g.Code); b += 32 {
				cw := binary.LittleEndian.Uint64(g.Code[b:])
				for s := range 3 {
					add(f.SM(), binary.LittleEndian.Uint64(g.Code[b+8+8*s:]), maxwell.CtrlField(cw, s), filepath.Base(p))
				}
			}
		}
	}
	if dir := oracle.SharedDir(); dir != "" {
		f, err := os.Open(filepath.Join(dir, "oracle/maxwell/insns.tsv"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Scan()
			for sc.Scan() {
				c := strings.Split(sc.Text(), "\t")
				if len(c) < 7 {
					continue
				}
				sm, _ := strconv.Atoi(strings.TrimPrefix(c[0], "sm_"))
				w, _ := strconv.ParseUint(strings.TrimPrefix(c[3], "0x"), 16, 64)
				ctrl, _ := strconv.ParseUint(strings.TrimPrefix(c[6], "0x"), 16, 32)
				add(sm, w, maxwell.Ctrl(ctrl), "insns.tsv")
			}
		}
	}
	return out
}

// roleRig runs one lowered instruction on one warp.
type roleRig struct {
	k    *Kernel
	b    *emu.Block
	sc   *scratch
	nGPR int
	ops  maxwell.Operands
	mem  [3][]byte // initial global, shared, local memory
	pool []uint32  // random words
}

const roleLocal = 128 // local bytes per thread

// roleMemory is what every rig shares: random constant banks, and the
// initial global, shared and local memory.
type roleMemory struct {
	consts [16]emu.Memory
	init   [3][]byte
	pool   []uint32
}

func newRoleMemory(rng *rand.Rand) *roleMemory {
	m := &roleMemory{}
	for i := range m.consts {
		m.consts[i] = emu.Memory{Space: emu.Constant, Data: make([]byte, ConstBankBytes)}
		fillBytes(rng, m.consts[i].Data)
	}
	m.init = [3][]byte{make([]byte, 8<<10), make([]byte, 4<<10), make([]byte, roleLocal*32)}
	for _, b := range m.init {
		fillBytes(rng, b)
	}
	m.pool = make([]uint32, 1<<17) // twice the most rows a program has (277) x 32 lanes, and more
	for i := range m.pool {
		m.pool[i] = rng.Uint32()
	}
	return m
}

func newRoleRig(t *testing.T, rw roleWord, mem *roleMemory) (*roleRig, maxwell.Inst, error) {
	var code [32]byte
	binary.LittleEndian.PutUint64(code[0:], uint64(rw.ctrl))
	binary.LittleEndian.PutUint64(code[8:], rw.word)
	binary.LittleEndian.PutUint64(code[16:], 0x50b0000000070f00) // NOP
	binary.LittleEndian.PutUint64(code[24:], 0x50b0000000070f00)
	inst, err := maxwell.Decode(rw.word, rw.ctrl, rw.sm, 8)
	if err != nil {
		return nil, inst, err
	}
	p, err := Lower(code[:], rw.sm)
	if err != nil {
		return nil, inst, err
	}
	k := &Kernel{Prog: p, Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{32, 1, 1}, LocalBytes: roleLocal}
	k.Global = &emu.Memory{Space: emu.Global, Data: make([]byte, len(mem.init[0]))}
	k.Const = mem.consts
	k.resolve()
	b := &emu.Block{Dim: k.Block, GridDim: k.Grid, Shared: emu.Memory{Space: emu.Shared, Data: make([]byte, len(mem.init[1]))}}
	b.Warps = []emu.Warp{{Regs: make([]uint32, p.numRows()*32), Active: ^uint32(0)}}
	if err := k.InitBlock(b); err != nil {
		t.Fatal(err)
	}
	r := &roleRig{k: k, b: b, sc: b.Aux.(*scratch), nGPR: p.nGPR, ops: inst.Operands(8), mem: mem.init, pool: mem.pool}
	return r, inst, nil
}

func fillBytes(rng *rand.Rand, b []byte) {
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
	}
}

// fill gives the warp random registers, predicates and condition code
// (RZ rows zero, PT true), then points the address registers of the memory
// operand into memory: lane l at 16*l past a base in its space.
func (r *roleRig) fill(rng *rand.Rand) []uint32 {
	p := r.k.Prog
	regs := make([]uint32, p.numRows()*32)
	// random words from the pool at a random place (cheaper than a number each)
	at := rng.IntN(len(r.pool) - len(regs))
	copy(regs, r.pool[at:])
	clear(regs[p.rowRZ()*32 : (p.rowRZ()+4)*32])
	for l := range 32 {
		regs[p.rowP(7)*32+l] = ^uint32(0)
	}
	for _, a := range r.ops.Args {
		if a.Kind != maxwell.ArgMem && a.Kind != maxwell.ArgConst || a.Reg == 255 || a.Space == maxwell.SpaceSurface {
			continue
		}
		for l := range 32 {
			var target uint64
			switch {
			case a.Kind == maxwell.ArgConst:
				target = 0x100 + 16*uint64(l)
			case a.Space == maxwell.SpaceShared:
				target = 0x100 + 16*uint64(l)
			case a.Space == maxwell.SpaceLocal, a.Space == maxwell.SpaceGeneric && a.AddrBits != 64:
				target = 0x40
			case a.AddrBits == 64:
				target = GlobalBase + 0x1000 + 16*uint64(l)
			default: // a 32-bit global address is an offset into global memory
				target = 0x1000 + 16*uint64(l)
			}
			v := target - uint64(a.Imm)
			regs[int(a.Reg)*32+l] = uint32(v)
			if a.AddrBits == 64 && a.Reg < 254 {
				regs[(int(a.Reg)+1)*32+l] = uint32(v >> 32)
			}
		}
	}
	return regs
}

// run executes the instruction on every lane from registers regs (and the
// initial memory) and returns the registers and memory after it.
func (r *roleRig) run(regs []uint32) ([]uint32, [3][]byte, error) {
	w := &r.b.Warps[0]
	copy(w.Regs, regs)
	o := &r.k.ops[0]
	memory := o.kind >= kLd && o.kind <= kRed
	if memory {
		copy(r.k.Global.Data, r.mem[0])
		copy(r.b.Shared.Data, r.mem[1])
		copy(w.Local, r.mem[2])
	}
	w.Stack, w.Done, w.AtBarrier, w.Fault = nil, false, false, nil
	err := r.k.exec(r.b, w, o, ^uint32(0), r.sc, 0)
	var mem [3][]byte
	if memory {
		mem = [3][]byte{slices.Clone(r.k.Global.Data), slices.Clone(r.b.Shared.Data), slices.Clone(w.Local)}
	}
	return slices.Clone(w.Regs), mem, err
}

// emuEffect is what changed between two register files.
type emuEffect struct {
	gpr   maxwell.RegSet
	preds uint8
	cc    bool
}

func (r *roleRig) changed(before, after []uint32) emuEffect {
	p := r.k.Prog
	var e emuEffect
	row := func(i int) bool { return !slices.Equal(before[i*32:(i+1)*32], after[i*32:(i+1)*32]) }
	for i := 0; i < r.nGPR; i++ {
		if row(i) {
			e.gpr.Add(i, 1)
		}
	}
	for i := range 7 {
		if row(p.rowP(i)) {
			e.preds |= 1 << i
		}
	}
	// the condition code is four lane masks (carry, zero, sign, overflow)
	// at the start of its row
	cc := p.rowCC() * 32
	e.cc = !slices.Equal(before[cc:cc+4], after[cc:cc+4])
	return e
}

func regNames(s maxwell.RegSet, preds uint8, cc bool) string {
	var f []string
	for r := range 255 {
		if s.Has(r) {
			f = append(f, fmt.Sprintf("R%d", r))
		}
	}
	for i := range 7 {
		if preds>>i&1 != 0 {
			f = append(f, fmt.Sprintf("P%d", i))
		}
	}
	if cc {
		f = append(f, "CC")
	}
	return strings.Join(f, " ")
}

// TestRolesMatchEmulator: on every distinct instruction word of the oracle
// (insns.tsv) and of the committed cubins, the registers, predicates and
// condition code the emulator writes are exactly the ones Operands.Access
// says are written (a written register the instruction also reads may keep
// its value: MOV R1, R1), and nothing the instruction does not read changes
// what it writes or stores (each runs twice, the second time with every
// register, predicate and CC row outside its reads made random again).
// Texture results are checked through the emulator's texture write-back
// (texWrite); surfaces need bound images and are only counted.
func TestRolesMatchEmulator(t *testing.T) {
	words := roleWords(t)
	rng := rand.New(rand.NewPCG(17, 18))
	mem := newRoleMemory(rng)
	stats := map[string]int{}
	bad := map[string][]string{}
	fail := func(op, format string, args ...any) {
		bad[op] = append(bad[op], fmt.Sprintf(format, args...))
	}
	for _, rw := range words {
		r, inst, err := newRoleRig(t, rw, mem)
		if err != nil {
			stats["undecodable"]++
			continue
		}
		op := &r.k.ops[0]
		acc := r.ops.Access()
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(maxwell.AppendText(nil, inst, 8))), ";"))
		name := r.ops.Op
		switch {
		case op.kind == kInvalid:
			stats["not emulated"]++
			continue
		case op.kind == kTex && op.tx.op >= tSuld:
			stats["surface (not run)"]++
			continue
		case op.kind == kTex:
			// the texture unit's write-back of four components in lane 0
			before := r.fill(rng)
			after := slices.Clone(before)
			r.k.texWrite(after, op.tx, 0, [4]uint32{^before[0], ^before[1], ^before[2], ^before[3]})
			var e emuEffect
			for i := 0; i < r.nGPR; i++ {
				if before[i*32] != after[i*32] {
					e.gpr.Add(i, 1)
				}
			}
			if e.gpr != acc.Written {
				fail(name, "%s: the texture unit writes %s, the roles say %s", text, regNames(e.gpr, 0, false), regNames(acc.Written, 0, false))
			}
			stats["texture (write-back only)"]++
			continue
		case op.kind >= kSsy && op.kind <= kBpt || op.kind >= kPret && op.kind <= kJmx || op.kind == kBrx || op.kind == kBar:
			// control flow and barriers: no register results
			if !acc.Written.Empty() || acc.PredWritten != 0 || acc.CC.Writes() {
				fail(name, "%s: control flow, but the roles say it writes %s", text, regNames(acc.Written, acc.PredWritten, acc.CC.Writes()))
			}
			stats["control flow"]++
			continue
		}
		regsA := r.fill(rng)
		afterA, memA, errA := r.run(regsA)
		regsB := r.fill(rng)
		afterB, _, errB := r.run(regsB)
		if errA != nil || errB != nil {
			fail(name, "%s: the emulator faults: %v", text, cmp.Or(errA, errB))
			continue
		}
		e := r.changed(regsA, afterA)
		eB := r.changed(regsB, afterB)
		e.gpr, e.preds, e.cc = e.gpr.Union(eB.gpr), e.preds|eB.preds, e.cc || eB.cc
		stats["run"]++
		// writes: exactly the roles' (a register also read may keep its value)
		var why []string
		if x := e.gpr.Minus(acc.Written); !x.Empty() || e.preds&^acc.PredWritten != 0 || e.cc && !acc.CC.Writes() {
			why = append(why, "writes "+regNames(x, e.preds&^acc.PredWritten, e.cc && !acc.CC.Writes())+" the roles do not")
		}
		if x := acc.Written.Minus(e.gpr).Minus(acc.Read); !x.Empty() || acc.PredWritten&^e.preds&^acc.PredRead != 0 || acc.CC == maxwell.RoleWrite && !e.cc {
			why = append(why, "leaves "+regNames(x, acc.PredWritten&^e.preds&^acc.PredRead, acc.CC == maxwell.RoleWrite && !e.cc)+" the roles write")
		}
		// reads: the results depend on nothing outside them
		regsC := slices.Clone(regsA)
		again := r.fill(rng)
		p := r.k.Prog
		for i := 0; i < r.nGPR; i++ {
			if !acc.Read.Has(i) {
				copy(regsC[i*32:(i+1)*32], again[i*32:(i+1)*32])
			}
		}
		for i := range 7 {
			if acc.PredRead>>i&1 == 0 {
				copy(regsC[p.rowP(i)*32:(p.rowP(i)+1)*32], again[p.rowP(i)*32:])
			}
		}
		if !acc.CC.Reads() {
			copy(regsC[p.rowCC()*32:p.rowCC()*32+4], again[p.rowCC()*32:])
		}
		afterC, memC, errC := r.run(regsC)
		switch {
		case errC != nil:
			why = append(why, fmt.Sprintf("faults once registers it does not read change: %v", errC))
		default:
			var diff []string
			for i := 0; i < r.nGPR; i++ {
				if e.gpr.Has(i) && !slices.Equal(afterA[i*32:(i+1)*32], afterC[i*32:(i+1)*32]) {
					diff = append(diff, fmt.Sprintf("R%d", i))
				}
			}
			for i := range 7 {
				if e.preds>>i&1 != 0 && afterA[p.rowP(i)*32] != afterC[p.rowP(i)*32] {
					diff = append(diff, fmt.Sprintf("P%d", i))
				}
			}
			if e.cc && !slices.Equal(afterA[p.rowCC()*32:p.rowCC()*32+4], afterC[p.rowCC()*32:p.rowCC()*32+4]) {
				diff = append(diff, "CC")
			}
			for m := range memA {
				if !slices.Equal(memA[m], memC[m]) {
					diff = append(diff, [3]string{"global memory", "shared memory", "local memory"}[m])
				}
			}
			if len(diff) > 0 {
				why = append(why, "its "+strings.Join(diff, " ")+" depend on something the roles do not read")
			}
		}
		if len(why) > 0 {
			fail(name, "%s (%s): %s", text, rw.from, strings.Join(why, "; "))
		}
	}
	var names []string
	n := 0
	for k, l := range bad {
		names = append(names, k)
		n += len(l)
	}
	sort.Strings(names)
	for _, k := range names {
		l := bad[k]
		t.Errorf("%s: %d words disagree, e.g. %s", k, len(l), strings.Join(l[:min(3, len(l))], " | "))
	}
	t.Logf("%d distinct words: %v; %d disagree", len(words), stats, n)
}
