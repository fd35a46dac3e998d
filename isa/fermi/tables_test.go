package fermi

import (
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
	"github.com/gpuisa/gpuisa/isa/fermi/internal/specgen"
)

// TestTablesUpToDate regenerates tables.go from fermi.spec and compares.
func TestTablesUpToDate(t *testing.T) {
	src, err := os.ReadFile("fermi.spec")
	if err != nil {
		t.Fatal(err)
	}
	s, err := specgen.Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	want, err := specgen.Generate(s)
	gentest.Current(t, "tables.go", want, err, "./isa/fermi")
}

// TestFormChecksFit: formChecks keeps modifier and operand indices in bit
// sets of 16 and 8 bits.
func TestFormChecksFit(t *testing.T) {
	for i := range forms {
		if len(forms[i].mods) > 16 || len(forms[i].ops) > 8 {
			t.Errorf("form %d (%s): %d modifiers, %d operands", i, forms[i].name, len(forms[i].mods), len(forms[i].ops))
		}
	}
}

// TestShortNames: the assembler sizes a statement by its mnemonic before
// encoding it, so exactly the 4-byte forms have names ending in _N.
func TestShortNames(t *testing.T) {
	for i := range forms {
		f := &forms[i]
		s := stmt{mnem: f.name}
		if s.short() != f.short {
			t.Errorf("form %d (%s): short %v, name says %v", i, f.name, f.short, s.short())
		}
	}
}
