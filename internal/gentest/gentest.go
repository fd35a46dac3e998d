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

// InitTablesCmd is the command that writes a package's inittables.go and
// inittables_boot.go (InitTables); go generate runs it.
const InitTablesCmd = "go test -tags " + BootTag + " -run TestInitTables -inittables (inittables_test.go)"

// InitTables is a package's TestInitTables: with write (its -inittables
// flag) it writes inittables.go, the tables as literals (Literals), and
// inittables_boot.go, the same variables computed by their build functions
// (BootFile); either way it then checks both files (Current). pkg is the
// package's name, pkgPath its import path and dir its directory from the
// module's root ("./isa/usse").
func InitTables(t testing.TB, pkg, pkgPath, dir string, tables []Table, write bool) {
	t.Helper()
	src, err := Literals(InitTablesCmd, pkg, pkgPath, tables)
	WriteOrCheck(t, "inittables.go", src, err, dir, write)
	boot, err := BootFile(InitTablesCmd, pkg, tables)
	WriteOrCheck(t, "inittables_boot.go", boot, err, dir, write)
}

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
