package emu

import (
	"os"
	"strings"
	"testing"
)

func TestOpenKernel(t *testing.T) {
	data, err := os.ReadFile("../examples/tesla/vecadd.cubin")
	if err != nil {
		t.Fatal(err)
	}
	_, fn, err := OpenKernel("vecadd.cubin", data, "", "sm_10")
	if err != nil || fn.Name != "vecadd" || len(fn.Code) == 0 {
		t.Fatalf("OpenKernel: %v, %+v", err, fn)
	}
	for _, c := range []struct {
		data         []byte
		kernel, arch string
		want         string
	}{
		{data, "", "sm_52", "the cubin is for sm_10, the launch says sm_52"},
		{data, "nope", "sm_10", `no function "nope"`},
		{data[:64], "", "sm_10", "vecadd.cubin:"},
	} {
		if _, _, err := OpenKernel("vecadd.cubin", c.data, c.kernel, c.arch); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OpenKernel(%q, %s) = %v, want an error containing %q", c.kernel, c.arch, err, c.want)
		}
	}
}
