package emu

import (
	"strings"
	"testing"
)

func TestParseLaunchSteps(t *testing.T) {
	good := `{"program": "p", "buffers": {"b": {"bytes": 8}, "r0": {"bytes": 4}, "r1": {"bytes": 4}}, "kernel": "k", "block": [32],
		"launches": [{"grid": ["{$i+1}"], "repeat": 3, "params": [{"ptr": "r{$i%2}"}]},
		{"repeat": 4, "zero": ["b"], "while": {"buffer": "b", "index": "{$i}", "type": "u8"},
		 "launches": [{"grid": [1]}, {"grid": [2], "kernel": "k2"}]}]}`
	if _, err := ParseLaunch([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, want string }{
		{`{"program": "p", "launches": [{"block": [1]}]}`, "grid"},
		{`{"program": "p", "grid": [1], "launches": [{"block": [1], "repeat": "0x200000"}]}`, "repeat"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"while": {"buffer": "x"}}]}`, `no buffer "x"`},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"zero": ["x"]}]}`, `no buffer "x"`},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"params": [{"ptr": "r{$i}"}]}]}`, `unknown buffer "r0"`},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"grid": ["{$i/0}"]}]}`, "division by zero"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"grid": ["{$j}"]}]}`, "only $i"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"kernel": "k", "launches": [{}]}]}`, "group"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"gird": [1]}]}`, "unknown field"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"launches": []}]}`, "list of steps"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [7]}`, "cannot unmarshal number"},
		{`{"program": "p", "grid": [1], "block": [1], "buffers": {"b": {"bytes": 4}}, "launches": [{"while": {"buffer": "b", "type": "u24"}}]}`, "u24"},
		{`{"program": "p", "grid": [1], "block": [1], "launches": [{"launches": [{"launches": [{"launches": [{"launches": [{"launches":
			[{"launches": [{"launches": [{"launches": [{"launches": [{}]}]}]}]}]}]}]}]}]}]}`, "deeper"},
	} {
		_, err := ParseLaunch([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.text, err, c.want)
		}
	}
}
