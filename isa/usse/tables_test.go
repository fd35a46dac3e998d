package usse

import (
	"bytes"
	"os"
	"testing"

	"gpuisa/isa/usse/internal/gen"
)

// TestTablesCurrent fails when tables.go is not what usse.spec generates.
func TestTablesCurrent(t *testing.T) {
	src, err := os.ReadFile("usse.spec")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("tables.go is stale: run go generate ./isa/usse")
	}
}
