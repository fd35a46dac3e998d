package cfg

import (
	"math/rand"
	"testing"
)

func TestStackSync(t *testing.T) {
	// an if/else that meets again at 0x30 through SSY/SYNC
	insts := []Inst{
		{Addr: 0x00, Push: Sync, PushTarget: 0x30},
		{Addr: 0x08, Kind: Jump, Cond: true, Targets: []uint64{0x20}},
		{Addr: 0x10},
		{Addr: 0x18, PopTo: Sync},
		{Addr: 0x20},
		{Addr: 0x28, PopTo: Sync},
		{Addr: 0x30},
		{Addr: 0x38, Kind: Exit},
	}
	got := Build(insts, 0).String()
	want := "0x0-0x8: j0x20 f0x10\n0x10-0x18: j0x30\n0x20-0x28: j0x30\n0x30-0x38:\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	// the caller's instructions are not changed
	if insts[3].Kind != Next || insts[3].Targets != nil {
		t.Errorf("Build changed its input: %+v", insts[3])
	}
}

func TestStackBreakNested(t *testing.T) {
	// a loop (PBK 0x40) whose body has an SSY region holding a
	// conditional BRK: BRK looks past the Sync entry to the Break one
	insts := []Inst{
		{Addr: 0x00, Push: Break, PushTarget: 0x40},
		{Addr: 0x08, Leader: true, Push: Sync, PushTarget: 0x20},
		{Addr: 0x10, Kind: Jump, Cond: true, PopTo: Break, Opaque: true},
		{Addr: 0x18, PopTo: Sync},
		{Addr: 0x20},
		{Addr: 0x28, Kind: Jump, Targets: []uint64{0x08}},
		{Addr: 0x30, Kind: Exit}, // unreachable
		{Addr: 0x38, Kind: Exit}, // unreachable
		{Addr: 0x40, Kind: Exit},
	}
	got := Build(insts, 0).String()
	want := "0x0-0x0: f0x8\n0x8-0x10: j0x40 f0x18\n0x18-0x18: j0x20\n0x20-0x28: j0x8\n0x40-0x40:\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	// without the PBK, the BRK goes nowhere known: an opaque end
	insts[0] = Inst{Addr: 0}
	g := Build(insts, 0)
	if b := g.Insts[2]; b.Kind != Jump || !b.Opaque || len(b.Targets) != 0 {
		t.Errorf("BRK with no PBK: %+v", b)
	}
}

func TestStackReturn(t *testing.T) {
	// RET with no PRET ends the function; after PRET it goes to the
	// pushed address
	insts := []Inst{
		{Addr: 0x00, Kind: Exit, PopTo: Return},
	}
	if g := Build(insts, 0); g.Insts[0].Kind != Exit || g.String() != "0x0-0x0:\n" {
		t.Errorf("bare RET: %+v", g.Insts[0])
	}
	insts = []Inst{
		{Addr: 0x00, Push: Return, PushTarget: 0x18},
		{Addr: 0x08, Kind: Call, Targets: []uint64{0x20}},
		{Addr: 0x10, Kind: Exit, PopTo: Return},
		{Addr: 0x18, Kind: Exit},
		{Addr: 0x20, Kind: Exit, PopTo: Return},
	}
	fns := Program("k", insts, make([]string, len(insts)), 0)
	if len(fns) != 2 || fns[1].Name != "k@20" {
		t.Fatalf("functions %+v", fns)
	}
	if got, want := fns[0].Graph.String(), "0x0-0x10: j0x18\n0x18-0x18:\n"; got != want {
		t.Errorf("caller: got\n%swant\n%s", got, want)
	}
	// the subroutine is walked from its own entry, with an empty stack
	if got, want := fns[1].Graph.String(), "0x20-0x20:\n"; got != want {
		t.Errorf("callee: got\n%swant\n%s", got, want)
	}
}

// Random stack instructions stay within the walk's limits: no panic, every
// edge goes to a block, and a resolved jump's targets are addresses of
// the code or of pushed entries.
func TestStackRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		n := 1 + r.Intn(200)
		insts := make([]Inst, n)
		for i := range insts {
			in := Inst{Addr: uint64(8 * i), Cond: r.Intn(2) == 0}
			t := uint64(8 * r.Intn(n+2))
			switch r.Intn(8) {
			case 0:
				in.Push, in.PushTarget = Stack(1+r.Intn(4)), t
			case 1:
				in.Kind, in.Opaque, in.PopTo = Jump, true, Stack(1+r.Intn(4))
			case 2:
				in.Kind, in.Targets = Jump, []uint64{t}
			case 3:
				in.Kind, in.PopTo = Exit, Return
			case 4:
				in.PopTo = Sync
			}
			insts[i] = in
		}
		g := Build(insts, r.Intn(n))
		for _, b := range g.Blocks {
			for _, e := range b.Succs {
				if e.To < 0 || e.To >= len(g.Blocks) {
					t.Fatalf("round %d: edge to %d of %d blocks", round, e.To, len(g.Blocks))
				}
			}
		}
		for i, in := range g.Insts {
			if in.PopTo != NoStack && in.Kind == Jump && !in.Opaque && len(in.Targets) == 0 {
				t.Fatalf("round %d: inst %d resolved to nothing: %+v", round, i, in)
			}
		}
	}
}

// A program calling a thousand subroutines whose code uses the stack costs
// what it reaches, not the whole code per subroutine, past the walks'
// bound; the pops then go nowhere known.
func TestProgramManyCalls(t *testing.T) {
	const n = 1 << 16
	insts := make([]Inst, n)
	for i := range insts {
		insts[i] = Inst{Addr: uint64(8 * i)}
		switch {
		case i < n/2:
			insts[i].Kind, insts[i].Targets = Call, []uint64{uint64(8 * (n/2 + 2*i))}
		case i%2 == 1:
			insts[i].Kind, insts[i].PopTo = Exit, Return
		}
	}
	insts[0].Push, insts[0].PushTarget = Sync, 8
	fns := Program("p", insts, make([]string, n), 0)
	if len(fns) != 1+n/4 {
		t.Fatalf("%d functions, want %d", len(fns), 1+n/4)
	}
	if got := fns[1].Graph.String(); got != "0x40000-0x40008:\n" {
		t.Errorf("first subroutine:\n%s", got)
	}
}
