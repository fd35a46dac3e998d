package fermi

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// Real kernels are rebuilt from the oracle's listings of real compiled
// code (../shared/oracle/sass-real/sm_20.tsv, cuobjdump output committed to
// public repositories). testdata/real/survey.txt (made by us) names, for
// each function of a public listing we examined, the row of the TSV
// holding each instruction's word by a sha256 prefix of the row's
// hex_canon, in address order, and the sha256 of the whole code; no
// listing content is committed. See docs/fermi-launch.md for what the
// survey found.
//
// The TSV in ../shared holds 94,290 of the 110,663 rows its README counts;
// a word is found when any row has its hex_canon. A function with a word
// in no row cannot be rebuilt from the TSV alone, and its test skips,
// naming how many words are missing, unless GPUISA_FERMI_LISTINGS names a
// directory of listings holding the function (listing_test.go).

var (
	tsvOnce  sync.Once
	tsvWords map[string]uint64 // sha256 prefix of hex_canon -> the word
	tsvErr   error
)

// listingWords indexes the oracle's sm_20 rows by the hash of their word.
func listingWords(t testing.TB) map[string]uint64 {
	t.Helper()
	path := oracle.Path(t, "oracle/sass-real/sm_20.tsv")
	tsvOnce.Do(func() {
		f, err := os.Open(path)
		if err != nil {
			tsvErr = err
			return
		}
		defer f.Close()
		tsvWords = map[string]uint64{}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for first := true; sc.Scan(); first = false {
			if first {
				continue
			}
			cols := strings.Split(sc.Text(), "\t")
			if len(cols) < 7 || len(cols[6]) != 18 {
				continue
			}
			w, err := strconv.ParseUint(cols[6][2:], 16, 64)
			if err != nil {
				continue
			}
			tsvWords[rowHash(cols[6])] = w
		}
		tsvErr = sc.Err()
	})
	if tsvErr != nil {
		t.Fatal(tsvErr)
	}
	return tsvWords
}

// rowHash is the name of a word in the survey: the first 12 hex digits of
// the sha256 of its hex_canon ("0x" and 16 lower-case digits).
func rowHash(hexCanon string) string {
	h := sha256.Sum256([]byte(hexCanon))
	return hex.EncodeToString(h[:])[:12]
}

func wordHash(w uint64) string { return rowHash(fmt.Sprintf("0x%016x", w)) }

// surveyKernel is one function of the survey.
type surveyKernel struct {
	key          string // unique name: the function's, or function@blob
	function     string
	category     string
	source       string // repo:path
	blob, commit string
	instructions int      // of the whole function
	missing      int      // distinct words of hashes in no row of the TSV
	code         string   // sha256 of the whole code; "" when only a prefix is listed
	hashes       []string // of the listed instructions (all, or a prefix)
}

func (k *surveyKernel) whole() bool { return len(k.hashes) == k.instructions }

const surveyPath = "testdata/real/survey.txt"

var (
	surveyOnce sync.Once
	survey     []surveyKernel
	surveyErr  error
)

// loadSurvey reads testdata/real/survey.txt.
func loadSurvey(t testing.TB) []surveyKernel {
	t.Helper()
	surveyOnce.Do(func() {
		data, err := os.ReadFile(surveyPath)
		if err != nil {
			surveyErr = err
			return
		}
		survey, surveyErr = parseSurvey(string(data))
	})
	if surveyErr != nil {
		t.Fatal(surveyErr)
	}
	return survey
}

// parseSurvey reads the survey's "kernel key=value..." lines, each followed
// by its hashes.
func parseSurvey(text string) ([]surveyKernel, error) {
	var ks []surveyKernel
	keys := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "kernel "); ok {
			var k surveyKernel
			for _, f := range strings.Fields(rest) {
				name, v, ok := strings.Cut(f, "=")
				if !ok {
					return nil, fmt.Errorf("%s:%d: %q is not name=value", surveyPath, n+1, f)
				}
				var err error
				switch name {
				case "key":
					k.key = v
				case "function":
					k.function = v
				case "category":
					k.category = v
				case "source":
					k.source = v
				case "blob":
					k.blob = v
				case "commit":
					k.commit = v
				case "instructions":
					k.instructions, err = strconv.Atoi(v)
				case "missing":
					k.missing, err = strconv.Atoi(v)
				case "code":
					if v != "-" {
						k.code = v
					}
				default:
					err = fmt.Errorf("unknown field")
				}
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %s: %v", surveyPath, n+1, f, err)
				}
			}
			if k.key == "" || keys[k.key] {
				return nil, fmt.Errorf("%s:%d: missing or repeated key %q", surveyPath, n+1, k.key)
			}
			keys[k.key] = true
			ks = append(ks, k)
			continue
		}
		if len(ks) == 0 || len(line) != 12 {
			return nil, fmt.Errorf("%s:%d: %q is neither a kernel line nor a hash", surveyPath, n+1, line)
		}
		ks[len(ks)-1].hashes = append(ks[len(ks)-1].hashes, line)
	}
	for _, k := range ks {
		if len(k.hashes) == 0 || len(k.hashes) > k.instructions || (k.code != "") != k.whole() {
			return nil, fmt.Errorf("%s: kernel %s: %d hashes of %d instructions, code %q", surveyPath, k.key,
				len(k.hashes), k.instructions, k.code)
		}
	}
	return ks, nil
}

func surveyKernelOf(t testing.TB, key string) *surveyKernel {
	t.Helper()
	ks := loadSurvey(t)
	for i := range ks {
		if ks[i].key == key {
			return &ks[i]
		}
	}
	t.Fatalf("kernel %s is not in %s", key, surveyPath)
	return nil
}

// realKernel rebuilds a kernel's code from the survey: each word from the
// TSV, or from the developer's listings (GPUISA_FERMI_LISTINGS) when no
// row holds it; the test skips when neither has every word.
func realKernel(t testing.TB, key string) []byte {
	t.Helper()
	code, gaps := rebuildKernel(t, key)
	if gaps > 0 {
		k := surveyKernelOf(t, key)
		t.Skipf("%s: %d of its %d instructions (%d distinct words) are in no row of ../shared's sm_20.tsv; "+
			"GPUISA_FERMI_LISTINGS can name a directory holding the public listing (%s)",
			k.key, gaps, len(k.hashes), k.missing, k.source)
	}
	return code
}

// rebuildKernel is realKernel's work: the code, or the number of
// instructions whose words were found nowhere.
func rebuildKernel(t testing.TB, key string) ([]byte, int) {
	t.Helper()
	k := surveyKernelOf(t, key)
	if !k.whole() {
		t.Fatalf("kernel %s: the survey lists only %d of its %d instructions", key, len(k.hashes), k.instructions)
	}
	words := listingWords(t)
	code := make([]byte, 0, 8*len(k.hashes))
	var gaps []int
	for i, h := range k.hashes {
		w, ok := words[h]
		if !ok {
			gaps = append(gaps, i)
		}
		code = binary.LittleEndian.AppendUint64(code, w)
	}
	if len(gaps) > 0 && !fillGaps(t, k, code, gaps) {
		return nil, len(gaps)
	}
	sum := sha256.Sum256(code)
	if got := hex.EncodeToString(sum[:]); got != k.code {
		t.Fatalf("%s: rebuilt code has sha256 %s, the survey says %s", key, got, k.code)
	}
	return code, 0
}

// fillGaps takes the missing words from a developer's listing of the same
// function (matched by name, length and every hash).
func fillGaps(t testing.TB, k *surveyKernel, code []byte, gaps []int) bool {
	t.Helper()
	for _, f := range devListings(t) {
		if f.name != k.function || f.partial || len(f.words) != len(k.hashes) {
			continue
		}
		match := true
		for i, h := range k.hashes {
			if wordHash(f.words[i]) != h {
				match = false
				break
			}
		}
		if match {
			for _, i := range gaps {
				binary.LittleEndian.PutUint64(code[8*i:], f.words[i])
			}
			return true
		}
	}
	return false
}

// TestRealSurvey checks the survey against the TSV: each function's count
// of words in no row, and that the functions whose every word is there
// rebuild to the code the survey names. It logs the figures by category
// that docs/fermi-launch.md quotes.
func TestRealSurvey(t *testing.T) {
	words := listingWords(t)
	ks := loadSurvey(t)
	type tally struct {
		functions, whole, complete int
		closest                    string
		closestMissing             int
	}
	cats := map[string]*tally{}
	for i := range ks {
		k := &ks[i]
		seen := map[string]bool{}
		missing := 0
		for _, h := range k.hashes {
			if _, ok := words[h]; !ok && !seen[h] {
				missing++
			}
			seen[h] = true
		}
		if missing != k.missing {
			t.Errorf("%s: %d distinct words in no row of the TSV, the survey says %d", k.key, missing, k.missing)
		}
		c := cats[k.category]
		if c == nil {
			c = &tally{closestMissing: -1}
			cats[k.category] = c
		}
		c.functions++
		if k.whole() {
			c.whole++
			if missing == 0 {
				c.complete++
				realKernel(t, k.key)
			}
			if c.closestMissing < 0 || missing < c.closestMissing {
				c.closest, c.closestMissing = k.key, missing
			}
		}
	}
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "| category | functions | whole | complete | fewest missing (whole functions) |\n")
	for _, n := range names {
		c := cats[n]
		closest := "-"
		if c.closestMissing >= 0 {
			closest = fmt.Sprintf("%s (%d)", c.closest, c.closestMissing)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", n, c.functions, c.whole, c.complete, closest)
	}
	t.Logf("survey of %d functions:\n%s", len(ks), b.String())
}

// TestWriteSurvey (development only) writes testdata/real/survey.txt from
// the listings of GPUISA_FERMI_LISTINGS when GPUISA_FERMI_SURVEY=write,
// keeping the entries of functions not in those listings.
func TestWriteSurvey(t *testing.T) {
	if os.Getenv("GPUISA_FERMI_SURVEY") != "write" {
		t.Skip("set GPUISA_FERMI_SURVEY=write and GPUISA_FERMI_LISTINGS to rewrite the survey")
	}
	fs := devListings(t)
	if len(fs) == 0 {
		t.Fatal("GPUISA_FERMI_LISTINGS names no listings")
	}
	words := listingWords(t)
	ks := append([]surveyKernel(nil), loadSurvey(t)...)
	taken := map[string]bool{}
	for _, k := range ks {
		taken[k.key] = true
	}
	for _, f := range fs {
		k := surveyKernel{function: f.name, instructions: f.total}
		if f.total == 0 {
			k.instructions = len(f.words) + 1 // unknown length: at least one more
		}
		k.source, k.blob, k.commit = parseSource(f.source)
		k.category = categoryOf(k.source, f.name)
		seen := map[string]bool{}
		for _, w := range f.words {
			h := wordHash(w)
			k.hashes = append(k.hashes, h)
			if _, ok := words[h]; !ok && !seen[h] {
				k.missing++
			}
			seen[h] = true
		}
		if !f.partial {
			code := make([]byte, 0, 8*len(f.words))
			for _, w := range f.words {
				code = binary.LittleEndian.AppendUint64(code, w)
			}
			sum := sha256.Sum256(code)
			k.code = hex.EncodeToString(sum[:])
		}
		// the same function already surveyed (same name and words, or a
		// prefix of them read before): update it
		found := false
		for i := range ks {
			old := strings.Join(ks[i].hashes, "")
			same := old == strings.Join(k.hashes, "")
			grown := !ks[i].whole() && ks[i].blob == k.blob && len(ks[i].hashes) <= len(k.hashes) &&
				old == strings.Join(k.hashes[:len(ks[i].hashes)], "")
			if ks[i].function == k.function && (same || grown) {
				k.key = ks[i].key
				ks[i] = k
				found = true
				break
			}
		}
		if found {
			continue
		}
		k.key = f.name
		if taken[k.key] {
			k.key = f.name + "@" + k.blob
		}
		for n := 2; taken[k.key]; n++ {
			k.key = fmt.Sprintf("%s@%s.%d", f.name, k.blob, n)
		}
		taken[k.key] = true
		ks = append(ks, k)
	}
	sort.SliceStable(ks, func(i, j int) bool {
		if ks[i].source != ks[j].source {
			return ks[i].source < ks[j].source
		}
		return ks[i].blob < ks[j].blob
	})
	var b strings.Builder
	b.WriteString(surveyHeader)
	for _, k := range ks {
		code := k.code
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(&b, "\nkernel key=%s function=%s category=%s source=%s blob=%s commit=%s instructions=%d missing=%d code=%s\n",
			k.key, k.function, k.category, k.source, k.blob, k.commit, k.instructions, k.missing, code)
		for _, h := range k.hashes {
			b.WriteString(h + "\n")
		}
	}
	if err := os.WriteFile(surveyPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d functions to %s", len(ks), surveyPath)
}

const surveyHeader = `# Code generated by TestWriteSurvey (GPUISA_FERMI_SURVEY=write); DO NOT EDIT.
#
# Functions of public sm_20 listings (cuobjdump output committed to GitHub
# repositories; source = repository:path, blob = the first 10 digits of the
# file's git blob as ../shared/oracle/sass-real/MANIFEST.tsv names it,
# commit = a commit holding it). After each "kernel" line, one line per
# instruction in address order: the first 12 hex digits of the sha256 of
# the instruction's hex_canon as the oracle's sm_20.tsv spells it
# ("0x" and 16 lower-case digits, word1 then word0). instructions = the
# function's length; when fewer hashes follow, only a prefix of the
# function was read (its length unknown when instructions is one more than
# the hashes). missing = distinct words in no row of ../shared's TSV.
# code = sha256 of the whole code (8-byte little-endian words), "-" for
# prefixes. The listings' text is not copied here.
`

// parseSource splits a listing's "# source" line: repository, path, blob,
// commit.
func parseSource(s string) (source, blob, commit string) {
	f := strings.Fields(s)
	source, blob, commit = "-", "-", "-"
	if len(f) >= 2 && strings.Contains(f[0], "/") {
		source = f[0] + ":" + f[1]
	}
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "blob":
			blob = f[i+1]
		case "commit":
			commit = f[i+1]
		}
	}
	return source, blob, commit
}

// categoryOf sorts a function by what its algorithm is.
func categoryOf(source, name string) string {
	path := source
	if _, p, ok := strings.Cut(source, ":"); ok {
		path = p
	}
	switch {
	case strings.HasPrefix(name, "GlobalScanUpsweep"), strings.HasPrefix(name, "FindMaxIndex"):
		return "reduction"
	case strings.HasPrefix(name, "HistogramReduce"), strings.HasPrefix(name, "SortHist"),
		strings.HasPrefix(name, "Count"), strings.Contains(path, "/hist"), strings.Contains(path, "/count"):
		return "histogram"
	case strings.HasPrefix(path, "sort/"):
		return "sort"
	case strings.HasPrefix(path, "scan/"), strings.HasPrefix(path, "support/"), strings.HasPrefix(path, "snippets/"):
		return "scan"
	case strings.HasPrefix(path, "search/"):
		return "search"
	case strings.HasPrefix(path, "sparse"):
		return "spmv"
	case strings.HasPrefix(path, "merge/"):
		return "merge"
	case strings.HasPrefix(path, "select/"):
		return "select"
	case strings.HasPrefix(path, "bwt/"):
		return "bwt"
	case strings.HasPrefix(source, "hyqneuron/asfermi"):
		return "timing"
	}
	return "other"
}

func TestParseSurvey(t *testing.T) {
	ks, err := parseSurvey("# c\nkernel key=a function=f category=scan source=r:p blob=b commit=c instructions=2 missing=1 code=-\n" +
		"0123456789ab\n")
	if err != nil || len(ks) != 1 || ks[0].whole() || ks[0].hashes[0] != "0123456789ab" || ks[0].missing != 1 {
		t.Fatalf("%+v %v", ks, err)
	}
	for _, bad := range []string{
		"0123456789ab\n",
		"kernel key=a instructions=1 code=-\n0123456789ab\n",      // whole, no code
		"kernel key=a instructions=1 code=x\n",                    // no hashes
		"kernel key=a instructions=1 code=x\n0123456789ab\nabc\n", // bad hash
		"kernel key=a instructions=x code=-\n0123456789ab\n",      // bad number
		"kernel key=a instructions=2 code=-\n0123456789ab\nkernel key=a instructions=2 code=-\n0123456789ab\n",
	} {
		if _, err := parseSurvey(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
