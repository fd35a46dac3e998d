package main

import (
	"strings"
	"testing"
)

// TestRunShader runs the shader example through gpuisa run: the summary,
// the expectations, and a trace line per executed instruction naming the
// registers it wrote.
func TestRunShader(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "run", "-trace-block", "3", "../../examples/usse/scale_v.json")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{"sgx543 vertex program: 6 instances (0 discarded), 36 instructions", "expectations met: 48 values checked",
		"vertex 3 primary /*0008*/ mad.f32 o0.xy, pa0.xy, sa0.xy, sa4.xy   ; o0=0x3f400000 (0.75), o1=0x3fc00000 (1.5)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "vertex 2 ") {
		t.Errorf("-trace-block 3 traced vertex 2:\n%s", stdout)
	}
}

// TestRunShaderBadLaunch: a launch file with an unknown field is refused.
func TestRunShaderBadLaunch(t *testing.T) {
	code, _, stderr := runCLI(t, `{"program": "x.gxp", "arch": "sgx543", "bogus": 1}`, "run", "-")
	if code != 1 || !strings.Contains(stderr, `unknown field "bogus"`) {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}
