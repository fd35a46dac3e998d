package usse

import (
	"encoding/json"
	"testing"
)

// TestIsLaunch: a shader launch is told from a CUDA one by its arch, however
// the JSON spells it (an escape, the key's case), and the quick look for the
// word answers as a whole parse does.
func TestIsLaunch(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"program": "v.gxp", "arch": "sgx543", "type": "vertex"}`, true},
		{`{"program": "v.gxp", "arch": "\u0073gx543"}`, true},
		{`{"program": "v.gxp", "ARCH": "sgx543"}`, true},
		{`{"program": "k.cubin", "arch": "sm_52", "grid": [1]}`, false},
		{`{"program": "sgx543.cubin", "arch": "sm_52"}`, false},
		{`{"program": "k.cubin", "kernel": "a\\b"}`, false},
		{`{"arch": "sgx543"`, false},
		{``, false},
	} {
		var head struct {
			Arch string `json:"arch"`
		}
		whole := json.Unmarshal([]byte(c.text), &head) == nil && head.Arch == Arch
		if got := IsLaunch([]byte(c.text)); got != c.want || whole != c.want {
			t.Errorf("IsLaunch(%s) = %v, a whole parse says %v; want %v", c.text, got, whole, c.want)
		}
	}
}
