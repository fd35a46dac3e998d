package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

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
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("prefix\n")
	var errb bytes.Buffer
	gotCode := run(args, strings.NewReader(""), f, &errb)
	f.WriteString("suffix\n")
	if check != nil {
		check(f)
	}
	f.Close()
	got, _ := os.ReadFile(path)
	if gotCode != code || errb.String() != wantErr {
		t.Fatalf("%v: status %d, want %d; stderr differs: %v", args, gotCode, code, errb.String() != wantErr)
	}
	if string(got) != "prefix\n"+want+"suffix\n" {
		t.Fatalf("%v: the file's listing differs (%d vs %d bytes)", args, len(got), len(want)+14)
	}
}
