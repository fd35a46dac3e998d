package maxwell

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// liveMarks is what `nvdisasm -plr` shows for one instruction: the
// registers and predicates that become live there (^: defined), die there
// (v: last read) or both (x: read and defined again).
type liveMarks struct {
	def, use, both        RegSet
	pdef, puse, pboth     uint8
	text                  string
	fn                    string
	addr                  uint64
	hasGPR, hasPred       bool
	maxGPRCol, maxPredCol int
}

var plrLine = regexp.MustCompile(`^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*// \|(.*)$`)

// parsePLR reads an `nvdisasm -plr -novliw` listing: per function (the
// .text.NAME section), the marks of each instruction address.
func parsePLR(listing []byte) (map[string]map[uint64]*liveMarks, error) {
	out := map[string]map[uint64]*liveMarks{}
	var fn string
	// the header's columns: per block (GPR, PRED) the position of each
	// label's last character, relative to the block's start
	type col struct {
		block, n, pos int
	}
	var cols []col
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), ".section\t.text."); ok {
			fn, _, _ = strings.Cut(s, ",")
			out[fn] = map[uint64]*liveMarks{}
			cols = nil
			continue
		}
		if i := strings.Index(line, "// |  #"); i >= 0 {
			cols = cols[:0]
			blocks := strings.Split(line[i+4:], "|")
			for b, blk := range blocks {
				fields := strings.Fields(blk)
				if len(fields) == 0 || fields[0] != "#" {
					continue
				}
				pos := 0
				for _, f := range fields {
					at := strings.Index(blk[pos:], f) + pos
					pos = at + len(f)
					if f == "#" {
						continue
					}
					n, err := strconv.Atoi(f)
					if err != nil {
						return nil, fmt.Errorf("header %q", line)
					}
					cols = append(cols, col{b, n, pos - 1})
				}
			}
			continue
		}
		m := plrLine.FindStringSubmatch(line)
		if m == nil || fn == "" || len(cols) == 0 {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		lm := &liveMarks{text: m[2], fn: fn, addr: addr}
		blocks := strings.Split(m[3], "|")
		for _, c := range cols {
			if c.block >= len(blocks) || c.pos >= len(blocks[c.block]) {
				continue
			}
			ch := blocks[c.block][c.pos]
			gpr := c.block == 0
			if gpr {
				lm.hasGPR = true
			} else {
				lm.hasPred = true
			}
			switch {
			case gpr && ch == '^':
				lm.def.Add(c.n, 1)
			case gpr && ch == 'v':
				lm.use.Add(c.n, 1)
			case gpr && ch == 'x':
				lm.both.Add(c.n, 1)
			case !gpr && ch == '^':
				lm.pdef |= 1 << c.n
			case !gpr && ch == 'v':
				lm.puse |= 1 << c.n
			case !gpr && ch == 'x':
				lm.pboth |= 1 << c.n
			}
		}
		out[fn][addr] = lm
	}
	return out, sc.Err()
}

// plrListing runs `nvdisasm -plr -novliw` on a cubin, or reads the
// listing GPUISA_PLR_DIR holds for it (made by the same command).
func plrListing(t *testing.T, tool, path string) []byte {
	if dir := os.Getenv("GPUISA_PLR_DIR"); dir != "" {
		name := filepath.Base(filepath.Dir(path)) + "_" + filepath.Base(path) + ".txt"
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return b
		}
	}
	b, err := exec.Command(tool, "-plr", "-novliw", path).Output()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// regList prints a register set as R1 R2 ...
func regList(s RegSet, pred bool) string {
	var b strings.Builder
	for r := 0; r < 255; r++ {
		if s.Has(r) {
			if pred {
				fmt.Fprintf(&b, " P%d", r)
			} else {
				fmt.Fprintf(&b, " R%d", r)
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// TestRolesLiveRanges checks the operand roles against nvdisasm's register
// life ranges (-plr) on the oracle cubins: a register or predicate that
// becomes live at an instruction (^) is one it writes, one whose range ends
// there (v) one it reads, and x both.
func TestRolesLiveRanges(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	tool := nvdisasmTool()
	if tool == "" && os.Getenv("GPUISA_PLR_DIR") == "" {
		t.Skip("nvdisasm not installed (../shared/tools/cuda118-setup.sh)")
	}
	cubins, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	insts, checked, calls := 0, 0, 0
	bad := map[string][]string{}
	unshown := map[string]int{} // written registers nvdisasm shows no range for
	for _, c := range cubins {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		marks, err := parsePLR(plrListing(t, tool, c))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Functions {
			fm := marks[g.Name]
			code := g.Code
			for b := 0; b+BundleSize <= len(code); b += BundleSize {
				for s := 0; s < 3; s++ {
					addr := uint64(b + 8 + 8*s)
					inst, err := Decoder{SM: f.SM()}.Decode(code, addr)
					if err != nil {
						continue
					}
					insts++
					lm := fm[addr]
					if lm == nil {
						continue
					}
					o := inst.Operands(addr)
					if o.Op == "CAL" || o.Op == "JCAL" || strings.Contains(lm.text, "INDIRECT_CALL") {
						calls++ // nvdisasm shows what the callee may do (the ABI's registers)
						continue
					}
					checked++
					x := o.Access()
					if d := x.Written.Minus(lm.def.Union(lm.both)); !d.Empty() {
						unshown[o.Op]++
						if os.Getenv("PLRDEBUG") != "" {
							t.Logf("%s:%04x %s: %s", g.Name, addr, lm.text, regList(d, false))
						}
					}
					var why []string
					if d := lm.def.Union(lm.both).Minus(x.Written); !d.Empty() {
						why = append(why, "defines "+regList(d, false)+" it does not write")
					}
					if d := lm.use.Union(lm.both).Minus(x.Read); !d.Empty() {
						why = append(why, "last reads "+regList(d, false)+" it does not read")
					}
					if d := (lm.pdef | lm.pboth) &^ x.PredWritten; d != 0 {
						why = append(why, "defines "+regList(RegSet{uint64(d)}, true)+" it does not write")
					}
					if d := (lm.puse | lm.pboth) &^ x.PredRead; d != 0 {
						why = append(why, "last reads "+regList(RegSet{uint64(d)}, true)+" it does not read")
					}
					if len(why) > 0 {
						bad[o.Op] = append(bad[o.Op], fmt.Sprintf("%s %s:%04x %s: %s", filepath.Base(c), g.Name, addr, lm.text, strings.Join(why, "; ")))
					}
				}
			}
		}
	}
	var ops []string
	n := 0
	for op, l := range bad {
		ops = append(ops, op)
		n += len(l)
	}
	sort.Strings(ops)
	for _, op := range ops {
		l := bad[op]
		t.Errorf("%s: %d disagreements, e.g. %s", op, len(l), strings.Join(l[:min(3, len(l))], " | "))
	}
	t.Logf("%d instructions, %d with life ranges compared (%d calls not), %d disagree with the roles", insts, checked, calls, n)
	t.Logf("instructions writing a register nvdisasm shows no life range for (results never read), by mnemonic: %v", unshown)
}
