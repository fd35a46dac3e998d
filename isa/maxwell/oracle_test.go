package maxwell

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa"
)

// Baselines: the oracle match counts this package has reached. The tests fail
// when a change makes them worse; raise them as the spec grows.
const (
	baseInsns     = 36132
	baseRandom    = 200001
	baseMessages  = 54116
	baseRand50    = 35191
	baseAsmInsns  = 36132
	baseAsmRandom = 145203
)

// collapse folds whitespace runs into one blank, as the oracle README asks.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// mnemonic is the first token of an nvdisasm text after the guard.
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

type tally struct {
	ok, total int
	bad       map[string][]string
}

func (t *tally) add(key string, ok bool, detail string) {
	t.total++
	if ok {
		t.ok++
		return
	}
	if t.bad == nil {
		t.bad = map[string][]string{}
	}
	t.bad[key] = append(t.bad[key], detail)
}

func (t *tally) report(tb testing.TB, name string, base int) {
	keys := make([]string, 0, len(t.bad))
	for k := range t.bad {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(t.bad[keys[i]]) > len(t.bad[keys[j]]) })
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, " %s:%d", k, len(t.bad[k]))
	}
	tb.Logf("%s: %d/%d match; mismatches by mnemonic:%s", name, t.ok, t.total, sb.String())
	if dump := os.Getenv("MXDUMP"); dump != "" {
		for _, k := range keys {
			if dump == "all" || dump == k {
				for i, d := range t.bad[k] {
					if i >= 40 {
						break
					}
					tb.Log(d)
				}
			}
		}
	}
	if t.ok < base {
		tb.Errorf("%s: %d matches, below the baseline %d", name, t.ok, base)
	}
}

func smOf(arch string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(arch, "sm_"))
	return n
}

func parseHex(s string) uint64 {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		panic(err)
	}
	return v
}

// checkText decodes w and compares with nvdisasm's text (or INVALID).
func checkText(w uint64, ctrl Ctrl, sm int, pc uint64, want string) (bool, string) {
	inst, err := Decode(w, ctrl, sm, pc)
	if want == "INVALID" {
		if err != nil {
			return true, ""
		}
		return false, fmt.Sprintf("%#016x: want INVALID, got %s", w, Print(inst, pc))
	}
	if err != nil {
		return false, fmt.Sprintf("%#016x: want %s, got error %v", w, want, err)
	}
	got := Print(inst, pc)
	if collapse(got) == collapse(want) {
		return true, ""
	}
	return false, fmt.Sprintf("%#016x ctrl %#x pc %#x:\n\twant %s\n\tgot  %s", w, uint32(ctrl), pc, want, got)
}

func readTSV(tb testing.TB, path string, fn func(cols []string)) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan() // header
	for sc.Scan() {
		fn(strings.Split(sc.Text(), "\t"))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
}

// TestOracleInsns compares every instruction of the 110 compiled cubins.
func TestOracleInsns(t *testing.T) {
	path := oracle.Path(t, "oracle/maxwell/insns.tsv")
	var tl tally
	readTSV(t, path, func(c []string) {
		// arch kernel offset hex text opt ctrl21 ctrlword
		ok, d := checkText(parseHex(c[3]), Ctrl(parseHex(c[6])), smOf(c[0]), parseHex(c[2]), c[4])
		tl.add(mnemonic(c[4]), ok, d)
	})
	tl.report(t, "insns.tsv", baseInsns)
}

// TestOracleRandom compares the 200,001 random words of the SM52 corpus and
// the rows where SM50 differs.
func TestOracleRandom(t *testing.T) {
	path := oracle.Path(t, "oracle/maxwell/random/rand_SM52_seed1.tsv.gz")
	var tl, messages tally
	readTSV(t, path, func(c []string) {
		// idx addr hex text error
		ok, d := checkText(parseHex(c[2]), NeutralCtrl, 52, parseHex(c[1]), c[3])
		key := mnemonic(c[3])
		if c[3] == "INVALID" {
			key = "INVALID"
			if !ok {
				key = "INVALID/" + mnemonic(strings.SplitN(d, "got ", 2)[1])
			}
		}
		tl.add(key, ok, d)
		if c[3] == "INVALID" {
			messages.add(c[4], errorDetail(parseHex(c[2]), 52, parseHex(c[1])) == c[4], fmt.Sprintf("%#016x: nvdisasm %q", parseHex(c[2]), c[4]))
		}
	})
	tl.report(t, "random SM52", baseRandom)
	// every rejection's message, as nvdisasm words it (54,116 words; the
	// opclass and table names of 2,291)
	messages.report(t, "random SM52 messages", baseMessages)
	var t50 tally
	readTSV(t, oracle.Path(t, "oracle/maxwell/random/rand_SM50_diff.tsv.gz"), func(c []string) {
		ok, d := checkText(parseHex(c[2]), NeutralCtrl, 50, parseHex(c[1]), c[3])
		key := mnemonic(c[3])
		if c[3] == "INVALID" {
			key = "INVALID"
			if !ok {
				key = "INVALID/" + strings.Fields(strings.TrimLeft(strings.SplitN(d, "got ", 2)[1], "@!PT0123456 "))[0]
			}
		}
		t50.add(key, ok, d)
	})
	t50.report(t, "random SM50 diff", baseRand50)
}

// errorDetail is the message of w's decoding error ("" when it decodes).
func errorDetail(w uint64, sm int, pc uint64) string {
	_, err := Decode(w, NeutralCtrl, sm, pc)
	if err == nil {
		return ""
	}
	return err.(*isa.DecodeError).Detail
}
