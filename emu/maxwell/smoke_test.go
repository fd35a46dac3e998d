package maxwell

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gpuisa/binfmt/cubin"
	"gpuisa/emu"
	"gpuisa/internal/oracle"
)

// hardwareFaults are the oracle kernels that fault on the hardware too, with
// what the fault must say: 14_addr64's vector loads and stores are misaligned
// for every thread but x = 0 (addr64_test.go).
var hardwareFaults = map[string]string{"addr64": "misaligned"}

// TestOracleEveryKernel launches every kernel of every oracle cubin on zeroed
// buffers: each must finish or stop with a *emu.Fault naming where (never a
// panic or a hang). The log lists the kernels that do not run yet.
func TestOracleEveryKernel(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	paths, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	sort.Strings(paths)
	ran, faulted, total := 0, 0, 0
	var failed []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		arch := filepath.Base(filepath.Dir(p))
		for _, fn := range f.Functions {
			if !fn.Entry {
				continue
			}
			total++
			var args []arg
			for _, prm := range fn.Params {
				switch prm.Size {
				case 8:
					args = append(args, make([]byte, 1<<16))
				default:
					args = append(args, uint32(16))
				}
			}
			name := arch + "/" + filepath.Base(p) + ":" + fn.Name
			if _, err := ProgramImage(name, data, fn.Name, arch); err != nil {
				failed = append(failed, name+": "+err.Error())
				continue
			}
			r := run{program: data, arch: arch, kernel: fn.Name, grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{64, 1, 1}, args: args}
			_, err := r.exec(t)
			var fault *emu.Fault
			switch {
			case err == nil:
				ran++
			case errors.As(err, &fault):
				if fault.Inst == "" && fault.PC == 0 && fault.Err == nil {
					t.Errorf("%s: a fault without a place: %v", name, err)
				}
				if want, ok := hardwareFaults[fn.Name]; ok {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: %v, want the hardware's %s fault", name, err, want)
					}
					faulted++
					continue
				}
				failed = append(failed, name+": "+err.Error())
			case hardwareFaults[fn.Name] != "":
				t.Errorf("%s ran to completion, want the hardware's %s fault", name, hardwareFaults[fn.Name])
			default:
				t.Errorf("%s: not a fault: %v", name, err)
			}
		}
	}
	t.Logf("%d of %d kernels ran to completion, %d stopped at the fault the hardware raises; the others:\n%s",
		ran, total, faulted, strings.Join(failed, "\n"))
}
