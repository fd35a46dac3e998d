//go:build printgen_bootstrap

package tesla

// formPrinters is empty when printgen.go is left out: with the tag
// printgen_bootstrap the package builds even when the generated file no
// longer does (a helper it calls was renamed), so that
// go test -tags printgen_bootstrap ./isa/tesla -run TestPrintGen -printgen
// can write it again. Nothing prints in such a build.
var formPrinters []func(b *textBuf, p int, v uint64, t *memTextTables) int
