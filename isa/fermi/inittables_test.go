package fermi

import (
	"flag"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
)

// The generator of inittables.go: the package's tables that were computed
// at start-up, written as Go literals so that every gpuisa command starts
// without computing them (the CLI imports every ISA). Each is made by its
// build function from the forms and tables of tables.go; go generate builds
// with -tags initboot, which computes them instead (inittables_boot.go), so
// a spec change that leaves the literals stale or not compiling cannot
// stop it.

var updateInitTables = flag.Bool("inittables", false, "rewrite inittables.go from the tables' build functions")

// initTables lists the tables inittables.go declares.
func initTables() []gentest.Table {
	return []gentest.Table{
		{Name: "hasAlias", Doc: "hasAlias says, per form, that it has a New spelling (printForm's check\nwithout loading the form). Made by buildHasAlias.", Value: buildHasAlias(), From: "buildHasAlias()"},
		{Name: "formKeys", Doc: "formKeys is formIndex with each form's key in place (one cache line\nper few candidates instead of one per form). Made by buildFormKeys.", Value: buildFormKeys(), From: "buildFormKeys()"},
		{Name: "reservedValues", Doc: "reservedValues has, per table, a bit for every \"?\" (invalid) entry.\nMade by buildReservedValues.", Value: buildReservedValues(), From: "buildReservedValues()"},
		{Name: "formChecks", Doc: "formChecks is indexed by form; derived from the tables by\nbuildFormChecks.", Value: buildFormChecks(), From: "buildFormChecks()"},
		{Name: "pairShift", Doc: "pairShift is, for each entry of the lduld table (\".U8.S16\" = LD part\nU8, LDU part S16), the log2 size of each part's data: both halves of\nLD_LDU and LDS_LDU count their offsets in units of their own size. Made\nby buildPairShift.", Value: buildPairShift(), From: "buildPairShift()"},
		{Name: "hexPairs", Doc: "hexPairs spells every byte as two hex digits: the listing's hex columns\nare most of its digits, and a pair per step halves the work. Made by\nbuildHexPairs.", Value: buildHexPairs(), From: "buildHexPairs()"},
		{Name: "hexPairWords", Doc: "hexPairWords is hexPairs as little-endian 16-bit words. Made by\nbuildHexPairWords.", Value: buildHexPairWords(), From: "buildHexPairWords()"},
		{Name: "tableWords", Doc: "tableWords are the tables' entries packed (n = 255: longer than 16\nbytes, printed from the string). Made by buildTableWords.", Value: buildTableWords(), From: "buildTableWords()"},
		{Name: "regWords", Doc: "regWords spells R0..R62 and RZ, the length in the top byte. Made by\nbuildRegWords.", Value: buildRegWords(), From: "buildRegWords()"},
		{Name: "predWords", Doc: "predWords spells P0..P6 and PT (pt in the Old dialect) per dialect.\nMade by buildPredWords.", Value: buildPredWords(), From: "buildPredWords()"},
	}
}

// TestInitTables checks inittables.go is what the build functions make
// now, or rewrites it with -inittables (go generate does).
func TestInitTables(t *testing.T) {
	gentest.InitTables(t, "fermi", "github.com/gpuisa/gpuisa/isa/fermi", "./isa/fermi", initTables(), *updateInitTables)
}
