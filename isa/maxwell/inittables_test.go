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
// file and inittables_boot.go (go generate ./isa/maxwell, after
// internal/gen, builds with -tags initboot, which computes the tables
// instead: stale literals cannot stop it).
func TestInitTables(t *testing.T) {
	lits := []gentest.Table{
		{Name: "tableToks", Doc: "tableToks lists each form's table tokens: the ones Decode checks for\nvalues nvdisasm calls undefined (buildTableToks).", Value: buildTableToks(), From: "buildTableToks()"},
		{Name: "rejectToks", Doc: "rejectToks lists each form's table tokens whose table has values\nnvdisasm rejects: the ones Decode checks (buildRejectToks).", Value: buildRejectToks(), From: "buildRejectToks()"},
		{Name: "formFacts", Doc: "formFacts says per form what the listing needs to know before printing\n(buildFormFacts).", Value: buildFormFacts(), From: "buildFormFacts()"},
		{Name: "textBound", Doc: "textBound is the longest text of each form, or noBound (buildTextBound).", Value: buildTextBound(), From: "buildTextBound()"},
		{Name: "tableLits", Doc: "tableLits are the packed texts of tables[t].entries[v] (buildTableLits).", Value: buildTableLits(), From: "buildTableLits()"},
		{Name: "guardWords", Doc: "guardWords are the guard texts by the 4-bit field (buildGuardWords).", Value: buildGuardWords(), From: "buildGuardWords()"},
		{Name: "predWords", Doc: "predWords are the predicate names (buildPredWords).", Value: buildPredWords(), From: "buildPredWords()"},
		{Name: "regWords", Doc: "regWords are the register names, each packed in a word (buildRegWords).", Value: buildRegWords(), From: "buildRegWords()"},
		{Name: "notBlank", Doc: "notBlank is 1 for the bytes squeeze keeps (buildNotBlank).", Value: buildNotBlank(), From: "buildNotBlank()"},
		{Name: "hexVals", Doc: "hexVals is the value of each hex digit, 16 for other bytes (buildHexVals).", Value: buildHexVals(), From: "buildHexVals()"},
		{Name: "pow5", Doc: "pow5 holds 5^k for every k whose power fits in 64 bits (buildPow5).", Value: buildPow5(), From: "buildPow5()"},
		{Name: "pow5w", Doc: "pow5w[q] is 5^q as four little-endian words (buildPow5w).", Value: buildPow5w(), From: "buildPow5w()"},
		{Name: "pow10w", Doc: "pow10w[p] is 10^p for p ≤ 38 (buildPow10w).", Value: buildPow10w(), From: "buildPow10w()"},
		{Name: "blankBlock", Doc: "blankBlock is what fillBlanks copies from (buildBlankBlock).", Value: buildBlankBlock(), From: "buildBlankBlock()"},
	}
	gentest.InitTables(t, "maxwell", "github.com/gpuisa/gpuisa/isa/maxwell", "./isa/maxwell", lits, *writeInitTables)
}
