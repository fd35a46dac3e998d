package fermi

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// Public sm_20 listings are read only while developing (never committed):
// GPUISA_FERMI_LISTINGS names a directory of them. Two forms are read:
//
//   - cuobjdump's text (the .isa files of mgpu_old, asfermi's .res files):
//     "Function : NAME" opens a function, and each instruction line carries
//     "/*OFFSET*/" and its word, printed "/*0x<word0><word1>*/" before the
//     text by CUDA 3.x/4.0 or "/* 0x<word1><word0> */" after it by later
//     versions;
//   - a compact transcription: "F NAME LAST [partial]" opens a function
//     (LAST its last instruction's offset in hex, "?" when unknown;
//     "partial" when only a prefix of its instructions follows), then one
//     word per line as CUDA 3.x/4.0 prints it (word0 then word1).
//
// A comment line "# source REPO PATH blob BLOB commit COMMIT" names where
// the listing came from.

// listedFunc is a function of a listing: its canonical words
// (word1<<32 | word0) in address order.
type listedFunc struct {
	name    string
	words   []uint64
	total   int  // instructions of the whole function (0: unknown)
	partial bool // words holds a prefix
	source  string
}

var (
	reFunction = regexp.MustCompile(`Function : (\S+)`)
	reOldWord  = regexp.MustCompile(`/\*([0-9a-f]{4,})\*/\s+/\*0x([0-9a-f]{16})\*/`)
	reNewWord  = regexp.MustCompile(`/\*([0-9a-f]{4,})\*/.*/\* 0x([0-9a-f]{16}) \*/`)
	reCompact  = regexp.MustCompile(`^F (\S+) (\S+)( partial)?$`)
	reHexLine  = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// parseListing reads the functions of one listing file.
func parseListing(text string) ([]listedFunc, error) {
	var fs []listedFunc
	source := ""
	cur := -1
	fermi := true // under a "code for sm_2x" header, or no header
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if s, ok := strings.CutPrefix(line, "# source "); ok {
			source = s
			continue
		}
		if m := reCompact.FindStringSubmatch(line); m != nil {
			f := listedFunc{name: m[1], partial: m[3] != "", source: source}
			if m[2] != "?" {
				last, err := strconv.ParseUint(m[2], 16, 32)
				if err != nil {
					return nil, fmt.Errorf("line %d: bad offset %q", n+1, m[2])
				}
				f.total = int(last/8) + 1
			}
			fs = append(fs, f)
			cur = len(fs) - 1
			continue
		}
		if a, ok := strings.CutPrefix(line, "code for "); ok {
			fermi = a == "sm_20" || a == "sm_21"
			cur = -1
			continue
		}
		if m := reFunction.FindStringSubmatch(line); m != nil {
			if !fermi {
				cur = -1
				continue
			}
			fs = append(fs, listedFunc{name: m[1], source: source})
			cur = len(fs) - 1
			continue
		}
		if cur < 0 {
			continue
		}
		f := &fs[cur]
		switch {
		case reHexLine.MatchString(line):
			v, _ := strconv.ParseUint(line, 16, 64)
			f.words = append(f.words, v<<32|v>>32)
		case reOldWord.MatchString(line):
			m := reOldWord.FindStringSubmatch(line)
			off, _ := strconv.ParseUint(m[1], 16, 32)
			if int(off) != 8*len(f.words) {
				return nil, fmt.Errorf("line %d: offset %#x, want %#x (8-byte instructions in order)", n+1, off, 8*len(f.words))
			}
			v, _ := strconv.ParseUint(m[2], 16, 64)
			f.words = append(f.words, v<<32|v>>32)
		case reNewWord.MatchString(line):
			m := reNewWord.FindStringSubmatch(line)
			v, _ := strconv.ParseUint(m[2], 16, 64)
			f.words = append(f.words, v)
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.total == 0 && !f.partial {
			f.total = len(f.words)
		}
		if !f.partial && f.total != len(f.words) {
			return nil, fmt.Errorf("function %s: %d words, its last offset says %d", f.name, len(f.words), f.total)
		}
	}
	return fs, nil
}

var (
	listingsOnce sync.Once
	listingsFns  []listedFunc
	listingsErr  error
)

// sharedListings is where ../shared keeps the transcriptions of public
// sm_20 listings (data fetched from public repositories stays there).
const sharedListings = "oracle/sass-real/sm_20-listings"

// devListings reads every listing of GPUISA_FERMI_LISTINGS, else of
// ../shared's sm_20-listings (none without either).
func devListings(t testing.TB) []listedFunc {
	t.Helper()
	dir := os.Getenv("GPUISA_FERMI_LISTINGS")
	if dir == "" {
		if shared := oracle.SharedDir(); shared != "" {
			dir = filepath.Join(shared, sharedListings)
		}
	}
	if st, err := os.Stat(dir); dir == "" || err != nil || !st.IsDir() {
		return nil
	}
	listingsOnce.Do(func() {
		names, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil {
			listingsErr = err
			return
		}
		for _, name := range names {
			if st, err := os.Stat(name); err != nil || st.IsDir() {
				continue
			}
			data, err := os.ReadFile(name)
			if err != nil {
				listingsErr = err
				return
			}
			fs, err := parseListing(string(data))
			if err != nil {
				listingsErr = fmt.Errorf("%s: %v", name, err)
				return
			}
			for i := range fs {
				if fs[i].source == "" {
					fs[i].source = filepath.Base(name)
				}
			}
			listingsFns = append(listingsFns, fs...)
		}
	})
	if listingsErr != nil {
		t.Fatal(listingsErr)
	}
	return listingsFns
}

func TestParseListing(t *testing.T) {
	text := "# source someone/repo a.isa blob 0123456789 commit x\n" +
		"\tcode for sm_20\n\t\tFunction : k\n" +
		"\t/*0000*/     /*0x00005de428004404*/ \tMOV R1, c [0x1] [0x100];\n" +
		"\t/*0008*/     /*0x00001de780000000*/ \tEXIT;\n\t\t......\n" +
		"\t\tFunction : n\n" +
		"        /*0000*/                   MOV R1, c[0x1][0x100];   /* 0x2800440400005de4 */\n" +
		"F c 0008\n00005de428004404\n00001de780000000\n" +
		"F p ? partial\n00005de428004404\n" +
		"\tcode for sm_10\n\t\tFunction : t\n\t/*0000*/     /*0x100042050023c780*/ \tMOV.U16 R0H, g [0x1].U16;\n"
	fs, err := parseListing(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []listedFunc{
		{name: "k", words: []uint64{0x2800440400005de4, 0x8000000000001de7}, total: 2},
		{name: "n", words: []uint64{0x2800440400005de4}, total: 1},
		{name: "c", words: []uint64{0x2800440400005de4, 0x8000000000001de7}, total: 2},
		{name: "p", words: []uint64{0x2800440400005de4}, partial: true},
	}
	if len(fs) != len(want) {
		t.Fatalf("%d functions, want %d", len(fs), len(want))
	}
	for i, f := range fs {
		w := want[i]
		if f.name != w.name || f.total != w.total || f.partial != w.partial || fmt.Sprint(f.words) != fmt.Sprint(w.words) ||
			f.source != "someone/repo a.isa blob 0123456789 commit x" {
			t.Errorf("function %d: %+v, want %+v", i, f, w)
		}
	}
	if _, err := parseListing("\t\tFunction : k\n\t/*0008*/     /*0x00005de428004404*/ \tMOV R1, c [0x1] [0x100];\n"); err == nil {
		t.Error("an instruction out of place is accepted")
	}
	if _, err := parseListing("F k 0010\n00005de428004404\n"); err == nil {
		t.Error("a function shorter than its last offset is accepted")
	}
}
