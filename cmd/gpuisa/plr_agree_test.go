package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// plrFlagSets are the life-range flag sets compared with nvdisasm.
var plrFlagSets = []string{"-plr", "-plr -hex", "-plr -novliw", "-lrm count", "-lrm wide", "-lrm narrow", "-lrm count -hex"}

// plrAgreeFloor is, per flag set, how many of the oracle's cubins and the
// -lineinfo/-G builds (142) gpuisa listed exactly as nvdisasm when last
// measured: the agreement must not drop below it.
var plrAgreeFloor = map[string]int{"-plr": 114, "-plr -hex": 113, "-plr -novliw": 115, "-lrm count": 114, "-lrm wide": 114, "-lrm narrow": 111, "-lrm count -hex": 113}

// liveNvdisasm is NVIDIA's nvdisasm ($NVDISASM, CUDA 11.8's install, $PATH)
// or "" when there is none.
func liveNvdisasm() string {
	for _, p := range []string{os.Getenv("NVDISASM"), "/opt/cuda118/usr/bin/nvdisasm"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	p, _ := exec.LookPath("nvdisasm")
	return p
}

// TestLifeRangesAgreement lists every oracle cubin, the -lineinfo/-G builds
// and the liveness corpus (isa/maxwell/testdata/liveness) with each
// life-range flag set, with gpuisa and with the live nvdisasm, and reports
// how many are identical (N/M per flag set). It needs nvdisasm and the
// oracle; it is skipped with -short.
func TestLifeRangesAgreement(t *testing.T) {
	nv := liveNvdisasm()
	if nv == "" {
		t.Skip("nvdisasm not installed")
	}
	if testing.Short() {
		t.Skip("runs nvdisasm on about 160 cubins per flag set")
	}
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	oracleCubins, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	lineinfo, _ := filepath.Glob(filepath.Join(lineinfoDir, "cubin", "*.cubin"))
	corpus, _ := filepath.Glob("../../isa/maxwell/testdata/liveness/cubin/*.cubin")
	base := append(oracleCubins, lineinfo...)
	sets := plrFlagSets
	if run := flag.Lookup("test.run"); run == nil || !strings.Contains(run.Value.String(), "LifeRanges") {
		// in the whole suite only -plr: the six sets take over ten
		// minutes on a busy machine (-run TestLifeRangesAgreement: all)
		sets = sets[:1]
	}
	for _, flags := range sets {
		same := func(files []string) int {
			n := 0
			var mu sync.Mutex
			var wg sync.WaitGroup
			sem := make(chan struct{}, 2)
			for _, f := range files {
				wg.Add(1)
				sem <- struct{}{}
				go func(f string) {
					defer wg.Done()
					defer func() { <-sem }()
					args := append(strings.Fields(flags), f)
					want, err := exec.Command(nv, args...).Output()
					if err != nil {
						t.Errorf("nvdisasm %s %s: %v", flags, f, err)
						return
					}
					var got, errb bytes.Buffer
					code := run(append([]string{"nvdisasm"}, args...), strings.NewReader(""), &got, &errb)
					if code == 0 && bytes.Equal(got.Bytes(), want) {
						mu.Lock()
						n++
						mu.Unlock()
					}
				}(f)
			}
			wg.Wait()
			return n
		}
		b, c := same(base), same(corpus)
		t.Logf("nvdisasm %-13s oracle+lineinfo %d/%d, liveness corpus %d/%d", flags, b, len(base), c, len(corpus))
		if len(base) == 142 && b < plrAgreeFloor[flags] {
			t.Errorf("%s: %d/%d identical, was %d", flags, b, len(base), plrAgreeFloor[flags])
		}
	}
}
