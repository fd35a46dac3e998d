package tesla

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"gpuisa/internal/oracle"
)

// oracleRow is one cuobjdump line of shared/oracle/sass-real.
type oracleRow struct {
	file   string
	line   int
	offset uint64
	value  uint64
	short  bool
	text   string
}

func readOracle(t testing.TB, rel string) []oracleRow {
	t.Helper()
	f, err := os.Open(oracle.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var hdr map[string]int
	var rows []oracleRow
	n := 0
	for sc.Scan() {
		n++
		cols := strings.Split(sc.Text(), "\t")
		if hdr == nil {
			hdr = map[string]int{}
			for i, c := range cols {
				hdr[c] = i
			}
			continue
		}
		hc := cols[hdr["hex_canon"]]
		v, err := strconv.ParseUint(strings.TrimPrefix(hc, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("%s:%d: bad hex %q", rel, n, hc)
		}
		r := oracleRow{file: rel, line: n, value: v, short: len(hc) == 10}
		if i, ok := hdr["offset"]; ok && cols[i] != "" {
			r.offset, _ = strconv.ParseUint(cols[i], 16, 64)
		}
		if i, ok := hdr["text"]; ok {
			r.text = cols[i]
		}
		rows = append(rows, r)
	}
	return rows
}

// squash removes all white space, the comparison rule for listings.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
}

func TestOracleListings(t *testing.T) {
	for _, rel := range []string{"oracle/sass-real/sm_10.tsv", "oracle/sass-real/sm_12.tsv"} {
		rows := readOracle(t, rel)
		bad := 0
		for _, r := range rows {
			inst, err := DecodeValue(r.value, r.offset)
			if err != nil {
				bad++
				if bad <= 40 {
					t.Errorf("%s:%d: %#x %q: %v", rel, r.line, r.value, r.text, err)
				}
				continue
			}
			got := Print(inst, r.offset)
			if squash(got) != squash(r.text) {
				bad++
				if bad <= 40 {
					t.Errorf("%s:%d: %#x\n got %s\nwant %s", rel, r.line, r.value, got, r.text)
				}
			}
		}
		t.Logf("%s: %d/%d rows match", rel, len(rows)-bad, len(rows))
	}
}
