package usse

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// words is code made of 64-bit words.
func words(ws ...uint64) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// A predicated relative branch back (a loop), a call to a subroutine that
// returns through lapc, and the end flag.
func TestGraphsLoop(t *testing.T) {
	const (
		nop     = 0xf800094000000000
		lapc    = 0xf800008000000000
		brBack  = 0xfd000040000ffffe // !p0 br -2 (instructions)
		call6   = 0xf800020000000006 // ba.savelink 6
		baOver  = 0xf800000000000007 // ba 7
		endFlag = 0x0000010000000000 // the end bit of the nop
	)
	code := words(nop, nop, nop, brBack, call6, baOver, lapc, nop|endFlag)
	fns, errs := Graphs(code, 0, "p")
	if len(errs) != 0 || len(fns) != 2 || fns[1].Name != "p@30" {
		t.Fatalf("errors %v, functions %d", errs, len(fns))
	}
	want := "0x0-0x0: f0x8\n0x8-0x18: j0x8 f0x20\n0x20-0x28: j0x38\n0x38-0x38:\n"
	if got := fns[0].Graph.String(); got != want {
		t.Errorf("got\n%swant\n%s\n%q", got, want, fns[0].Lines)
	}
	if got := fns[1].Graph.String(); got != "0x30-0x30:\n" {
		t.Errorf("subroutine:\n%s", got)
	}
}

// Every branch and lapc of the SGX540 microkernel listings (Imagination's
// own disassembler; the 0x1F group is the SGX543's) has the facts the
// listing shows: kind (call for .savelink), condition (a predicate), and
// the target (IMG prints only its low 3 bits, in instructions, signed for
// br). The whole programs' graphs reach every branch target they hold.
func TestGraphsSGX540(t *testing.T) {
	dir := oracle.Path(t, "oracle/usse/sgx540-ukernel")
	files, _ := filepath.Glob(filepath.Join(dir, "*-disasm.txt"))
	control, bad, edges, edgesOK := 0, 0, 0, 0
	for _, fn := range files {
		data, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		var code []byte
		type branch struct {
			addr uint64
			text string
		}
		// the jumps (calls fall through in the graph)
		var branches []branch
		for _, line := range strings.Split(string(data), "\n") {
			m := imgLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			w, _ := strconv.ParseUint(m[1], 16, 64)
			addr := uint64(len(code))
			code = binary.LittleEndian.AppendUint64(code, w)
			text := strings.TrimSpace(m[2])
			f := strings.Fields(text)
			pred := false
			if _, ok := imgPred[f[0]]; ok {
				pred, f = true, f[1:]
			}
			op := strings.SplitN(f[0], ".", 2)[0]
			if op != "ba" && op != "br" && op != "lapc" {
				continue
			}
			control++
			in, err := DecodeWord(w, addr)
			if err != nil {
				bad++
				t.Errorf("%s %#x %s: %v", filepath.Base(fn), addr, text, err)
				continue
			}
			facts := BranchFacts(&in, addr, 0)
			wantKind := cfg.Exit
			if op != "lapc" {
				wantKind = cfg.Jump
				if strings.HasSuffix(f[0], ".savelink") {
					wantKind, pred = cfg.Call, false
				}
			}
			ok := facts.Kind == wantKind && facts.Cond == pred
			if op != "lapc" {
				tgt := f[len(f)-1]
				v, _ := strconv.ParseInt(strings.TrimPrefix(strings.TrimPrefix(tgt, "-"), "#0x"), 16, 64)
				if strings.HasPrefix(tgt, "-") {
					v = -v
				}
				n := int64(facts.Targets[0]) / 8
				if op == "br" {
					n -= int64(addr / 8)
				}
				ok = ok && n&7 == v&7
				if wantKind == cfg.Jump {
					branches = append(branches, branch{addr, text})
				}
			}
			if !ok {
				if bad++; bad <= 20 {
					t.Errorf("%s %#x %#016x %s: facts %+v", filepath.Base(fn), addr, w, text, facts)
				}
			}
		}
		// in the graph of the whole program, each reached branch ends its
		// block and jumps to the block at its target
		fns, _ := Graphs(code, 0, filepath.Base(fn))
		for _, f := range fns {
			g := f.Graph
			for _, br := range branches {
				b := g.BlockOf(br.addr)
				if b < 0 {
					continue
				}
				edges++
				last := g.Insts[g.Last(b)]
				jumps := false
				for _, e := range g.Blocks[b].Succs {
					jumps = jumps || !e.Fall && len(last.Targets) == 1 && g.Insts[g.Blocks[e.To].Start].Addr == last.Targets[0]
				}
				if last.Addr == br.addr && len(last.Targets) == 1 && (jumps || last.Targets[0] >= uint64(len(code))) {
					edgesOK++
				} else if edges-edgesOK <= 20 {
					t.Errorf("%s %s %#x %s: block ends at %#x (%+v), jump edge %v", filepath.Base(fn), f.Name, br.addr, br.text, last.Addr, last, jumps)
				}
			}
		}
	}
	t.Logf("%d/%d branches and lapc have the listing's facts; %d/%d reached branches end their block with the jump edge", control-bad, control, edgesOK, edges)
	if control < 1000 || edges < 100 {
		t.Errorf("too few cases: %d control words, %d edges", control, edges)
	}
}
