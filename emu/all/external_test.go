package all_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// externalMain is a program of another module: it runs saxpy.sm_52.cubin
// with the library alone and prints y.
const externalMain = `package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

func main() {
	cub, err := os.ReadFile("saxpy.sm_52.cubin")
	if err != nil {
		panic(err)
	}
	x, y := make([]byte, 4*64), make([]byte, 4*64)
	for i := range 64 {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(1))
	}
	res, err := all.Run(&emu.Job{
		Program: &emu.Program{Name: "saxpy.sm_52.cubin", Data: cub},
		Grid:    emu.Dim3{2},
		Block:   emu.Dim3{32},
		Buffers: []emu.Alloc{{Name: "x", Data: x}, {Name: "y", Data: y}},
		Args:    []emu.Arg{emu.U32(64), emu.F32(2), emu.Ptr("x"), emu.Ptr("y")},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _ := res.Buffer("y")
	var sum float32
	for i := range 64 {
		sum += math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
	}
	fmt.Printf("%s %d warp-instructions, sum %g\n", res.Arch, res.Stats.WarpInsts, sum)
}
`

// TestExternalModule builds a module outside the repository that imports
// gpuisa through its module path (a replace directive points at this
// checkout) and runs a Maxwell kernel with the library alone, offline.
func TestExternalModule(t *testing.T) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		var lerr error
		if goCmd, lerr = exec.LookPath("go"); lerr != nil {
			t.Skip("no go command")
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/user\n\ngo 1.26\n\nrequire github.com/gpuisa/gpuisa v0.0.0\n\nreplace github.com/gpuisa/gpuisa => " + root + "\n"
	cub, err := os.ReadFile("../../examples/maxwell/saxpy.sm_52.cubin")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "main.go": []byte(externalMain), "saxpy.sm_52.cubin": cub} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in %s: %v\n%s", dir, err, out)
	}
	// y = 2x + 1 over x = 0..63: sum 2*2016 + 64
	if want := "sm_52"; !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), "sum 4096") {
		t.Fatalf("output %q, want sm_52 ... sum 4096", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
