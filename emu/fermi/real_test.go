package fermi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// Real kernels are rebuilt from the oracle's listings of real compiled
// code (../shared/oracle/sass-real/sm_20.tsv, cuobjdump output committed to
// public repositories). A recipe (testdata/real/NAME.recipe, made by us)
// names, for each instruction in address order, the listing row holding
// its word by a sha256 prefix of the row's hex_canon, and ends with the
// sha256 of the whole code; no listing content is committed.
//
// The TSV in ../shared holds about 85% of the rows its README counts: some
// instructions of every kernel are not in it. Without them a kernel cannot
// be rebuilt and its test skips, naming how many rows are missing. The
// rows can come from the public listing itself: GPUISA_FERMI_LISTINGS
// names a directory of NAME.hex files, one "offset word" line per
// instruction (word as cuobjdump 3.x/4.0 prints it, word0 then word1),
// which fill the missing rows whose hash matches.

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

func rowHash(hexCanon string) string {
	h := sha256.Sum256([]byte(hexCanon))
	return hex.EncodeToString(h[:])[:12]
}

// realKernel rebuilds a kernel's code from its recipe.
func realKernel(t testing.TB, name string) []byte {
	t.Helper()
	words := listingWords(t)
	data, err := os.ReadFile(filepath.Join("testdata", "real", name+".recipe"))
	if err != nil {
		t.Fatal(err)
	}
	gaps := gapWords(t, name)
	var code []byte
	var sum string
	missing := 0
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if s, ok := strings.CutPrefix(line, "# sha256 of the code: "); ok {
			sum = s
		}
		if line == "" || line[0] == '#' {
			continue
		}
		w, ok := words[line]
		if !ok {
			g, found := gaps[len(code)]
			if !found || rowHash(fmt.Sprintf("0x%016x", g)) != line {
				missing++
				code = binary.LittleEndian.AppendUint64(code, 0)
				continue
			}
			w = g
		}
		code = binary.LittleEndian.AppendUint64(code, w)
	}
	if missing > 0 {
		t.Skipf("%s: %d of its %d instructions are not among the rows of ../shared's sm_20.tsv "+
			"(set GPUISA_FERMI_LISTINGS to a directory of %s.hex from the public listing)", name, missing, len(code)/8, name)
	}
	h := sha256.Sum256(code)
	if got := hex.EncodeToString(h[:]); got != sum {
		t.Fatalf("%s: rebuilt code has sha256 %s, the recipe says %s", name, got, sum)
	}
	return code
}

// gapWords reads GPUISA_FERMI_LISTINGS/NAME.hex, if any: byte offset ->
// word (word1<<32 | word0).
func gapWords(t testing.TB, name string) map[int]uint64 {
	dir := os.Getenv("GPUISA_FERMI_LISTINGS")
	if dir == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, name+".hex"))
	if err != nil {
		return nil
	}
	m := map[int]uint64{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) < 2 || len(f[1]) != 16 {
			continue
		}
		off, err1 := strconv.ParseUint(f[0], 16, 32)
		v, err2 := strconv.ParseUint(f[1], 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		m[int(off)] = v>>32 | v<<32 // word0 first as printed: swap the halves
	}
	return m
}
