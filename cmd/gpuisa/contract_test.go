package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
)

// The exit-status and message contract every input path keeps
// (docs/limits.md): 0 success, 1 a damaged or hostile input (or a failed
// run) with a message that names the file and a byte offset or a
// line:column, 2 only for misuse of the command line, 3 never (an internal
// error: a panic caught at the top).

// cliResult is one in-process invocation of the tool.
type cliResult struct {
	args           []string
	status         int
	stdout, stderr []byte
}

// invoke runs the tool in-process with stdin.
func invoke(stdin []byte, args ...string) cliResult {
	var out, errb bytes.Buffer
	st := run(args, bytes.NewReader(stdin), &out, &errb)
	return cliResult{args, st, out.Bytes(), errb.Bytes()}
}

// Message shapes: what each command prints on stderr when it fails.
var (
	// dis: "gpuisa dis: FILE: ..." with an offset or address in it
	disLine = positioned{prefix: "gpuisa dis: ", named: true}
	// dis errors that are about the request, not the bytes
	disRequest = regexp.MustCompile(`^gpuisa dis: [^:]+: (the cubin is for \S+, not \S+|and \d+ more errors)$`)
	// as: "FILE:LINE:COL: message"
	asLine = regexp.MustCompile(`^(<stdin>|[^:]+):\d+:\d+: \S|^\(and \d+ more errors?\)$`)
	// run: launch problems at line:column, program problems at offsets,
	// faults, failed expectations (each differing value at its address),
	// their count, progress
	runLine = regexp.MustCompile(`^gpuisa run: (<stdin>|[^:]+):\d+:\d+: |^gpuisa run: [^:]+: fault: block |^gpuisa run: FAIL expect\[|^    \S+ \(0x[0-9a-f]+\): |^    \.\.\. \d+ more$|^gpuisa run: [^:]+: FAIL: \d+ of \d+ expectations failed|^gpuisa run: [^:]+: \d[0-9hmsµn.]*: launch \d+, `)
	// or anything with an offset or address
	runPositioned = positioned{prefix: "gpuisa run: "}
)

// positioned matches a line that starts with prefix (and, when named, a
// file name without a colon and ": ") and has an offset or address after
// it: 0x and a hex digit, or a listing's /*addr*/ of 4 or more hex digits.
// (As one regexp, prefix.*(0x...|/\*...\*/), it backtracked over each
// line: a seventh of a fuzzed round trip's time; the prefix as a regexp,
// ^gpuisa dis: [^:]+: , was still a thirtieth.)
type positioned struct {
	prefix string
	named  bool
}

func (p positioned) MatchString(line string) bool {
	rest, ok := strings.CutPrefix(line, p.prefix)
	if ok && p.named {
		i := strings.IndexByte(rest, ':')
		ok = i > 0 && strings.HasPrefix(rest[i:], ": ")
		rest = rest[min(i+2, len(rest)):]
	}
	return ok && hasPosition(rest)
}

func hasPosition(s string) bool {
	hex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
	for i := 0; i+2 < len(s); i++ {
		switch {
		case s[i] == '0' && s[i+1] == 'x' && hex(s[i+2]):
			return true
		case s[i] == '/' && s[i+1] == '*':
			j := i + 2
			for j < len(s) && hex(s[j]) {
				j++
			}
			if j-(i+2) >= 4 && strings.HasPrefix(s[j:], "*/") {
				return true
			}
		}
	}
	return false
}

// checkContract fails t when r breaks the contract for its command. ok2
// allows exit status 2 (the caller made a usage error on purpose).
func checkContract(t *testing.T, r cliResult, ok2 bool) {
	t.Helper()
	if r.status == exitInternal || bytes.Contains(r.stderr, []byte("internal error")) {
		t.Fatalf("gpuisa %s: internal error (exit %d):\n%s", strings.Join(r.args, " "), r.status, r.stderr)
	}
	if bytes.Contains(r.stderr, []byte("goroutine ")) || bytes.Contains(r.stderr, []byte("panic:")) {
		t.Fatalf("gpuisa %s: a stack trace:\n%s", strings.Join(r.args, " "), r.stderr)
	}
	switch r.status {
	case 0, 1:
	case 2:
		if !ok2 {
			t.Fatalf("gpuisa %s: exit 2 (usage) for an input problem:\n%s", strings.Join(r.args, " "), r.stderr)
		}
		return
	default:
		t.Fatalf("gpuisa %s: exit %d", strings.Join(r.args, " "), r.status)
	}
	if r.status == 1 && len(r.stderr) == 0 {
		t.Fatalf("gpuisa %s: exit 1 without a message", strings.Join(r.args, " "))
	}
	for _, line := range strings.Split(strings.TrimRight(string(r.stderr), "\n"), "\n") {
		if line == "" {
			continue
		}
		var ok bool
		switch r.args[0] {
		case "dis":
			ok = disLine.MatchString(line) || disRequest.MatchString(line)
		case "as":
			ok = asLine.MatchString(line)
		case "launch":
			// the cubin's problems (offsets in it), or what its metadata
			// says that a launch file cannot express: named with the file
			ok = strings.HasPrefix(line, "gpuisa launch: ")
		case "run":
			// a listing program's errors come one per line, file:line:col
			ok = runLine.MatchString(line) || runPositioned.MatchString(line) || asLine.MatchString(line)
		}
		if !ok {
			t.Fatalf("gpuisa %s: a message without a position:\n%s", strings.Join(r.args, " "), line)
		}
	}
}

// archs is the registry, in a fixed order, for fuzz inputs to pick from.
var archs = func() []isa.Arch {
	var out []isa.Arch
	for _, name := range strings.Split(all.Names(), ", ") {
		a, err := all.Lookup(name)
		if err == nil {
			out = append(out, a)
		}
	}
	return out
}()

func archByIndex(i byte) isa.Arch { return archs[int(i)%len(archs)] }

// TestPositioned: the position check says what the single regexp it
// replaced said.
func TestPositioned(t *testing.T) {
	was := regexp.MustCompile(`^gpuisa dis: [^:]+: .*(0x[0-9a-f]+|/\*[0-9a-f]{4,}\*/)`)
	for _, line := range []string{
		"gpuisa dis: f: at 0x10: bad", "gpuisa dis: f: /*0010*/ x", "gpuisa dis: f: /*010*/ x", "gpuisa dis: f: 0x",
		"gpuisa dis: f 0x10", "gpuisa dis: a:b: 0x1", "gpuisa dis: f: 0xg 0x1", "gpuisa dis: f: 0xG", "gpuisa dis: f: /*00ag*/",
		"gpuisa dis: f: /*0000*", "gpuisa dis: f: /*/*0000*/", "gpuisa dis: 0x1: none", "xgpuisa dis: f: 0x1", "gpuisa dis: : 0x1",
		"gpuisa dis: f:0x1", "gpuisa dis: f: /*ABCD*/", "gpuisa dis: f: /*abcdef0123*/", "gpuisa dis: f: 0x0",
	} {
		if got, want := disLine.MatchString(line), was.MatchString(line); got != want {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}
