// Package gentest holds the check every ISA's tests make of its generated
// tables: the committed file must be exactly what the generator produces now.
package gentest

import (
	"bytes"
	"fmt"
	"io"
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

// FuncTable writes a generated table of functions: doc as its comment,
// "var " decl, then one function name a line, n of them, named by name.
func FuncTable(w io.Writer, doc, decl string, n int, name func(i int) string) {
	fmt.Fprintf(w, "// %s\nvar %s{\n", doc, decl)
	for i := range n {
		fmt.Fprintf(w, "\t%s,\n", name(i))
	}
	fmt.Fprintf(w, "}\n")
}

// InitTablesCmd is the command that writes a package's inittables.go
// (WriteOrCheck's file of Literals), for the file's first line.
const InitTablesCmd = "go test -run TestInitTables -inittables (inittables_test.go)"

// WriteOrCheck is the test of a generated file made by a test: with write
// (the test's flag, set by go generate) it writes src to path, unless the
// generator failed; either way it then checks the file (Current).
func WriteOrCheck(t testing.TB, path string, src []byte, err error, pkg string, write bool) {
	t.Helper()
	if write && err == nil {
		if werr := os.WriteFile(path, src, 0o644); werr != nil {
			t.Fatal(werr)
		}
	}
	Current(t, path, src, err, pkg)
}
