package cubinasm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// nvidiaTool finds a CUDA 11.8 tool, or "".
func nvidiaTool(name string) string {
	p := "/opt/cuda118/usr/bin/" + name
	if _, err := os.Stat(p); err == nil {
		return p
	}
	p, _ = exec.LookPath(name)
	return p
}

// TestRebuildFreshPtxas compiles the oracle's PTX with options the oracle
// was not built with (-O1, -O2; skipped without NVIDIA's tools), lists
// each cubin with nvdisasm -hex and assembles the listing: the cubin comes
// back byte for byte, or nvdisasm -hex and cuobjdump -sass list the rebuilt
// cubin exactly as the original and the test says why the bytes differ.
func TestRebuildFreshPtxas(t *testing.T) {
	ptxas, nvdisasm, cuobjdump := nvidiaTool("ptxas"), nvidiaTool("nvdisasm"), nvidiaTool("cuobjdump")
	if ptxas == "" || nvdisasm == "" || cuobjdump == "" {
		t.Skip("NVIDIA's tools are not installed (../shared/tools/cuda118-setup.sh)")
	}
	ptxs, _ := filepath.Glob(filepath.Join(oracle.Path(t, "oracle/maxwell/ptx"), "*.ptx"))
	type build struct{ arch, opt string }
	builds := []build{{"sm_52", "-O1"}, {"sm_50", "-O2"}, {"sm_53", "-O2"}}
	if testing.Short() {
		builds = builds[:1]
	}
	dir := t.TempDir()
	same, total := 0, 0
	for _, ptx := range ptxs {
		name := strings.TrimSuffix(filepath.Base(ptx), ".ptx")
		for _, b := range builds {
			if strings.Contains(name, "sm53") && b.arch != "sm_53" {
				continue
			}
			args := []string{"-arch", b.arch, b.opt, ptx, "-o"}
			if strings.Contains(name, "misc") {
				args = append([]string{"-c"}, args...)
			}
			orig := filepath.Join(dir, name+"."+b.arch+b.opt+".cubin")
			if out, err := exec.Command(ptxas, append(args, orig)...).CombinedOutput(); err != nil {
				t.Fatalf("ptxas %s: %v\n%s", name, err, out)
			}
			listing, err := exec.Command(nvdisasm, "-hex", orig).Output()
			if err != nil {
				t.Fatalf("nvdisasm %s: %v", orig, err)
			}
			total++
			key := filepath.Base(orig)
			got, err := Assemble(key+".nvdisasm.txt", listing)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			want, _ := os.ReadFile(orig)
			if bytes.Equal(got, want) {
				same++
				continue
			}
			rebuilt := orig + ".rebuilt"
			os.WriteFile(rebuilt, got, 0o644)
			for _, cmd := range [][]string{{nvdisasm, "-hex"}, {cuobjdump, "-sass"}} {
				a, errA := exec.Command(cmd[0], append(cmd[1:], rebuilt)...).Output()
				b, errB := exec.Command(cmd[0], append(cmd[1:], orig)...).Output()
				a = bytes.ReplaceAll(a, []byte(rebuilt), []byte(orig))
				if errA != nil || errB != nil || !bytes.Equal(a, b) {
					t.Errorf("%s: %s lists the rebuilt cubin differently (%v, %v): %s", key, filepath.Base(cmd[0]), errA, errB, firstLineDiff(a, b))
				}
			}
			reasons, unexplained := Explain(got, want)
			if len(unexplained) > 0 || len(reasons) == 0 {
				t.Errorf("%s: unexplained differences in %v", key, unexplained)
			}
			for _, r := range reasons {
				t.Logf("%s: %s", key, r)
			}
		}
	}
	t.Logf("fresh ptxas builds: %d/%d rebuild byte for byte from nvdisasm -hex", same, total)
}
