package maxwell

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// cudaBin is where ../shared/tools/cuda118-setup.sh installs NVIDIA's tools.
const cudaBin = "/opt/cuda118/usr/bin/"

// nvBuilder rebuilds committed testdata with NVIDIA's tools and reports the
// files that differ; tests using it skip when the tool is not installed.
type nvBuilder struct {
	t      *testing.T
	dir    string
	script string // testdata's script that rebuilds the files
}

func newNVBuilder(t *testing.T, tool, script string) *nvBuilder {
	if _, err := os.Stat(cudaBin + tool); err != nil {
		t.Skipf("no %s (../shared/tools/cuda118-setup.sh installs it)", tool)
	}
	return &nvBuilder{t: t, dir: t.TempDir(), script: script}
}

// build runs the tool (args[0], in cudaBin) with args and -o, and compares
// its output with testdata/out.
func (nb *nvBuilder) build(out string, args ...string) {
	t := nb.t
	t.Helper()
	path := filepath.Join(nb.dir, out)
	if b, err := exec.Command(cudaBin+args[0], append(args[1:], "-o", path)...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, b)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, testdataFile(t, out)) {
		t.Errorf("testdata/%s is stale: run testdata/%s", out, nb.script)
	}
}

func testdataPTX(name string) string { return filepath.Join("testdata", name+".ptx") }
