package fermi

import (
	"bufio"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// TestKeplerCrossCheck prints the Kepler sm_30 rows of the oracle, mostly
// CUDA 5+ (cuobjdump-new) ones, in their dialect. No sm_2x listing of that
// era exists, but
// GK104 kept Fermi's encoding for most instructions, so these rows are the
// best evidence for how new cuobjdump spells Fermi words; every row of this
// listing set prints identically.
func TestKeplerCrossCheck(t *testing.T) {
	path := oracle.Path(t, "oracle/sass-real/sm_30.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	same, rows := 0, 0
	miss := map[string]int{}
	example := map[string]string{}
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 8 {
			continue
		}
		d := New
		if c[7] == "cuobjdump-old" {
			d = Old
		}
		addr, err1 := strconv.ParseUint(c[3], 16, 64)
		raw, err2 := strconv.ParseUint(strings.TrimPrefix(c[6], "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		rows++
		key := mnemonic(c[5])
		got := "(does not decode as Fermi)"
		if inst, err := DecodeWord(raw); err == nil {
			got = string(AppendTextDialect(nil, inst, addr, d))
			if squeeze(got) == squeeze(c[5]) {
				same++
				continue
			}
		}
		if _, ok := example[key]; !ok {
			example[key] = c[6] + ": " + got + " vs " + c[5]
		}
		miss[key]++
	}
	t.Logf("Kepler sm_30 rows printed identically: %d/%d", same, rows)
	keys := make([]string, 0, len(miss))
	for k := range miss {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return miss[keys[i]] > miss[keys[j]] })
	for _, k := range keys {
		t.Logf("%5d %s: %s", miss[k], k, example[k])
	}
	if same != rows {
		t.Errorf("%d of %d rows differ", rows-same, rows)
	}
}
