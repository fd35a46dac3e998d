package maxwell

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// expectedFaults are the oracle kernels this test cannot run to the end,
// with what their fault must say: 14_addr64's vector loads and stores are
// misaligned for every thread but x = 0, on the hardware too
// (addr64_test.go); 17_texsurf needs textures and surfaces bound, which this
// test's launch has not (texsurf_test.go runs it with them).
var expectedFaults = map[string]string{"addr64": "misaligned", "texsurf": "is not bound"}

// TestOracleEveryKernel launches every kernel of every oracle cubin on zeroed
// buffers: each must finish or stop with a *emu.Fault naming where (never a
// panic or a hang), and all but the expectedFaults must finish (19_misc
// linked with our ext_fn).
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
			program, _, _ := strings.Cut(filepath.Base(p), ".")
			var link []Object
			if program == "19_misc" {
				link = extFnObject(t, arch)
			}
			if _, err := LinkImage(name, data, fn.Name, arch, link); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			r := run{program: data, arch: arch, kernel: fn.Name, grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{64, 1, 1}, args: args, link: link}
			_, err := r.exec(t)
			var fault *emu.Fault
			switch {
			case err == nil:
				ran++
			case errors.As(err, &fault):
				if fault.Inst == "" && fault.PC == 0 && fault.Err == nil {
					t.Errorf("%s: a fault without a place: %v", name, err)
				}
				if want, ok := expectedFaults[fn.Name]; ok {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: %v, want the %q fault", name, err, want)
					}
					faulted++
					failed = append(failed, name+": "+err.Error())
					continue
				}
				t.Errorf("%s: %v", name, err)
			case expectedFaults[fn.Name] != "":
				t.Errorf("%s ran to completion, want the %q fault", name, expectedFaults[fn.Name])
			default:
				t.Errorf("%s: not a fault: %v", name, err)
			}
		}
	}
	t.Logf("%d of %d kernels ran to completion, %d stopped at their expected fault:\n%s",
		ran, total, faulted, strings.Join(failed, "\n"))
}
