package maxwell

import (
	"flag"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
)

var writeInitTables = flag.Bool("inittables", false, "write inittables.go from the tables' builders")

// TestInitTables: inittables.go holds, as literals, the tables the package
// would otherwise compute when every program starts; they are what their
// builders make of the generated tables. With -inittables it writes the
// file (go generate ./isa/maxwell, after internal/gen).
func TestInitTables(t *testing.T) {
	guardWords, predWords := buildGuardPredWords()
	lits := []gentest.Table{
		{Name: "tableToks", Doc: "tableToks lists each form's table tokens: the ones Decode checks for\nvalues nvdisasm calls undefined (buildTableToks).", Value: buildTableToks()},
		{Name: "rejectToks", Doc: "rejectToks lists each form's table tokens whose table has values\nnvdisasm rejects: the ones Decode checks (buildRejectToks).", Value: buildRejectToks()},
		{Name: "formFacts", Doc: "formFacts says per form what the listing needs to know before printing\n(buildFormFacts).", Value: buildFormFacts()},
		{Name: "textBound", Doc: "textBound is the longest text of each form, or noBound (buildTextBound).", Value: buildTextBound()},
		{Name: "tableLits", Doc: "tableLits are the packed texts of tables[t].entries[v] (buildTableLits).", Value: buildTableLits()},
		{Name: "guardWords", Doc: "guardWords are the guard texts by the 4-bit field (buildGuardPredWords).", Value: guardWords},
		{Name: "predWords", Doc: "predWords are the predicate names (buildGuardPredWords).", Value: predWords},
		{Name: "regWords", Doc: "regWords are the register names, each packed in a word (buildRegWords).", Value: buildRegWords()},
		{Name: "notBlank", Doc: "notBlank is 1 for the bytes squeeze keeps (buildNotBlank).", Value: buildNotBlank()},
		{Name: "hexVals", Doc: "hexVals is the value of each hex digit, 16 for other bytes (buildHexVals).", Value: buildHexVals()},
		{Name: "pow5", Doc: "pow5 holds 5^k for every k whose power fits in 64 bits (buildPow5).", Value: buildPow5()},
		{Name: "pow5w", Doc: "pow5w[q] is 5^q as four little-endian words (buildPow5w).", Value: buildPow5w()},
		{Name: "pow10w", Doc: "pow10w[p] is 10^p for p ≤ 38 (buildPow10w).", Value: buildPow10w()},
		{Name: "blankBlock", Doc: "blankBlock is what fillBlanks copies from (buildBlankBlock).", Value: buildBlankBlock()},
	}
	src, err := gentest.Literals(gentest.InitTablesCmd, "maxwell", "github.com/gpuisa/gpuisa/isa/maxwell", lits)
	gentest.WriteOrCheck(t, "inittables.go", src, err, "./isa/maxwell", *writeInitTables)
}
