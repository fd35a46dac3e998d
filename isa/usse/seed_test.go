package usse

import (
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

var seedGroup = regexp.MustCompile(`^0x([0-9A-F]{8}) - 0x[0-9A-F]{8}$`)

// TestSeedExamples checks the mnemonics of seed 000 against what we print:
// every "Examples:" mnemonic of a group should be the mnemonic of some word
// of that group (40k random words per group).
func TestSeedExamples(t *testing.T) {
	matches, _ := os.ReadDir(oracle.Path(t, "seeds"))
	var path string
	for _, m := range matches {
		if strings.HasPrefix(m.Name(), "000_") {
			path = oracle.Path(t, "seeds/"+m.Name())
		}
	}
	if path == "" {
		t.Skip("seed 000 not present")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64][]string{}
	op := uint64(0)
	inExamples := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if m := seedGroup.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseUint(m[1], 16, 32)
			op, inExamples = v>>27, false
			continue
		}
		if line == "Examples:" {
			inExamples = true
			continue
		}
		if inExamples {
			if line == "" || strings.ContainsAny(line, " |:") {
				inExamples = false
				continue
			}
			want[op] = append(want[op], line)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	total, found := 0, 0
	var missing []string
	for op := uint64(0); op < 32; op++ {
		if len(want[op]) == 0 {
			continue
		}
		have := map[string]bool{}
		for i := 0; i < 40000; i++ {
			in, err := DecodeWord(op<<59|r.Uint64()>>5, 0)
			if err == nil {
				have[string(appendMnemonic(nil, &in))] = true
			}
		}
		for _, w := range want[op] {
			total++
			if have[w] {
				found++
			} else {
				missing = append(missing, "0x"+strconv.FormatUint(op, 16)+":"+w)
			}
		}
	}
	sort.Strings(missing)
	t.Logf("seed 000 examples: %d/%d mnemonics produced; missing: %s", found, total, strings.Join(missing, " "))
	if total != 296 || found < 296 {
		t.Errorf("seed examples: %d/%d produced, want 296/296", found, total)
	}
}
