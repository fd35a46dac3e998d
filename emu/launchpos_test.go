package emu

import (
	"errors"
	"strings"
	"testing"
)

// TestWithPos: launch file errors name a line and column: JSON syntax,
// wrong types, unknown fields and the checks' own messages.
func TestWithPos(t *testing.T) {
	cases := []struct {
		text      string
		line, col int
		msg       string
	}{
		{"{\n  \"program\": \"p\",\n  \"grid\": [1, 0],\n  \"block\": [1]\n}", 3, 15, "grid[1] is 0"},
		{"{\"program\": \"p\", \"grid\": [1],\n \"block\": [1],\n \"memory\": [{\"addr\": 0, \"bytes\": 4},\n   {\"space\": \"texture\", \"addr\": 0}]}", 4, 4, "unknown space"},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1],\n \"buffers\": {\"x\": {\"bytes\": \"-1\"}}}", 2, 29, "buffer \"x\" bytes"},
		{"{\"program\": \"p\",\n \"grid\": [1,,2]}", 2, 13, "invalid character"},
		{"{\"program\": 3}", 1, 13, "cannot unmarshal"},
		{"{\"program\": \"p\", \"grid\": [1],\n \"blokc\": [1]}", 2, 2, "unknown field \"blokc\""},
		// a number past float64's range before it (found by FuzzRun: the
		// position search read numbers as float64 and stopped there)
		{"{\"program\": \"p\", \"buffers\": {\"b\": {\"bytes\": 1" + strings.Repeat("0", 400) + "}},\n \"surfices\": {}}", 2, 2, "unknown field \"surfices\""},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1],\n \"launches\": [{}, {\"gird\": [1]}]}", 2, 20, "unknown field \"gird\""},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1],\n \"outputs\": [{\"file\": \"../x\", \"bytes\": 4}]}", 2, 23, "not a plain name"},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1],\n \"params\": [{\"u32\": \"0xffffffffffffffff\"}]}", 2, 21, "out of range"},
		// a sequence's steps (found by FuzzRun: these had no position)
		{"{\"program\": \"\", \"grid\": [1], \"block\": [1],\n \"launches\": [{\"kernel\": \"k\"}]}", 2, 15, "step 0: no program"},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1],\n \"launches\": [{}, {\"grid\": [2, 0]}]}", 2, 32, "step 1: grid[1] is 0"},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1], \"launches\": [\n {\"launches\": [{}, {\"kernel\": \"k\", \"launches\": [{}]}]}]}", 2, 20, "step 0: step 1: a group"},
		// a parameter naming no buffer, in a group's step (found by FuzzRun:
		// it was found only when the step ran, after the steps before it)
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1], \"buffers\": {\"x\": {\"bytes\": 4}},\n \"launches\": [{}, {\"launches\": [{\"params\": [{\"ptr\": \"x\"}, {\"ptr\": \"y\"}]}]}]}", 2, 67, "step 1: step 0: params[1]: ptr to unknown buffer \"y\""},
		{"{\"program\": \"p\", \"grid\": [1], \"block\": [1], \"buffers\": {},\n \"params\": [{\"ptr\": \"x\"}]}", 2, 21, "params[0]: ptr to unknown buffer \"x\""},
	}
	for _, c := range cases {
		_, err := ParseLaunch([]byte(c.text))
		err = WithPos([]byte(c.text), err)
		var pe *PosError
		if !errors.As(err, &pe) || pe.Line != c.line || pe.Col != c.col || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n  error %v; want %d:%d: ...%s", c.text, err, c.line, c.col, c.msg)
		}
	}
}

// TestWithPosRunningSequence: a step's problem found only as the sequence
// runs (a template expanded for a later repetition) names its steps with
// their repetitions; it is placed at the step's field, or at the launch
// file's when the step leaves the field to it, or at the step.
func TestWithPosRunningSequence(t *testing.T) {
	text := "{\"program\": \"p\", \"grid\": [1], \"block\": [1],\n" +
		" \"params\": [{\"u32\": 1}, {\"ptr\": \"b0\"}],\n" +
		" \"launches\": [{\"repeat\": 2}, {\"launches\": [{\"repeat\": 3, \"kernel\": \"k{$i}\",\n" +
		"   \"params\": [{\"u32\": 1}, {\"ptr\": \"b{$i}\"}]}]}]}"
	for _, c := range []struct {
		msg       string
		line, col int
	}{
		{`step 1 (repetition 0): step 0 (repetition 2): params[1]: ptr to unknown buffer "b2"`, 4, 35},
		{`step 0 (repetition 1): params[1]: ptr to unknown buffer "b2"`, 2, 33},
		{`step 1 (repetition 0): step 0 (repetition 1): p: no function "k1"`, 3, 44},
		{`step 1 (repetition 0): step 0: while: x is still not zero after 4 repetitions`, 3, 44},
	} {
		err := WithPos([]byte(text), errors.New(c.msg))
		var pe *PosError
		if !errors.As(err, &pe) || pe.Line != c.line || pe.Col != c.col {
			t.Errorf("%s:\n  %v; want at %d:%d", c.msg, err, c.line, c.col)
		}
	}
}

// TestLocatePathHugeNumbers: a value after a number no float64 holds is
// still found.
func TestLocatePathHugeNumbers(t *testing.T) {
	text := `{"program": "p", "buffers": {"b": {"bytes": 1` + strings.Repeat("9", 400) + `}}, "outputs": [{"file": "o"}]}`
	off, ok := locatePath([]byte(text), []string{"outputs", "0", "file"})
	if want := strings.Index(text, `"o"`); !ok || off != want {
		t.Errorf("outputs[0].file at %d, %v; want %d", off, ok, want)
	}
}
