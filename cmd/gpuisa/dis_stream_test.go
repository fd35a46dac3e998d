package main

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa/all"
)

// Raw code listed as it is read (more than one window, bad words among
// the good) is what the library's Disassemble returns, from a file and from
// standard input, and the decode errors are reported (the first
// maxPrintedErrors, then how many more).
func TestDisRawStreamed(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	code := make([]byte, 0, 3<<20)
	for len(code) < 3<<20 { // random words: many do not decode
		code = binary.LittleEndian.AppendUint64(code, r.Uint64())
	}
	code = append(code, 1, 2, 3) // a truncated tail
	path := filepath.Join(t.TempDir(), "code.bin")
	if err := os.WriteFile(path, code, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sm_10", "sm_20", "sgx543"} {
		arch, err := all.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		want, errs := arch.Disassemble(nil, code, 0) // no -base: a -base code is read whole
		for _, file := range []string{path, "-"} {
			stdin := ""
			if file == "-" {
				stdin = string(code)
			}
			status, out, stderr := runCLI(t, stdin, "dis", "-arch", name, file)
			if out != string(want) {
				t.Errorf("%s %s: listing differs from Disassemble's (%d bytes, want %d)", name, file, len(out), len(want))
			}
			wantLines := min(len(errs), maxPrintedErrors)
			if len(errs) > maxPrintedErrors {
				wantLines++
				if more := fmt.Sprintf("and %d more errors", len(errs)-maxPrintedErrors); !strings.Contains(stderr, more) {
					t.Errorf("%s %s: no %q line", name, file, more)
				}
			}
			if n := strings.Count(stderr, "\n"); n != wantLines || (status != 0) != (len(errs) > 0) {
				t.Errorf("%s %s: status %d, %d error lines, want %d (of %d errors)", name, file, status, n, wantLines, len(errs))
			}
		}
	}
}

// A container or a GXP shader on standard input is still recognised (its
// first bytes are peeked at, then read with the rest) when -arch offers a
// streamed listing.
func TestDisContainerOnStdinWithArch(t *testing.T) {
	for _, c := range []struct{ path, arch, has string }{
		{filepath.Join("..", "..", "isa", "all", "testdata", "copy.sm_20.cubin"), "sm_20", "Function"},
		{filepath.Join("..", "..", "examples", "usse", "sum_v.gxp"), "sgx543", "primary"},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := runCLI(t, "", "dis", c.path)
		status, got, stderr := runCLI(t, string(data), "dis", "-arch", c.arch, "-")
		if status != 0 || got != want || !strings.Contains(got, c.has) {
			t.Errorf("%s: status %d, stderr %q; listing equal %v", c.path, status, stderr, got == want)
		}
	}
}
