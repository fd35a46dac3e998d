package maxwell

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// The oracle's 19_misc is relocatable (ptxas -c) and calls ext_fn, which
// no oracle file defines: we link our testdata/ext_fn.ptx (x*3+7).

// extFnObject is our ext_fn build for arch.
func extFnObject(t testing.TB, arch string) []Object {
	name := "ext_fn.rel." + arch + ".cubin"
	return []Object{{Name: name, Data: testdataFile(t, name)}}
}

// miscRef is 19_misc's output for thread t: lanes above 1000 leave the
// spin loop's count (1 unless in[0] is 0, then 1000) and exit inside
// divergent code; the others leave ext_fn(add_one or twice, by parity).
func miscRef(in []uint32, t int) uint32 {
	spins := uint32(1)
	if in[0] == 0 {
		spins = 1000
	}
	a := in[t]
	if int32(a) > 1000 {
		return spins
	}
	r := a << 1 // twice for odd values
	if a&1 == 0 {
		r = a + 1 // add_one
	}
	return r*3 + 7
}

// miscInputs are random values that avoid trap's and brkpt's triggers
// (0x7fffffff, 0x7ffffffe): small ones on both sides of 1000 and any 32-bit
// value.
func miscInputs(rng *rand.Rand, n int) []uint32 {
	in := make([]uint32, n)
	for i := range in {
		for {
			if i%2 == 0 {
				in[i] = uint32(rng.Int32N(2400) - 400)
			} else {
				in[i] = rng.Uint32()
			}
			if in[i] != 0x7fffffff && in[i] != 0x7ffffffe {
				break
			}
		}
	}
	return in
}

func TestOracleMisc(t *testing.T) {
	forVariants(t, "19_misc", func(t *testing.T, prog []byte, arch string) {
		rng := rand.New(rand.NewPCG(19, 20))
		for _, first := range []uint32{7, 0} { // in[0]: the spin loop's flag
			const n = 256
			in := miscInputs(rng, n)
			in[0] = first
			r := run{program: prog, arch: arch, kernel: "misc", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
				args: []arg{fromU32(in), make([]byte, 4*n)}, link: extFnObject(t, arch)}
			res, err := r.exec(t)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]uint32, n)
			for i := range want {
				want[i] = miscRef(in, i)
			}
			if err := sameWords(u32s(res.bufs[1]), want); err != nil {
				t.Fatalf("in[0]=%d: %v", first, err)
			}
		}
	})
}

// TestOracleMiscTrap: trap and brkpt fault cleanly, naming the thread and
// the instruction. ptxas 11.8 compiles both to BPT.TRAP 0x1 (see the
// listing), so both are traps, at different instructions.
func TestOracleMiscTrap(t *testing.T) {
	forVariants(t, "19_misc", func(t *testing.T, prog []byte, arch string) {
		var pcs []uint64
		for _, c := range []struct {
			lane  int
			value uint32
		}{{37, 0x7fffffff}, {70, 0x7ffffffe}} {
			in := make([]uint32, 128)
			in[c.lane] = c.value
			r := run{program: prog, arch: arch, kernel: "misc", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{128, 1, 1},
				args: []arg{fromU32(in), make([]byte, 4*128)}, link: extFnObject(t, arch)}
			_, err := r.exec(t)
			var f *emu.Fault
			if !errors.As(err, &f) || !errors.Is(err, ErrTrap) {
				t.Fatalf("%#x: %v, want a trap", c.value, err)
			}
			if f.Thread != (emu.Dim3{uint32(c.lane), 0, 0}) || !strings.HasPrefix(f.Inst, "BPT.TRAP") {
				t.Errorf("%#x: fault at thread %v pc %#x %q", c.value, f.Thread, f.PC, f.Inst)
			}
			pcs = append(pcs, f.PC)
		}
		if pcs[0] == pcs[1] {
			t.Errorf("trap and brkpt fault at the same pc %#x", pcs[0])
		}
	})
}

// TestOracleMiscUnlinked: without ext_fn the error names the symbol.
func TestOracleMiscUnlinked(t *testing.T) {
	prog := oracleCubin(t, "sm_52", "19_misc.O3.cubin")
	_, err := ProgramImage("19_misc.O3.cubin", prog, "misc", "sm_52")
	if err == nil || !strings.Contains(err.Error(), `undefined symbol "ext_fn"`) {
		t.Fatalf("got %v", err)
	}
}

// TestOracleMiscMatchesNvlink links each 19_misc build with our ext_fn
// both ways, ours and nvlink's (when installed), and compares the code.
func TestOracleMiscMatchesNvlink(t *testing.T) {
	const nvlink = "/opt/cuda118/usr/bin/nvlink"
	if _, err := os.Stat(nvlink); err != nil {
		t.Skip("no nvlink (../shared/tools/cuda118-setup.sh installs it)")
	}
	dir := t.TempDir()
	for _, v := range variants {
		name := "19_misc." + v.opt + ".cubin"
		prog := oracleCubin(t, v.arch, name)
		img, err := LinkImage(name, prog, "misc", v.arch, extFnObject(t, v.arch))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, v.arch+v.opt+".cubin")
		cmd := exec.Command(nvlink, "-arch", v.arch, oracle.Path(t, filepath.Join("oracle/maxwell/cubin", v.arch, name)),
			filepath.Join("testdata", "ext_fn.rel."+v.arch+".cubin"), "-o", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("nvlink: %v\n%s", err, b)
		}
		linked, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(v.arch+"."+v.opt, func(t *testing.T) { sameAsNvlink(t, img, linked) })
	}
}
