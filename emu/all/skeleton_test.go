package all_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// TestSkeletonOracle: the launch-file skeleton of every kernel of the
// oracle's ptxas-built sm_5x cubins is accepted and starts: the run ends or
// faults in the kernel (zeroed buffers are not the kernels' real data), it
// never fails to set up.
func TestSkeletonOracle(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.cubin"))
	if len(files) == 0 {
		t.Fatal("no cubins")
	}
	kernels, started, finished, needLink := 0, 0, 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(path, err)
		}
		for _, fn := range f.Functions {
			if !fn.Entry {
				continue
			}
			kernels++
			text, err := emu.Skeleton(path, data, fn.Name)
			if err != nil {
				t.Errorf("%s %s: %v", path, fn.Name, err)
				continue
			}
			l, err := emu.ParseLaunch(text)
			if err != nil {
				t.Errorf("%s %s: %v\n%s", path, fn.Name, err, text)
				continue
			}
			j, err := l.Job("")
			if err != nil {
				t.Errorf("%s %s: %v", path, fn.Name, err)
				continue
			}
			j.MaxSteps = 1 << 16
			res, err := all.Run(j)
			var fault *emu.Fault
			switch {
			case err == nil:
				finished++
				started++
			case errors.As(err, &fault) && res != nil:
				started++
			case len(l.Link) == 0 && l.Link != nil && strings.Contains(err.Error(), "undefined symbol"):
				needLink++ // the skeleton says which symbols another cubin must define
			default:
				t.Errorf("%s %s: the skeleton does not start: %v", path, fn.Name, err)
			}
		}
	}
	t.Logf("%d/%d kernels of %d oracle cubins start from their skeleton (%d finish with zeroed buffers); %d need a cubin to link (their skeleton names the undefined symbols)",
		started, kernels, len(files), finished, needLink)
	if started+needLink != kernels {
		t.Errorf("%d kernels neither start nor need a link", kernels-started-needLink)
	}
}
