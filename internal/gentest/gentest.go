// Package gentest holds the check every ISA's tests make of its generated
// tables: the committed file must be exactly what the generator produces now.
package gentest

import (
	"bytes"
	"os"
	"testing"
)

// Current fails the test unless the file at path holds want, or the
// generator failed (err). pkg names the package to regenerate.
func Current(t testing.TB, path string, want []byte, err error, pkg string) {
	t.Helper()
	if err != nil {
		t.Fatalf("generating %s: %v", path, err)
	}
	got, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate %s", path, pkg)
	}
}
