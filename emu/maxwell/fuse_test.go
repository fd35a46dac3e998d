package maxwell

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// TestFusedSameAsSingle runs every oracle kernel on random buffers twice,
// with the instruction groups of fuse.go and the other fast paths, and
// without (each instruction on its own, by the general paths: see
// generalOnly), and wants the same memory, counters and faults.
func TestFusedSameAsSingle(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	paths, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	sort.Strings(paths)
	groups, kernels := 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		arch := filepath.Base(filepath.Dir(p))
		for _, fn := range f.Functions {
			if !fn.Entry {
				continue
			}
			if _, err := ProgramImage(fn.Name, data, fn.Name, arch); err != nil {
				continue // the kernels that do not load (linking, textures)
			}
			rng := rand.New(rand.NewPCG(uint64(len(p)), uint64(len(fn.Name))))
			var args []arg
			for _, prm := range fn.Params {
				if prm.Size == 8 {
					b := make([]byte, 1<<16)
					for i := range b {
						b[i] = byte(rng.Uint32())
					}
					args = append(args, b)
				} else {
					args = append(args, uint32(rng.IntN(64)))
				}
			}
			r := run{program: data, arch: arch, kernel: fn.Name, grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{64, 1, 1}, args: args, serial: true, steps: 1 << 16}
			var mem [2][]byte
			var outcome [2]string
			for i, fuse := range []bool{true, false} {
				k, cfg, _ := r.prepare(t)
				if fuse {
					for _, g := range k.fuse {
						if g != fuseNone {
							groups++
						}
					}
				} else {
					k.generalOnly()
				}
				st, err := emu.Run(cfg, k)
				mem[i], outcome[i] = k.Global.Data, fmt.Sprintf("%d %d %v", st.WarpInsts, st.ThreadInsts, err)
			}
			kernels++
			name := arch + "/" + filepath.Base(p) + ":" + fn.Name
			if outcome[0] != outcome[1] {
				t.Errorf("%s: fused %s, single %s", name, outcome[0], outcome[1])
			}
			if !bytes.Equal(mem[0], mem[1]) {
				t.Errorf("%s: memory differs", name)
			}
		}
	}
	if groups < 100 {
		t.Errorf("only %d instruction groups in %d kernels", groups, kernels)
	}
	t.Logf("%d kernels, %d instruction groups", kernels, groups)
}

// generalOnly makes k run every instruction on its own by the general
// paths: no instruction groups, no fast loops for loads, stores and ALU
// instructions, every condition-code flag computed.
func (k *Kernel) generalOnly() {
	k.fuse, k.slow = nil, true
}
