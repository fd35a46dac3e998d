package usse

import (
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
	"github.com/gpuisa/gpuisa/isa/usse/internal/gen"
)

// TestTablesCurrent fails when tables.go is not what usse.spec generates.
func TestTablesCurrent(t *testing.T) {
	src, err := os.ReadFile("usse.spec")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(src)
	gentest.Current(t, "tables.go", want, err, "./isa/usse")
}
