package maxwell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// The sanitizer on kernels with bugs (testdata/corpus/bugs.cu, every
// build): each bug is reported, where it is and what it conflicts with;
// the corpus's correct kernels run with the checks too (corpus_test.go)
// and must give no report.

const allChecks = emu.CheckMemory | emu.CheckRace | emu.CheckInit

// bugDevice is a device running bugs.cu's build with every check, keeping
// the reports.
func bugDevice(t *testing.T, b corpusBuild) *device {
	prog, err := os.ReadFile(filepath.Join("testdata", "corpus", "bugs."+b.arch+"."+b.opt+".cubin"))
	if err != nil {
		t.Fatal(err)
	}
	d := newDevice(t, prog, b.arch)
	d.check, d.keepFindings = allChecks, true
	return d
}

// wantFinding fails unless a report of the check has every fragment.
func wantFinding(t *testing.T, d *device, check string, fragments ...string) {
	t.Helper()
	var all []string
	for _, f := range d.findings {
		s := f.String()
		all = append(all, s)
		if f.Check != check {
			continue
		}
		ok := true
		for _, w := range fragments {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return
		}
	}
	t.Errorf("no %s report with %q among:\n%s", check, fragments, strings.Join(all, "\n"))
}

func noFindings(t *testing.T, d *device) {
	t.Helper()
	for _, f := range d.findings {
		t.Errorf("unexpected report: %v", f)
	}
}

func forBugs(t *testing.T, f func(t *testing.T, b corpusBuild)) {
	for _, b := range corpusBuilds {
		t.Run(b.arch+"."+b.opt, func(t *testing.T) { f(t, b) })
	}
}

// TestSanitizeRaceRows: out[threadIdx.x] in 32x8 blocks: warps overwrite
// each other; the schedule decides who wins (default: the last warp,
// reverse: the first), and with -check nothing changes.
func TestSanitizeRaceRows(t *testing.T) {
	forBugs(t, func(t *testing.T, b corpusBuild) {
		for _, c := range []struct {
			schedule emu.Schedule
			winner   int32
		}{{emu.Schedule{}, 7}, {emu.Schedule{Reverse: true}, 0}, {emu.Schedule{Interleave: true}, 7},
			{emu.Schedule{Interleave: true, Reverse: true}, 0}} {
			d := bugDevice(t, b)
			d.schedule = c.schedule
			d.alloc("out", make([]byte, 4*32))
			d.launch("race_rows", dim(1, 1), dim(32, 8), 0, buf("out"))
			wantFinding(t, d, "race", "global write of 4 bytes", "overwrites what warp", "with no barrier between them")
			if got := i32s(d.get("out")); got[5] != c.winner {
				t.Errorf("schedule %+v: out[5] = %d, want %d (the last writer)", c.schedule, got[5], c.winner)
			}
		}
	})
}

// TestSanitizeRaceShared: a missing __syncthreads; the interleaved
// schedule shows the result the programmer meant, the default one reads
// zeros; with the barrier, no report and one result.
func TestSanitizeRaceShared(t *testing.T) {
	forBugs(t, func(t *testing.T, b corpusBuild) {
		in := make([]int32, 64)
		for i := range in {
			in[i] = int32(100 + i)
		}
		run := func(kernel string, s emu.Schedule) (*device, []int32) {
			d := bugDevice(t, b)
			d.schedule = s
			d.alloc("in", fromI32(in))
			d.alloc("out", make([]byte, 4*64))
			d.launch(kernel, dim(1, 1), dim(64, 1), 0, buf("in"), buf("out"))
			return d, i32s(d.get("out"))
		}
		d, got := run("race_shared", emu.Schedule{})
		wantFinding(t, d, "race", "shared", "reads what warp", "with no barrier between them")
		if got[0] != 0 {
			t.Errorf("default schedule: out[0] = %d, want 0 (warp 0 reads before warp 1 writes)", got[0])
		}
		if _, got = run("race_shared", emu.Schedule{Interleave: true}); got[0] != 132 {
			t.Errorf("interleaved: out[0] = %d, want 132", got[0])
		}
		for _, s := range []emu.Schedule{{}, {Interleave: true}, {Reverse: true}} {
			d, got := run("synced_shared", s)
			noFindings(t, d)
			if got[0] != 132 || got[40] != 108 {
				t.Errorf("synced, schedule %+v: out[0], out[40] = %d, %d", s, got[0], got[40])
			}
		}
	})
}

func TestSanitizeRaceBlocks(t *testing.T) {
	forBugs(t, func(t *testing.T, b corpusBuild) {
		d := bugDevice(t, b)
		d.alloc("out", make([]byte, 4))
		d.launch("race_blocks", dim(4, 1), dim(32, 1), 0, buf("out"))
		wantFinding(t, d, "race", "block (1,0,0)", "overwrites what warp 0 of block (0,0,0) wrote")
	})
}

func TestSanitizeOutOfBounds(t *testing.T) {
	forBugs(t, func(t *testing.T, b corpusBuild) {
		d := bugDevice(t, b)
		const n = 100
		d.alloc("in", make([]byte, 4*n))
		d.alloc("out", make([]byte, 4*(n+1)))
		d.launch("oob_read", dim(4, 1), dim(32, 1), 0, buf("in"), buf("out"), int32(n))
		wantFinding(t, d, "memory", "global read of 4 bytes", "thread (4,0,0)", `0 bytes after the end of buffer "in"`)
		d = bugDevice(t, b)
		d.alloc("out", make([]byte, 4*32))
		// (the write faults until shared memory is allocated in the
		// hardware's granules: the report comes first)
		_ = d.tryLaunch("oob_shared", dim(1, 1), dim(32, 1), 0, buf("out"))
		wantFinding(t, d, "memory", "shared write of 4 bytes at 0x80", "thread (31,0,0)", "past the end of the block's 128 bytes of shared memory")
	})
}

func TestSanitizeUninitialized(t *testing.T) {
	forBugs(t, func(t *testing.T, b corpusBuild) {
		d := bugDevice(t, b)
		d.alloc("out", make([]byte, 4*32))
		d.launch("uninit_shared", dim(1, 1), dim(32, 1), 0, buf("out"))
		wantFinding(t, d, "init", "shared read of 4 bytes at 0x4", "never written")
		d = bugDevice(t, b)
		in := fromI32([]int32{1, 2, 3, 4, 5, 6, 7, 8, 5})
		d.alloc("in", in)
		d.alloc("out", make([]byte, 4*32))
		d.launch("uninit_local", dim(1, 1), dim(32, 1), 0, buf("in"), buf("out"))
		if b.opt == "G" { // the optimised builds keep the array in registers
			wantFinding(t, d, "init", "local read", "the thread's local memory was never written")
		}
	})
}

// TestParallelWarpsRacy: with a block's warps in parallel rounds, racy
// kernels give exactly the results of the usual schedule (a round whose
// warps touch the same word, one writing it, goes back), run after run.
func TestParallelWarpsRacy(t *testing.T) {
	if raceDetector {
		t.Skip("the racy kernels' optimistic rounds are Go data races (undone after the round)")
	}
	forBugs(t, func(t *testing.T, b corpusBuild) {
		in := make([]int32, 64)
		for i := range in {
			in[i] = int32(100 + i)
		}
		for _, k := range []struct {
			name  string
			block emu.Dim3
		}{{"race_rows", dim(32, 8)}, {"race_shared", dim(64, 1)}, {"synced_shared", dim(64, 1)}} {
			var want []byte
			for run := range 4 {
				d := bugDevice(t, b)
				d.check = 0
				if run > 0 {
					d.warpCores = 2
				}
				d.alloc("in", fromI32(in))
				d.alloc("out", make([]byte, 4*64))
				args := []any{buf("in"), buf("out")}
				if k.name == "race_rows" {
					args = args[1:]
				}
				d.launch(k.name, dim(1, 1), k.block, 0, args...)
				got := d.get("out")
				if run == 0 {
					want = got
				} else if string(got) != string(want) {
					t.Errorf("%s: parallel run %d differs from the usual schedule", k.name, run)
				}
			}
		}
	})
}
