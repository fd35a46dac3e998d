package tesla

import (
	"flag"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
)

var updateInitTables = flag.Bool("inittables", false, "rewrite inittables.go from the tables' build functions")

// TestInitTables: inittables.go holds, as literals, the word tables the
// printers would otherwise compute when every program starts (regWords
// alone made 256 strings); go generate builds with -tags initboot, which
// computes them instead (inittables_boot.go).
func TestInitTables(t *testing.T) {
	tables := []gentest.Table{
		{Name: "wordTail", Doc: "wordTail is a \".word\" line past its address column, the digits to be\nfilled in: the text padded to the hex column, whose 8 digits are padded\nto 16 (isa.CuobjdumpStyle).", Value: buildWordTail(), From: "buildWordTail()"},
		{Name: "condWords", Doc: "condWords are condNames packed for putWord (0 for the longer names).", Value: buildCondWords(), From: "buildCondWords()"},
		{Name: "regWords", Doc: "regWords spells R0..R127 (index r) and the halves R0L..R63H (index\n128+r) as words.", Value: buildRegWords(), From: "buildRegWords()"},
		{Name: "condTexts", Doc: "condTexts are condNames packed in two words.", Value: buildCondTexts(), From: "buildCondTexts()"},
	}
	gentest.InitTables(t, "tesla", "github.com/gpuisa/gpuisa/isa/tesla", "./isa/tesla", tables, *updateInitTables)
}
