package maxwell

import (
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/fuzzseed"
)

var listModes = []ListOptions{{}, {NoHex: true, NVN: true}, {VLIW: true}, {VLIW: true, NoHex: true}}

// TestListIndirectTargetsInControlWord is issue 11's crash: an
// EIATTR_INDIRECT_BRANCH_TARGETS address of 1..7 (inside a bundle's control
// word) made funcLabels.pairOffset index closes[-1]. The seeds carry such
// records; every bit flip of the .nv.info sections of our cubin with a jump
// table (the input: one flipped bit) lists without a panic.
func TestListIndirectTargetsInControlWord(t *testing.T) {
	var cubins []fuzzseed.Seed
	for _, s := range fuzzseed.Containers() {
		if f, err := cubin.Parse(s.Data); err == nil && f.SM() >= 50 {
			cubins = append(cubins, s)
		}
	}
	if len(cubins) == 0 {
		t.Fatal("no sm_5x seed cubins")
	}
	modes := listModes
	list := func(name string, data []byte) {
		f, err := cubin.Parse(data)
		if err != nil {
			return
		}
		for _, o := range modes {
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("%s: ListCubin(%+v) panics: %v", name, o, v)
					}
				}()
				ListCubin(nil, f, o)
			}()
		}
	}
	for _, s := range cubins {
		list(s.Name, s.Data)
	}
	var jump fuzzseed.Seed
	for _, s := range fuzzseed.Embedded() {
		if s.Name == "seeds.sm_52.rel.cubin" {
			jump = s
		}
	}
	f, err := cubin.Parse(jump.Data)
	if err != nil {
		t.Fatal(err)
	}
	modes = []ListOptions{{}, {VLIW: true}} // the labels' two layouts
	flips := 0
	for _, fn := range f.Functions {
		sec := f.Section(".nv.info." + fn.Name)
		for _, a := range fn.Info {
			if a.ID != attrIndirectBranchTargets {
				continue
			}
			// the header, the branch's address and count, the first target
			start := int(sec.Offset) + a.Off
			for bit := range 8 * min(20, 4+len(a.Data)) {
				d := append([]byte(nil), jump.Data...)
				d[start+bit/8] ^= 1 << (bit % 8)
				list(sec.Name, d)
				flips++
			}
		}
	}
	if flips < 150 {
		t.Errorf("%d bit flips", flips)
	}
}

// TestSafeGroupRepanics: a panic in a listing worker reaches the caller's
// goroutine (where gpuisa's top-level recover is), not the runtime.
func TestSafeGroupRepanics(t *testing.T) {
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v", v)
		}
	}()
	var g safeGroup
	g.Go(func() {})
	g.Go(func() { panic("boom") })
	g.Wait()
	t.Error("Wait returned")
}

// TestGraphsOfMisplacedSymbols is a crash FuzzDisForms found: a function
// symbol at an address inside a bundle's control word (1..7) made the graph
// builder index instruction -1. A function symbol at any address that is
// no instruction's (in the control word, between instructions, past the
// section) gets no graph of its own, and nothing panics.
func TestGraphsOfMisplacedSymbols(t *testing.T) {
	tried := 0
	for _, s := range fuzzseed.Containers() {
		f, err := cubin.Parse(s.Data)
		if err != nil || f.SM() < 50 {
			continue
		}
		for k := range f.Symbols {
			if f.Symbols[k].Type() != 2 {
				continue
			}
			orig := f.Symbols[k].Value
			for _, v := range []uint64{1, 2, 4, 7, 9, 0x21, 0x7ffffff8, 1 << 40, ^uint64(0)} {
				f.Symbols[k].Value = v
				for _, bb := range []bool{false, true} {
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Fatalf("%s: symbol %s at %#x: cfg panics: %v", s.Name, f.Symbols[k].Name, v, p)
							}
						}()
						ControlFlowDOT(nil, f, CFGOptions{BasicBlocks: bb})
						Graphs(f, ListOptions{})
					}()
					tried++
				}
			}
			f.Symbols[k].Value = orig
		}
	}
	if tried == 0 {
		t.Fatal("no sm_5x seed cubin with a function symbol")
	}
}
