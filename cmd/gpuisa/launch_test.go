package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// The skeleton of each example cubin is a launch file that gpuisa run
// accepts and starts; with zeroed buffers, vecadd and saxpy finish, while
// kinds (which needs dynamic shared memory) and textures (which needs
// images) fault in the kernel.
func TestLaunchInitRuns(t *testing.T) {
	for _, c := range []struct {
		cubin, kernel, arch string
		fault               bool
	}{
		{"../../examples/tesla/vecadd.cubin", "", "sm_10", false},
		{"../../examples/maxwell/saxpy.sm_52.cubin", "", "sm_52", false},
		{"../../examples/maxwell/kinds.sm_52.cubin", "kinds", "sm_52", true},
		{"../../examples/maxwell/textures.sm_52.cubin", "", "sm_52", true},
		{"../../isa/all/testdata/copy.sm_20.cubin", "", "sm_20", false},
	} {
		out := filepath.Join(t.TempDir(), "sub", "k.json")
		os.MkdirAll(filepath.Dir(out), 0o755)
		args := []string{"launch", "init", c.cubin, "-o", out}
		if c.kernel != "" {
			args = append(args, "-kernel", c.kernel)
		}
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%s: launch init: %d %s", c.cubin, code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		l, err := emu.ParseLaunch(data)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.cubin, err, data)
		}
		if l.Arch != c.arch || l.Kernel == "" || !strings.HasPrefix(l.Program, "../") {
			t.Errorf("%s: arch %q kernel %q program %q", c.cubin, l.Arch, l.Kernel, l.Program)
		}
		if c.arch == "sm_20" {
			continue // not runnable yet: the skeleton is checked above
		}
		code, stdout, stderr := runCLI(t, "", "run", "-out", t.TempDir(), out)
		if !strings.Contains(stdout, "k.json: "+c.arch+" grid") {
			t.Errorf("%s: the skeleton did not start: %s%s", c.cubin, stdout, stderr)
		}
		if faulted := code != 0 && strings.Contains(stderr, "fault:"); faulted != c.fault || code != 0 && !faulted {
			t.Errorf("%s: run of the skeleton: %d %s", c.cubin, code, stderr)
		}
	}
}

func TestLaunchInitErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"launch"}, 2, "the only subcommand is init"},
		{[]string{"launch", "make", "x"}, 2, "the only subcommand is init"},
		{[]string{"launch", "init"}, 2, "want one cubin, got 0"},
		{[]string{"launch", "init", "-"}, 2, "not standard input"},
		{[]string{"launch", "init", "../../examples/tesla/vecadd.s"}, 1, `needs "arch"`},
		{[]string{"launch", "init", "../../examples/tesla/vecadd.cubin", "-kernel", "nope"}, 1, `no function "nope"`},
		{[]string{"launch", "init", "no/such.cubin"}, 1, "no such file"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %d %q, want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
