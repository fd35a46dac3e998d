package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/pagemem"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// writeRandomCode writes at least n bytes of pseudo-random 64-bit words
// (a linear congruential sequence at state *x, which it advances) to
// file name in dir and returns its path.
func writeRandomCode(t *testing.T, dir, name string, x *uint64, n int) string {
	var code []byte
	for len(code) < n {
		*x = *x*6364136223846793005 + 1442695040888963407
		code = binary.LittleEndian.AppendUint64(code, *x^*x>>29)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, code, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runToFile runs the command args with standard output a new regular
// file at path that holds "prefix\n" before it, calls after (if not nil)
// with the file before it is closed, and returns the exit status, what the
// file then holds and standard error.
func runToFile(t *testing.T, path string, args []string, after func(f *os.File)) (int, string, string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("prefix\n")
	var errb strings.Builder
	status := run(args, strings.NewReader(""), f, &errb)
	if after != nil {
		after(f)
	}
	f.Close()
	got, _ := os.ReadFile(path)
	return status, string(got), errb.String()
}

// disToFile runs the command args with standard output a regular file at
// path that holds "prefix\n" before and gets "suffix\n" after, and checks
// that the file then holds the listing the command prints to a buffer,
// with the same status and standard error. check, if not nil, sees the
// file before it is closed.
func disToFile(t *testing.T, path string, args []string, check func(f *os.File)) {
	t.Helper()
	code, want, wantErr := runCLI(t, "", args...)
	if !strings.Contains(want, "/* 0x") || wantErr == "" {
		t.Fatalf("%v: no listing or no decode errors", args)
	}
	gotCode, got, gotErr := runToFile(t, path, args, func(f *os.File) {
		f.WriteString("suffix\n")
		if check != nil {
			check(f)
		}
	})
	if gotCode != code || gotErr != wantErr {
		t.Fatalf("%v: status %d, want %d; stderr differs: %v", args, gotCode, code, gotErr != wantErr)
	}
	if got != "prefix\n"+want+"suffix\n" {
		t.Fatalf("%v: the file's listing differs (%d vs %d bytes)", args, len(got), len(want)+14)
	}
}

// TestDisLargeRawInHugePages: raw sm_52 code past pagemem.HugeMin is read
// into memory of its own and listed through rooms of their own (the texts,
// the blocks), all given back after: dis lists 1.3 MB of it, to a buffer
// and to a regular file, as maxwell.Disassemble does, file after file.
func TestDisLargeRawInHugePages(t *testing.T) {
	code := bfsCode(t, pagemem.HugeMin+256<<10)
	dir := t.TempDir()
	raw := filepath.Join(dir, "code.bin")
	if err := os.WriteFile(raw, code, 0o644); err != nil {
		t.Fatal(err)
	}
	lib, errs := maxwell.Disassemble(nil, code, 0, 52)
	if len(errs) != 0 {
		t.Fatalf("the example's code has %d decode errors", len(errs))
	}
	args := []string{"dis", "-arch", "sm_52", raw, raw}
	if status, got, errText := runCLI(t, "", args...); status != 0 || errText != "" || got != string(lib)+string(lib) {
		t.Fatalf("dis of two large raw files to a buffer: status %d, %s; as maxwell.Disassemble: %v", status, errText, got == string(lib)+string(lib))
	}
	if status, got, errText := runToFile(t, filepath.Join(dir, "out.s"), args, nil); status != 0 || errText != "" || got != "prefix\n"+string(lib)+string(lib) {
		t.Fatalf("dis of two large raw files to a file: status %d, %s; as maxwell.Disassemble: %v", status, errText, got == "prefix\n"+string(lib)+string(lib))
	}
	// the nvdisasm drop-in reads raw code the same way
	nv := []string{"nvdisasm", "-b", "SM52", "-hex", "-novliw", raw}
	if status, got, errText := runToFile(t, filepath.Join(dir, "nv.s"), nv, nil); status != 0 || errText != "" || got != "prefix\n"+string(lib) {
		t.Fatalf("%v to a file: status %d, %s; as maxwell.Disassemble: %v", nv, status, errText, got == "prefix\n"+string(lib))
	}
	if status, got, errText := runCLI(t, "", "nvdisasm", "-b", "SM52", raw); status != 0 || errText != "" || !strings.Contains(got, "/*0008*/") {
		t.Fatalf("nvdisasm -b SM52 of a large raw file: status %d, %s", status, errText)
	}
}
