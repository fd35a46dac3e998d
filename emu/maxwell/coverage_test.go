package maxwell

import (
	"bufio"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// unsupported are the mnemonics of insns.tsv that the emulator rejects on
// purpose: none left (textures, surfaces and linked calls all run).
var unsupported = map[string]bool{}

// TestOracleLoweringCoverage lowers every instruction of the oracle listing
// (insns.tsv): all must lower except the unsupported mnemonics.
func TestOracleLoweringCoverage(t *testing.T) {
	f, err := os.Open(oracle.Path(t, "oracle/maxwell/insns.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	failed := map[string]string{}
	seen := map[string]bool{}
	n := 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 7 || seen[c[0]+c[3]+c[6]] {
			continue
		}
		seen[c[0]+c[3]+c[6]] = true
		sm, _ := strconv.Atoi(strings.TrimPrefix(c[0], "sm_"))
		w, _ := strconv.ParseUint(strings.TrimPrefix(c[3], "0x"), 16, 64)
		ctrl, _ := strconv.ParseUint(strings.TrimPrefix(c[6], "0x"), 16, 32)
		addr, _ := strconv.ParseUint(strings.TrimPrefix(c[2], "0x"), 16, 64)
		inst, err := maxwell.Decode(w, maxwell.Ctrl(ctrl), sm, addr)
		if err != nil {
			t.Fatalf("%s %s: %v", c[0], c[3], err)
		}
		n++
		if _, err := lowerInst(inst, addr); err != nil && !unsupported[inst.Op()] {
			failed[inst.Op()] = err.Error()
		}
	}
	var names []string
	for k := range failed {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Errorf("%s: %s", k, failed[k])
	}
	t.Logf("%d distinct instruction words lowered", n)
}
