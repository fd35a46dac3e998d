// Command mxdiff compares gpuisa's Maxwell disassembler with NVIDIA's nvdisasm:
// it generates fresh random words and words that walk every field of every
// instruction form, runs nvdisasm -b SMxx -hex -novliw on them and compares
// text (whitespace collapsed) and verdicts (valid or rejected). It also checks
// that the assembler gives the word back from nvdisasm's text.
//
//	go run ./isa/maxwell/cmd/mxdiff [-arch sm_52] [-n 20000] [-seed 7] [-golden out.tsv.gz]
//	go run ./isa/maxwell/cmd/mxdiff -tools [-v 3] [-cache DIR] [-diffs DIR] [-sets RE] [-nvtime D] [-cached] FILE...   (the nvdisasm/cuobjdump drop-ins, per flag set)
//
// Without nvdisasm (looked up as $NVDISASM, /opt/cuda118/usr/bin/nvdisasm,
// then on $PATH) it says so and exits 0. Differences that are understood are
// listed in allowed() with a reason each; any other difference fails (exit 1).
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

func main() {
	arch := flag.String("arch", "sm_52", "sm_50, sm_52 or sm_53")
	n := flag.Int("n", 20000, "random words")
	wordsFile := flag.String("words", "", "compare these words instead of random ones: a .tsv(.gz) whose third column is the word in hex (the oracle's random corpus); implies -walk=false")
	listAll := flag.Bool("listall", false, "list every compared word in the whole-file listings (default: the first 18,000)")
	seed := flag.Uint64("seed", 7, "random seed (splitmix64)")
	walk := flag.Bool("walk", true, "also walk every field of every form")
	golden := flag.String("golden", "", "write the compared words and nvdisasm's verdicts here (.tsv.gz)")
	verbose := flag.Int("v", 10, "mismatches to show per category")
	randCtrl := flag.Bool("ctrl", false, "random control words (stall, yield, barriers, wait, reuse) instead of the neutral one")
	benchN := flag.Int("bench", 0, "time nvdisasm and gpuisa side by side on a file of this many instructions (valid words only) and exit")
	benchFile := flag.String("benchfile", "", "with -bench: use this raw file (whole bundles), or the code of every *.cubin in this directory repeated to -bench instructions, instead of random words")
	gpuisaBin := flag.String("gpuisa", "", "with -bench: the gpuisa command to time; with -tools: the drop-in's binary, or several separated by commas compared side by side (default: go build gpuisa/cmd/gpuisa)")
	listingOut := flag.String("listing", "", "write PREFIX.bin (valid words, whole bundles) and PREFIX.txt (nvdisasm's listing of it)")
	flag.BoolVar(&benchToFile, "tofile", false, "with -bench: both tools write the listing to a regular file instead of /dev/null")
	toolSets := flag.String("sets", "", "with -tools: only the flag sets matching this regular expression (against \"nvdisasm FLAGS\" or \"cuobjdump FLAGS\", e.g. ^nvdisasm -cfg -poff$)")
	toolsCombos := flag.String("combos", "", "with -tools: run the combination sets (nvdisasmComboSets, cuobjdumpComboSets) only on the files whose path matches this regular expression (default: all)")
	toolsCache := flag.String("cache", "", "with -tools: keep NVIDIA's outputs in this directory and reuse them (keyed by tool, flags and input contents), so a rerun after a fix runs only gpuisa")
	toolsDiffs := flag.String("diffs", "", "with -tools: write both outputs of every differing run here (NAME.nv, NAME.us) for the last gpuisa binary")
	toolsTime := flag.Duration("nvtime", 0, "with -tools: run NVIDIA's tools only this long, then compare only the runs whose output is cached (runs go file by file, every flag set on a file, so a cut run covers a sample of every kind of file; 0: no limit)")
	toolsCached := flag.Bool("cached", false, "with -tools: do not run NVIDIA's tools, compare only the runs whose output -cache holds")
	tools := flag.Bool("tools", false, "compare gpuisa nvdisasm and gpuisa cuobjdump with the live tools, every flag set on every FILE argument (cubins; fatbins and host objects for cuobjdump), and report agreement per flag set")
	flag.Parse()
	nv := findNvdisasm()
	if nv == "" {
		fmt.Println("mxdiff: nvdisasm not found ($NVDISASM, /opt/cuda118/usr/bin, $PATH); skipping")
		return
	}
	if *tools {
		cuobjdump := filepath.Join(filepath.Dir(nv), "cuobjdump")
		if _, err := os.Stat(cuobjdump); err != nil {
			cuobjdump = ""
		}
		cfg := toolsConfig{combos: regexpFlag("combos", *toolsCombos), nvdisasm: nv, cuobjdump: cuobjdump, gpuisa: *gpuisaBin,
			only: regexpFlag("sets", *toolSets), verbose: *verbose, cache: *toolsCache, diffs: *toolsDiffs,
			nvTime: *toolsTime, cachedOnly: *toolsCached}
		if err := toolsDiff(cfg, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "mxdiff:", err)
			os.Exit(1)
		}
		return
	}
	sm, err := strconv.Atoi(strings.TrimPrefix(*arch, "sm_"))
	if err != nil || (sm != 50 && sm != 52 && sm != 53) {
		fmt.Fprintln(os.Stderr, "mxdiff: -arch must be sm_50, sm_52 or sm_53")
		os.Exit(2)
	}
	if *benchN > 0 {
		if err := bench(nv, *gpuisaBin, sm, *benchN, *seed, *benchFile); err != nil {
			fmt.Fprintln(os.Stderr, "mxdiff:", err)
			os.Exit(1)
		}
		return
	}
	words := randomWords(*n, *seed)
	if *wordsFile != "" {
		var err error
		if words, err = readWords(*wordsFile); err != nil {
			fmt.Fprintln(os.Stderr, "mxdiff:", err)
			os.Exit(1)
		}
		*n, *walk = len(words), false
	}
	listingLimit = 6000 * 32
	if *listAll {
		listingLimit = len(words) * 16
	}
	if *walk {
		words = append(words, walkWords(*seed+1)...)
	}
	ctrls := make([]uint64, (len(words)+2)/3)
	for i := range ctrls {
		ctrls[i] = 0x001fc400fe2007f1
	}
	if *randCtrl {
		r := splitmix(*seed + 99)
		for i := range ctrls {
			ctrls[i] = randomCtrl(&r)
		}
	}
	texts, errs, err := runNvdisasm(nv, sm, words, ctrls)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mxdiff:", err)
		os.Exit(1)
	}
	bad := map[string][]string{}
	agree := make([]bool, len(words))
	allowedN := map[string]int{}
	ok := 0
	for i, w := range words {
		pc := addrOf(i)
		ctrl := maxwell.CtrlField(ctrls[i/3], i%3)
		inst, derr := maxwell.Decode(w, ctrl, sm, pc)
		var got string
		if derr == nil {
			got = maxwell.Print(inst, pc)
		} else {
			got = "INVALID"
		}
		want := texts[i]
		if want == "" {
			want = "INVALID"
		}
		same := collapse(got) == collapse(want)
		if same && want != "INVALID" {
			// the assembler must give the word back (on the bits the text shows)
			aw, actrl, aerr := maxwell.EncodeText(want, pc, sm, nil)
			if aerr == nil && !*randCtrl && actrl != ctrl {
				same = false
				got = fmt.Sprintf("as: control %#x", uint32(actrl))
			}
			if aerr != nil {
				same = false
				got = "as: " + aerr.Error()
			} else if aw != w {
				if r := allowedAsm(inst, aw, w); r == "" {
					same = false
					got = fmt.Sprintf("as: %#016x", aw)
				}
			}
		}
		if same {
			ok++
			agree[i] = want != "INVALID"
			continue
		}
		if r := allowed(w, want, got, errs[i]); r != "" {
			allowedN[r]++
			ok++
			continue
		}
		key := mnemonic(want)
		if want == "INVALID" {
			key = "INVALID/" + mnemonic(got)
		}
		bad[key] = append(bad[key], fmt.Sprintf("%#016x pc %#x ctrl %#06x\n\tnvdisasm %s %s\n\tgpuisa   %s", w, pc, uint32(maxwell.CtrlField(ctrls[i/3], i%3)), want, errs[i], got))
	}
	fmt.Printf("mxdiff %s: %d words (%d random, %d field walks), %d agree\n", *arch, len(words), *n, len(words)-*n, ok)
	for r, c := range allowedN {
		fmt.Printf("  allowed (%d): %s\n", c, r)
	}
	keys := make([]string, 0, len(bad))
	for k := range bad {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(bad[keys[i]]) > len(bad[keys[j]]) })
	for _, k := range keys {
		fmt.Printf("MISMATCH %s: %d\n", k, len(bad[k]))
		for i, d := range bad[k] {
			if i >= *verbose {
				break
			}
			fmt.Println("  " + d)
		}
	}
	// the whole listing, byte for byte, on the words nvdisasm accepts
	if n, rejected, msg := compareListing(nv, sm, words, ctrls, agree); msg != "" {
		fmt.Printf("LISTING differs (%d lines):\n%s", n, msg)
		bad["listing"] = append(bad["listing"], msg)
	} else {
		fmt.Printf("listing: identical to nvdisasm with %d flag sets (%d lines; %d words rejected alike under braces)\n", len(listingFlagSets), n, rejected)
	}
	if *listingOut != "" {
		if err := writeListing(nv, sm, *listingOut, words, texts); err != nil {
			fmt.Fprintln(os.Stderr, "mxdiff:", err)
			os.Exit(1)
		}
	}
	if *golden != "" {
		if err := writeGolden(*golden, sm, words, ctrls, texts, errs); err != nil {
			fmt.Fprintln(os.Stderr, "mxdiff:", err)
			os.Exit(1)
		}
	}
	if len(bad) > 0 {
		os.Exit(1)
	}
}

// allowed lists the understood differences, each with its reason.
func allowed(w uint64, want, got, nverr string) string {
	return ""
}

// allowedAsm: the text does not show every bit of some words.
func allowedAsm(inst maxwell.Inst, got, want uint64) string {
	if care := maxwell.CareMask(inst); got&care == want&care {
		return "bits no field of the form covers are not printed, so the assembler leaves them zero"
	}
	if strings.Contains(maxwell.Print(inst, 0), "QNAN") {
		return "nvdisasm prints every NaN as QNAN, so the payload is lost"
	}
	if i2, err := maxwell.Decode(got, inst.Ctrl, 52, 0); err == nil && maxwell.Print(i2, 0) == maxwell.Print(inst, 0) {
		return "several encodings print the same text; the assembler picks one"
	}
	return ""
}

func findNvdisasm() string {
	if p := os.Getenv("NVDISASM"); p != "" {
		return p
	}
	if _, err := os.Stat("/opt/cuda118/usr/bin/nvdisasm"); err == nil {
		return "/opt/cuda118/usr/bin/nvdisasm"
	}
	if p, err := exec.LookPath("nvdisasm"); err == nil {
		return p
	}
	return ""
}

// splitmix64, as the oracle's random corpus uses.
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// regexpFlag compiles the regular expression of flag -name ("": nil), or
// exits with a usage error.
func regexpFlag(name, expr string) *regexp.Regexp {
	if expr == "" {
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mxdiff: -%s: %v\n", name, err)
		os.Exit(2)
	}
	return re
}

// readWords reads the words of a .tsv or .tsv.gz file (the oracle's random
// corpus: idx, addr, hex, ...), skipping its header line.
func readWords(path string) ([]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	var words []uint64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 || cols[2] == "hex" {
			continue
		}
		w, err := strconv.ParseUint(strings.TrimPrefix(cols[2], "0x"), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		words = append(words, w)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return words, nil
}

func randomWords(n int, seed uint64) []uint64 {
	r := splitmix(seed)
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.next()
	}
	return out
}

// walkWords: for every form, random operands with each field swept through
// (up to) all its values.
func walkWords(seed uint64) []uint64 {
	r := splitmix(seed)
	var out []uint64
	for i := 0; i < maxwell.FormCount(); i++ {
		_, value, mask, fields := maxwell.FormInfo(i)
		for _, f := range fields {
			if f[0] >= 16 && f[0] < 20 {
				continue
			}
			n := uint64(1) << f[1]
			step := uint64(1)
			if n > 16 {
				step = n / 16
			}
			for v := uint64(0); v < n; v += step {
				w := r.next()&^mask | value
				m := (n - 1) << f[0]
				w = w&^m | v<<f[0]
				out = append(out, w)
			}
		}
	}
	return out
}

func addrOf(i int) uint64 { return uint64(i/3*32 + 8 + 8*(i%3)) }

var lineRE = regexp.MustCompile(`^\s*/\*([0-9a-f]+)\*/\s*(.*?)\s*/\* 0x([0-9a-f]+) \*/`)
var errRE = regexp.MustCompile(`error\s*:\s*(.*) at address 0x([0-9a-f]+)`)

// runNvdisasm returns nvdisasm's text per word ("" for rejected words) and its
// error message. A rejected word suppresses the whole listing, so rejected words
// are replaced by NOPs and nvdisasm runs again.
func runNvdisasm(nv string, sm int, words []uint64, ctrls []uint64) ([]string, []string, error) {
	texts := make([]string, len(words))
	errs := make([]string, len(words))
	cur := append([]uint64(nil), words...)
	const chunk = 3 * 30000
	for start := 0; start < len(cur); start += chunk {
		end := min(start+chunk, len(cur))
		for pass := 0; pass < 4; pass++ {
			buf := make([]byte, 0, (end-start+2)/3*32)
			for i := start; i < end; i += 3 {
				buf = binary.LittleEndian.AppendUint64(buf, ctrls[i/3])
				for k := 0; k < 3; k++ {
					w := uint64(filler)
					if i+k < end {
						w = cur[i+k]
					}
					buf = binary.LittleEndian.AppendUint64(buf, w)
				}
			}
			f := filepath.Join(os.TempDir(), fmt.Sprintf("mxdiff-%d.bin", os.Getpid()))
			if err := os.WriteFile(f, buf, 0o644); err != nil {
				return nil, nil, err
			}
			cmd := exec.Command(nv, "-b", fmt.Sprintf("SM%d", sm), "-hex", "-novliw", "-base", fmt.Sprintf("%#x", addrOf(start)-8), f)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			os.Remove(f)
			if err == nil {
				sc := bufio.NewScanner(strings.NewReader(string(out)))
				sc.Buffer(make([]byte, 1<<20), 1<<20)
				for sc.Scan() {
					m := lineRE.FindStringSubmatch(sc.Text())
					if m == nil {
						continue
					}
					a, _ := strconv.ParseUint(m[1], 16, 64)
					i := int(a/32*3 + (a%32)/8 - 1)
					if i >= start && i < end && errs[i] == "" {
						texts[i] = m[2]
					}
				}
				break
			}
			found := false
			for _, l := range strings.Split(stderr.String(), "\n") {
				m := errRE.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				a, _ := strconv.ParseUint(m[2], 16, 64)
				i := int(a/32*3 + (a%32)/8 - 1)
				if i >= start && i < end {
					errs[i] = m[1]
					cur[i] = filler
					found = true
				}
			}
			if !found {
				return nil, nil, fmt.Errorf("nvdisasm: %v: %s", err, stderr.String())
			}
		}
	}
	return texts, errs, nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func mnemonic(text string) string {
	f := strings.Fields(text)
	if len(f) > 1 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	m := f[0]
	if i := strings.IndexAny(m, ".;"); i >= 0 {
		m = m[:i]
	}
	return m
}

// writeGolden stores "hex<TAB>text" lines (text INVALID for rejected words) for
// the package's golden test.
func writeGolden(path string, sm int, words, ctrls []uint64, texts, errs []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	fmt.Fprintf(zw, "# nvdisasm -b SM%d -hex -novliw: word, its 21-bit control field, text; word k at 0x20*(k/3)+8*(k%%3+1); generated by cmd/mxdiff\n", sm)
	for i, w := range words {
		t := texts[i]
		if errs[i] != "" || t == "" {
			t = "INVALID"
		}
		fmt.Fprintf(zw, "%016x\t%06x\t%s\n", w, uint32(maxwell.CtrlField(ctrls[i/3], i%3)), t)
	}
	return zw.Close()
}

// listingFlagSets are the raw-input flag sets whose whole listing is
// compared byte for byte (-hex -novliw through Disassemble, the others
// through ListRaw).
var listingFlagSets = []struct {
	flags string
	opts  maxwell.ListOptions
}{
	{"-hex -novliw", maxwell.ListOptions{}},
	{"", maxwell.ListOptions{NoHex: true, VLIW: true}},
	{"-hex", maxwell.ListOptions{VLIW: true}},
	{"-novliw", maxwell.ListOptions{NoHex: true}},
	{"-raw", maxwell.ListOptions{Raw: true, VLIW: true}},
}

// listingLimit bounds the bytes of the whole-file listings compareListing makes.
var listingLimit = 6000 * 32

// compareListing lists the compared words nvdisasm accepts and gpuisa prints
// alike as one raw file, in their bundles and under their control words (the
// others replaced by the filler), with every flag set of listingFlagSets, and
// compares the whole listings byte for byte; it returns the line count, the words rejected alike
// and a
// description of the differences ("" when there are none). ??? operands are
// included: their column depends on the whole file.
func compareListing(nv string, sm int, words, ctrls []uint64, agree []bool) (int, int, string) {
	var code []byte
	for i := 0; i < len(words) && len(code) < listingLimit; i += 3 {
		code = binary.LittleEndian.AppendUint64(code, ctrls[i/3])
		for k := i; k < i+3; k++ {
			w := uint64(filler)
			if k < len(words) && agree[k] {
				w = words[k]
			}
			code = binary.LittleEndian.AppendUint64(code, w)
		}
	}
	f := filepath.Join(os.TempDir(), fmt.Sprintf("mxdiff-l-%d.bin", os.Getpid()))
	if err := os.WriteFile(f, code, 0o644); err != nil {
		return 0, 0, err.Error()
	}
	defer func() {
		if os.Getenv("MXKEEP") == "" {
			os.Remove(f)
		}
	}()
	var b strings.Builder
	nd, lines, rejected := 0, 0, 0
	for _, fs := range listingFlagSets {
		args := append([]string{"-b", fmt.Sprintf("SM%d", sm)}, strings.Fields(fs.flags)...)
		var stderr strings.Builder
		cmd := exec.Command(nv, append(args, f)...)
		cmd.Stderr = &stderr
		want, err := cmd.Output()
		var vliw []*isa.DecodeError
		if fs.opts.VLIW {
			vliw = maxwell.ReadVLIW(code, 0, sm).Errors
		}
		if err != nil || len(vliw) > 0 {
			// with braces, nvdisasm rejects the bundle after one whose
			// last two control fields both mark a dual issue
			// (maxwell.ReadVLIW): the rejected addresses must agree
			var theirs, ours []string
			for _, m := range errRE.FindAllStringSubmatch(stderr.String(), -1) {
				theirs = append(theirs, m[2])
			}
			if strings.Contains(stderr.String(), "Unaligned instruction found") {
				theirs = append(theirs, "unaligned")
			}
			for _, e := range vliw {
				if errors.Is(e, isa.ErrTruncated) {
					ours = append(ours, "unaligned") // a pair left open at the end
					continue
				}
				ours = append(ours, fmt.Sprintf("%08x", e.Addr))
			}
			if err == nil || !slices.Equal(theirs, ours) {
				nd++
				fmt.Fprintf(&b, "  %q: nvdisasm rejects %d words %v, gpuisa %d %v\n", fs.flags, len(theirs), theirs, len(ours), ours)
			} else {
				rejected += len(ours)
			}
			continue
		}
		var got []byte
		var derrs []*isa.DecodeError
		if fs.flags == "-hex -novliw" {
			got, derrs = maxwell.Disassemble(nil, code, 0, sm)
		} else {
			got, derrs = maxwell.ListRaw(nil, code, 0, sm, fs.opts)
		}
		wl := strings.Split(string(want), "\n")
		gl := strings.Split(string(got), "\n")
		lines += len(wl)
		shown := 0
		for i := 0; i < max(len(wl), len(gl)); i++ {
			var x, y string
			if i < len(wl) {
				x = wl[i]
			}
			if i < len(gl) {
				y = gl[i]
			}
			if x != y {
				nd++
				if shown++; shown <= 3 {
					fmt.Fprintf(&b, "  %q line %d\n\tnvdisasm %q\n\tgpuisa   %q\n", fs.flags, i+1, x, y)
				}
			}
		}
		if len(derrs) > 0 {
			fmt.Fprintf(&b, "  %q: gpuisa rejected %d words nvdisasm accepts, first %v\n", fs.flags, len(derrs), derrs[0])
			nd++
		}
	}
	if nd == 0 {
		return lines, rejected, ""
	}
	return nd, rejected, b.String()
}

// writeListing stores up to 1000 words nvdisasm accepts (without ??? operands,
// whose padding depends on the column) as a raw file and nvdisasm's listing of it.
func writeListing(nv string, sm int, prefix string, words []uint64, texts []string) error {
	var code []byte
	k := 0
	for i, w := range words {
		if texts[i] == "" || strings.Contains(texts[i], "???") || k >= 999 {
			continue
		}
		if k%3 == 0 {
			code = binary.LittleEndian.AppendUint64(code, 0x001fc400fe2007f1)
		}
		code = binary.LittleEndian.AppendUint64(code, w)
		k++
	}
	for k%3 != 0 {
		code = binary.LittleEndian.AppendUint64(code, 0x50b0000000070f00)
		k++
	}
	if err := os.WriteFile(prefix+".bin", code, 0o644); err != nil {
		return err
	}
	out, err := exec.Command(nv, "-b", fmt.Sprintf("SM%d", sm), "-hex", "-novliw", "-base", "0xfc00", prefix+".bin").Output()
	if err != nil {
		return err
	}
	return os.WriteFile(prefix+".txt", out, 0o644)
}

// benchToFile: -bench times the listings written to a regular file.
var benchToFile bool

// filler replaces rejected words: MEMBAR.CTA is valid under any control field.
const filler = 0xef98000000070000

// randomCtrl: three random fields, with "no barrier" half of the time so that
// fixed-latency instructions are not all rejected.
func randomCtrl(r *splitmix) uint64 {
	var c uint64
	for s := 0; s < 3; s++ {
		x := r.next()
		f := x & 0x1f // stall, yield
		if x>>8&1 == 0 {
			f |= 7 << 5
		} else {
			f |= (x >> 10 & 7) << 5
		}
		if x>>9&1 == 0 {
			f |= 7 << 8
		} else {
			f |= (x >> 13 & 7) << 8
		}
		f |= (x >> 16 & 0x3f) << 11 // wait mask
		f |= (x >> 24 & 0xf) << 17  // reuse
		if x>>30&3 != 0 {
			f &^= 8 << 17 // reuse bit 3 rejects fixed-latency instructions: keep it rare
		}
		c |= f << (21 * uint(s))
	}
	return c
}

// bench builds a raw file of n instructions nvdisasm accepts (random words
// under the neutral control word) and times nvdisasm -hex -novliw and
// Disassemble on it, reporting instructions per second and peak memory.
func bench(nv, gpuisa string, sm int, n int, seed uint64, file string) error {
	if file != "" {
		code, err := benchInput(file, n)
		if err != nil {
			return err
		}
		return timeBoth(nv, gpuisa, sm, code)
	}
	r := splitmix(seed)
	var valid []uint64
	for len(valid) < 30000 {
		ws := make([]uint64, 30000)
		for i := range ws {
			ws[i] = r.next()
		}
		ctrls := make([]uint64, len(ws)/3)
		for i := range ctrls {
			ctrls[i] = 0x001fc400fe2007f1
		}
		texts, errs, err := runNvdisasm(nv, sm, ws, ctrls)
		if err != nil {
			return err
		}
		for i, w := range ws {
			if errs[i] == "" && texts[i] != "" {
				valid = append(valid, w)
			}
		}
	}
	code := make([]byte, 0, (n+2)/3*32)
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			code = binary.LittleEndian.AppendUint64(code, 0x001fc400fe2007f1)
		}
		code = binary.LittleEndian.AppendUint64(code, valid[i%len(valid)])
	}
	for len(code)%32 != 0 {
		code = binary.LittleEndian.AppendUint64(code, 0x50b0000000070f00)
	}
	return timeBoth(nv, gpuisa, sm, code)
}

// benchInput reads a raw file, or for a directory the code of every function
// of its *.cubin files (compiled code), repeated to n instructions.
func benchInput(path string, n int) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return os.ReadFile(path)
	}
	names, err := filepath.Glob(filepath.Join(path, "*.cubin"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var text []byte
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := cubin.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for _, fn := range f.Functions {
			text = append(text, fn.Code[:len(fn.Code)/32*32]...)
		}
	}
	if len(text) == 0 {
		return nil, fmt.Errorf("%s: no cubin code", path)
	}
	code := make([]byte, 0, (n+2)/3*32)
	for len(code) < cap(code) {
		code = append(code, text[:min(len(text), cap(code)-len(code))]...)
	}
	return code, nil
}

// timeBoth times nvdisasm and the gpuisa command on the same file, both
// listing it to /dev/null (to a regular file with -tofile) as separate processes (start-up, reading and
// writing included), and reports each one's peak memory. gpuisa runs three
// times and the median counts; the library call (the listing built in memory)
// is timed too.
func timeBoth(nv, gpuisa string, sm int, code []byte) error {
	n := len(code) / 32 * 3
	dir, err := os.MkdirTemp("", "mxdiff-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "code.bin")
	if err := os.WriteFile(f, code, 0o644); err != nil {
		return err
	}
	if gpuisa == "" {
		gpuisa = filepath.Join(dir, "gpuisa")
		if out, err := exec.Command("go", "build", "-o", gpuisa, "github.com/gpuisa/gpuisa/cmd/gpuisa").CombinedOutput(); err != nil {
			return fmt.Errorf("building gpuisa: %v\n%s", err, out)
		}
	}
	run := func(name string, args ...string) (time.Duration, int64, error) {
		cmd := exec.Command(name, args...) // stdout: /dev/null, or a regular file with -tofile
		if benchToFile {
			out, err := os.Create(filepath.Join(dir, "listing.txt"))
			if err != nil {
				return 0, 0, err
			}
			defer out.Close()
			cmd.Stdout = out
		}
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %v", name, err)
		}
		return d, peakRSSMB(cmd.ProcessState), nil
	}
	nvTime, nvRSS, err := run(nv, "-b", fmt.Sprintf("SM%d", sm), "-hex", "-novliw", f)
	if err != nil {
		return err
	}
	var times []time.Duration
	var ourRSS int64
	for range 3 {
		d, rss, err := run(gpuisa, "dis", "-arch", fmt.Sprintf("sm_%d", sm), f)
		if err != nil {
			return err
		}
		times = append(times, d)
		ourRSS = max(ourRSS, rss)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	ourTime := times[1]
	runtime.GC()
	t1 := time.Now()
	out, errs := maxwell.Disassemble(nil, code, 0, sm)
	libTime := time.Since(t1)
	fmt.Printf("file: %d instructions (%d bytes), listing %d bytes, %d errors\n", n, len(code), len(out), len(errs))
	fmt.Printf("nvdisasm:    %.2fs = %.0f insn/s, peak RSS %d MB\n", nvTime.Seconds(), float64(n)/nvTime.Seconds(), nvRSS)
	fmt.Printf("gpuisa dis:  %.3fs = %.0f insn/s, peak RSS %d MB (median of %v; GOMAXPROCS %d)\n", ourTime.Seconds(), float64(n)/ourTime.Seconds(), ourRSS, times, runtime.GOMAXPROCS(0))
	fmt.Printf("speedup: %.1fx\n", nvTime.Seconds()/ourTime.Seconds())
	fmt.Printf("library (maxwell.Disassemble into memory): %.3fs = %.0f insn/s, %.1fx\n", libTime.Seconds(), float64(n)/libTime.Seconds(), nvTime.Seconds()/libTime.Seconds())
	return nil
}
