package usse

import (
	"flag"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
)

var updateInitTables = flag.Bool("inittables", false, "rewrite inittables.go from the functions that compute its tables")

// initTables are the package's tables that its build functions compute
// from the generated ones: inittables.go holds their values as literals,
// so that a program does not compute them when it starts (every gpuisa
// command started with 0.85 ms of them). go generate builds with -tags
// initboot, which computes them instead (inittables_boot.go): a spec
// change that leaves the literals stale, or not compiling, cannot stop it.
func initTables() []gentest.Table {
	return []gentest.Table{
		{Name: "regTablesValue", Value: buildRegTables(), Doc: "regTablesValue are the syntax printers' register tables (printTables.reg).", From: "buildRegTables()"},
		{Name: "flagRunTablesValue", Value: buildFlagRunTables(), Doc: "flagRunTablesValue are the syntax printers' flag-run tables (printTables.flags).", From: "buildFlagRunTables()"},
		{Name: "flagOpsTable", Value: *buildFlagOps(), Doc: "flagOpsTable is flagOps's table.", From: "*buildFlagOps()"},
		{Name: "constFirstTable", Value: *buildConstFirst(), Doc: "constFirstTable is constFirst's table.", From: "*buildConstFirst()"},
		{Name: "dualSwzFirstTable", Value: *buildDualSwzFirst(), Doc: "dualSwzFirstTable is dualSwzFirst's table.", From: "*buildDualSwzFirst()"},
		{Name: "dualOpndSatsTable", Value: *buildDualOpndSats(), Doc: "dualOpndSatsTable is dualOpndSats's table.", From: "*buildDualOpndSats()"},
		{Name: "dualTryListsTable", Value: *buildDualTryLists(), Doc: "dualTryListsTable is dualTryLists's table.", From: "*buildDualTryLists()"},
		{Name: "dualOps", Value: buildDualOps(), Doc: "dualOps holds dualInfo for both operation tables (read-only).", From: "buildDualOps()"},
		{Name: "chanIndex", Value: buildChanIndex(), Doc: "chanIndex numbers the swizzle characters as swizzleChans does.", From: "buildChanIndex()"},
		{Name: "constValues", Value: buildConstValues(), Doc: "constValues[half][channel][n] is constValueSlow, tabulated once\n(read-only afterwards).", From: "buildConstValues()"},
		{Name: "decoders", Value: buildDecoders(), Doc: "decoders holds each form's validity tests (formDecoder).", From: "buildDecoders()"},
		{Name: "groupMatches", Value: buildGroupMatches(), Doc: "groupMatches lists groups' forms by op1 in spec order, compact so that\nthe decoder's first-match loop reads no form structs.", From: "buildGroupMatches()"},
		{Name: "dualSwzStates", Value: buildDualSwzStates(), Doc: "dualSwzStates[vec4][all][idx] is bit 0: swizzle entry idx is defined\n(dualSwzDefined), bit 1: its full text names it (dualNamed, all: among\nall 32 entries).", From: "buildDualSwzStates()"},
		{Name: "dualSwzDefined", Value: buildDualSwzDefined(), Doc: "dualSwzDefined[vec4] has bit i set when entry i of the vec3 (0) or vec4\n(1) swizzle table is defined (not \"?\"): srcSwizzle's test without a\nstring compare.", From: "buildDualSwzDefined()"},
		{Name: "dualRegWords", Value: buildDualRegWords(), Doc: "dualRegWords[bank][num] is a register's name and number (bank below\ndbIdx1, number below 256) packed (isa.TextWord): appendDualOpnd's text.", From: "buildDualRegWords()"},
		{Name: "dualFlagWords", Value: buildDualFlagWords(), Doc: "dualFlagWords[k] is \".\" and dual field k's name packed (isa.TextWord).", From: "buildDualFlagWords()"},
		{Name: "dualNoFlags", Value: buildDualNoFlags(), Doc: "dualNoFlags is dualText.fixed with no field printed as a flag.", From: "buildDualNoFlags()"},
		{Name: "dualForms", Value: buildDualForms(), Doc: "dualForms are the form indices of the two dual-issue groups.", From: "buildDualForms()"},
		{Name: "dualSrcReqs", Value: buildDualSrcReqs(), Doc: "dualSrcReqs[i1][i2][cfg] is dualSrcReq of operations i1, i2 (read-only).", From: "buildDualSrcReqs()"},
		{Name: "dualLetterCodes", Value: buildDualLetterCodes(), Doc: "dualLetterCodes[c] is c's index in dualSwzLetters, or 0xff.", From: "buildDualLetterCodes()"},
		{Name: "dualIdxByForm", Value: buildDualIdxByForm(), Doc: "dualIdxByForm holds dualIdx for every form, computed once from the\ngenerated tables (read-only afterwards).", From: "buildDualIdxByForm()"},
		{Name: "dualWidthByForm", Value: buildDualWidthByForm(), Doc: "dualWidthByForm[form][k] is the width of dual field k in the form (0\nwhen absent; read-only).", From: "buildDualWidthByForm()"},
		{Name: "dualArgIdxByForm", Value: buildDualArgIdxByForm(), Doc: "dualArgIdxByForm holds dualArgIdx of dualIdxByForm (read-only).", From: "buildDualArgIdxByForm()"},
		{Name: "dualLayouts", Value: buildDualLayouts(), Doc: "dualLayouts splits the layout tables by source counts and configuration\nonce (read-only afterwards).", From: "buildDualLayouts()"},
		{Name: "dualUsedSets", Value: buildDualUsedSets(), Doc: "dualUsedSets[c1-1][uses] is the set of dual fields used reports for a\nfirst operation with c1 sources and layout letters uses (read-only).", From: "buildDualUsedSets()"},
		{Name: "maskChans", Value: buildMaskChans(), Doc: "maskChans is each write mask as operand channels (\".x-z\" without the dot).", From: "buildMaskChans()"},
		{Name: "dualPrefixLen", Value: buildDualPrefixLen(), Doc: "dualPrefixLen[vec4][span][idx][m] is how many channels of dual swizzle\nentry idx srcOpnd prints when the operation reads m: the shortest prefix,\nm or longer, whose first entry in the span is idx (read-only).", From: "buildDualPrefixLen()"},
		{Name: "dualSwzChans", Value: buildDualSwzChans(), Doc: "dualSwzChans[vec4][span][idx][m] is the first dualPrefixLen channels of\ndual swizzle entry idx (read-only).", From: "buildDualSwzChans()"},
		{Name: "dualNamed", Value: buildDualNamed(), Doc: "dualNamed[vec4][all][idx] reports whether the full text of dual swizzle\nentry idx names it among the standard entries (all: among all 32).", From: "buildDualNamed()"},
		{Name: "flagDefaults", Value: buildFlagDefaults(), Doc: "flagDefaults holds, per form and syntax, the word bits of the fields the\nsyntax prints as flags and their values when every flag is at its\ndefault: a word with those bits prints no flags.", From: "buildFlagDefaults()"},
		{Name: "decWords", Value: buildDecWords(), Doc: "decWords[v] is v < 1000 in decimal, the digits from the low byte up,\ntheir count in the top byte.", From: "buildDecWords()"},
		{Name: "regWords", Value: buildRegWords(), Doc: "regWords[k][n] spells register n of bank4[k] as one word (isa.TextWord).", From: "buildRegWords()"},
		{Name: "pfxTexts", Value: buildPfxTexts(), Doc: "pfxTexts[t][v] is a pfx element's text: enum entry v of table t and a\nblank, or nothing for an empty entry.", From: "buildPfxTexts()"},
		{Name: "maskTexts", Value: buildMaskTexts(), Doc: "maskTexts[m] is write mask m as appendMaskChans prints it.", From: "buildMaskTexts()"},
		{Name: "swzPrefixLen", Value: buildSwzPrefixLen(), Doc: "swzPrefixLen[t][idx][m] is how many channels of entry idx of swizzle\ntable t the printer shows when the mask needs at least m: the shortest\nprefix, m or longer, whose first entry with that prefix is the entry.", From: "buildSwzPrefixLen()"},
		{Name: "swzDotTexts", Value: buildSwzDotTexts(), Doc: "swzDotTexts[t][idx][m] is '.' and the swizzlePrefixOf text of entry idx\nof swizzle table t for a mask needing m channels.", From: "buildSwzDotTexts()"},
		{Name: "v4HasPrefix", Value: buildV4HasPrefix(), Doc: "v4HasPrefix[idx][n] reports whether some v4 entry starts with the first\nn channels of v3 entry idx (VMAD's \".vec3\" marker test).", From: "buildV4HasPrefix()"},
		{Name: "bankKinds", Value: buildBankKinds(), Doc: "bankKinds[t][i] is the kind of entry i of bank table t.", From: "buildBankKinds()"},
		{Name: "enumTexts", Value: buildEnumTexts(), Doc: "enumTexts[t][v] is enumTables[t][v] as a shortText.", From: "buildEnumTexts()"},
	}
}

// TestInitTables fails when inittables.go is not what the build functions
// compute now; -inittables rewrites it (go generate does).
func TestInitTables(t *testing.T) {
	gentest.InitTables(t, "usse", "github.com/gpuisa/gpuisa/isa/usse", "./isa/usse", initTables(), *updateInitTables)
}
