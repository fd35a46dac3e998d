package maxwell

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// liveMarks is what `nvdisasm -plr` shows for one instruction: the
// registers and predicates that become live there (^: defined), die there
// (v: last read) or both (x: read and defined again).
type liveMarks struct {
	def, use, both    RegSet // ^, v, x
	pdef, puse, pboth uint8
	text              string
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
		lm := &liveMarks{text: m[2]}
		blocks := strings.Split(m[3], "|")
		for _, c := range cols {
			if c.block >= len(blocks) || c.pos >= len(blocks[c.block]) {
				continue
			}
			ch := blocks[c.block][c.pos]
			gpr := c.block == 0
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
		t.Errorf("%s: %v", path, err)
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

// liveFact is what nvdisasm's life ranges say of one instruction word,
// over every place it occurs: registers and predicates defined there (^ or
// x) and read there for the last time (v or x).
type liveFact struct {
	w, r   RegSet
	pw, pr uint8
}

type liveKey struct {
	sm   int
	word uint64
}

// collectLive lists the cubins with `nvdisasm -plr` and gathers the facts
// per instruction word; calls are left out (nvdisasm shows what the callee
// may do: the ABI's registers).
func collectLive(t *testing.T, tool string, cubins []string) (facts map[liveKey]*liveFact, calls int) {
	facts = map[liveKey]*liveFact{}
	// the listings, two nvdisasm processes at a time
	listings := make([][]byte, len(cubins))
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for i, c := range cubins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			listings[i] = plrListing(t, tool, c)
			<-sem
		}()
	}
	wg.Wait()
	for i, c := range cubins {
		f := parseCubinFile(t, c)
		marks, err := parsePLR(listings[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Functions {
			fm := marks[g.Name]
			for b := 0; b+BundleSize <= len(g.Code); b += BundleSize {
				for s := 0; s < 3; s++ {
					addr := uint64(b + 8 + 8*s)
					lm := fm[addr]
					inst, err := Decoder{SM: f.SM()}.Decode(g.Code, addr)
					if lm == nil || err != nil {
						continue
					}
					if op := inst.Op(); op == "CAL" || op == "JCAL" || strings.Contains(lm.text, "INDIRECT_CALL") {
						calls++
						continue
					}
					k := liveKey{f.SM(), inst.Word}
					lf := facts[k]
					if lf == nil {
						lf = &liveFact{}
						facts[k] = lf
					}
					lf.w = lf.w.Union(lm.def).Union(lm.both)
					lf.r = lf.r.Union(lm.use).Union(lm.both)
					lf.pw |= lm.pdef | lm.pboth
					lf.pr |= lm.puse | lm.pboth
				}
			}
		}
	}
	return facts, calls
}

// checkLive compares the facts with the operand roles: what nvdisasm sees
// defined is written, what it sees read for the last time is read.
func checkLive(t *testing.T, facts map[liveKey]*liveFact) {
	bad := map[string][]string{}
	n := 0
	for k, lf := range facts {
		inst, err := Decode(k.word, NeutralCtrl, k.sm, 0x100)
		if err != nil {
			t.Errorf("sm_%d %#016x: %v", k.sm, k.word, err)
			continue
		}
		o := inst.Operands(0x100)
		x := o.Access()
		var why []string
		if d := lf.w.Minus(x.Written); !d.Empty() {
			why = append(why, "defines "+regList(d, false)+" it does not write")
		}
		if d := lf.r.Minus(x.Read); !d.Empty() {
			why = append(why, "last reads "+regList(d, false)+" it does not read")
		}
		if d := lf.pw &^ x.PredWritten; d != 0 {
			why = append(why, "defines "+regList(RegSet{uint64(d)}, true)+" it does not write")
		}
		if d := lf.pr &^ x.PredRead; d != 0 {
			why = append(why, "last reads "+regList(RegSet{uint64(d)}, true)+" it does not read")
		}
		if len(why) > 0 {
			n++
			text := strings.TrimSpace(string(AppendText(nil, inst, 0x100)))
			bad[o.Op] = append(bad[o.Op], fmt.Sprintf("sm_%d %s: %s", k.sm, text, strings.Join(why, "; ")))
		}
	}
	var ops []string
	for op := range bad {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		l := bad[op]
		sort.Strings(l)
		t.Errorf("%s: %d words disagree, e.g. %s", op, len(l), strings.Join(l[:min(3, len(l))], " | "))
	}
	t.Logf("%d distinct instruction words with life ranges, %d disagree with the roles", len(facts), n)
}

const liveRangesFile = "testdata/liveranges.tsv.gz"

// TestRolesLiveRanges checks the operand roles against nvdisasm's register
// life ranges (nvdisasm -plr, CUDA 11.8) of every instruction of the oracle
// cubins, kept in testdata/liveranges.tsv.gz (no oracle or nvdisasm
// needed): a register or predicate that becomes live at an instruction (^)
// is one it writes, one whose range ends there (v) one it reads, x both.
// (A write whose result is never read shows no range: written registers
// nvdisasm does not show are not errors.)
func TestRolesLiveRanges(t *testing.T) {
	facts, err := readLiveFacts(liveRangesFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) < 20000 {
		t.Fatalf("%d words in %s", len(facts), liveRangesFile)
	}
	checkLive(t, facts)
}

// TestRolesLiveRangesNvdisasm runs nvdisasm -plr on six of the oracle's
// sm_52 -O3 cubins (all 110 with GPUISA_LIVERANGES=all, about 20 s of CPU;
// GPUISA_LIVERANGES=write also rewrites testdata/liveranges.tsv.gz): the
// roles agree with it, and so do the committed facts.
func TestRolesLiveRangesNvdisasm(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	tool := nvdisasmTool()
	if tool == "" && os.Getenv("GPUISA_PLR_DIR") == "" {
		t.Skip("nvdisasm not installed (../shared/tools/cuda118-setup.sh)")
	}
	mode := os.Getenv("GPUISA_LIVERANGES")
	var cubins []string
	if mode == "all" || mode == "write" {
		cubins, _ = filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	} else { // a sample: textures and surfaces, doubles, atomics, 64-bit integers, video, calls
		for _, k := range []string{"17_texsurf", "07_f64ops", "11_atomics", "04_int64", "16_video", "19_misc"} {
			cubins = append(cubins, filepath.Join(dir, "sm_52", k+".O3.cubin"))
		}
	}
	facts, calls := collectLive(t, tool, cubins)
	t.Logf("%d cubins, %d calls left out", len(cubins), calls)
	checkLive(t, facts)
	if mode == "write" {
		if err := writeLiveFacts(liveRangesFile, facts); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := readLiveFacts(liveRangesFile)
	if err != nil {
		t.Fatal(err)
	}
	for k, lf := range facts {
		if c := committed[k]; c == nil || mode == "all" && *c != *lf {
			t.Errorf("sm_%d %#016x: nvdisasm says %v, %s has %v", k.sm, k.word, *lf, liveRangesFile, c)
		}
	}
}

// rangeList writes a register set as 4-7,12 ("-" when empty).
func rangeList(s RegSet) string {
	var parts []string
	for r := 0; r < 255; r++ {
		if !s.Has(r) {
			continue
		}
		e := r
		for e+1 < 255 && s.Has(e+1) {
			e++
		}
		if e > r {
			parts = append(parts, fmt.Sprintf("%d-%d", r, e))
		} else {
			parts = append(parts, strconv.Itoa(r))
		}
		r = e
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

func parseRangeList(s string) (RegSet, error) {
	var set RegSet
	if s == "-" {
		return set, nil
	}
	for _, p := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(p, "-")
		lo, err := strconv.Atoi(a)
		hi := lo
		if err == nil && isRange {
			hi, err = strconv.Atoi(b)
		}
		if err != nil || lo < 0 || hi < lo || hi > 254 {
			return set, fmt.Errorf("register list %q", s)
		}
		set.Add(lo, hi-lo+1)
	}
	return set, nil
}

// The file: one line per instruction word, sorted: sm, word, registers
// defined, registers read last, predicates defined and read (hex masks).
func writeLiveFacts(path string, facts map[liveKey]*liveFact) error {
	var lines []string
	for k, lf := range facts {
		lines = append(lines, fmt.Sprintf("%d\t%016x\t%s\t%s\t%x\t%x", k.sm, k.word, rangeList(lf.w), rangeList(lf.r), lf.pw, lf.pr))
	}
	sort.Strings(lines)
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	fmt.Fprintf(zw, "# nvdisasm -plr (CUDA 11.8) of the oracle cubins: sm, word, registers defined, registers last read, predicates defined, predicates last read\n")
	for _, l := range lines {
		fmt.Fprintln(zw, l)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func readLiveFacts(path string) (map[liveKey]*liveFact, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	facts := map[liveKey]*liveFact{}
	sc := bufio.NewScanner(zr)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 {
			return nil, fmt.Errorf("%s:%d: %d columns", path, line, len(c))
		}
		sm, err1 := strconv.Atoi(c[0])
		w, err2 := strconv.ParseUint(c[1], 16, 64)
		pw, err3 := strconv.ParseUint(c[4], 16, 8)
		pr, err4 := strconv.ParseUint(c[5], 16, 8)
		regW, err5 := parseRangeList(c[2])
		regR, err6 := parseRangeList(c[3])
		if err := cmp.Or(err1, err2, err3, err4, err5, err6); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		facts[liveKey{sm, w}] = &liveFact{w: regW, r: regR, pw: uint8(pw), pr: uint8(pr)}
	}
	return facts, sc.Err()
}
