package usse

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
	"github.com/gpuisa/gpuisa/isa/usse/internal/gen"
)

// TestPrintGenCurrent fails when print_gen.go is not what usse.spec
// generates.
func TestPrintGenCurrent(t *testing.T) {
	src, err := os.ReadFile("usse.spec")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.GeneratePrinters(src)
	gentest.Current(t, "print_gen.go", want, err, "./isa/usse")
}

// interpText is appendText with every syntax interpreted element by
// element (appendSyntax), as the printer worked before print_gen.go.
func interpText(dst []byte, in *Inst) []byte {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return appendRaw(dst, in.Raw)
	}
	f := &forms[in.Form]
	vi := f.variantIndex(in)
	if vi < 0 {
		return appendRaw(dst, in.Raw)
	}
	fd := &flagDefaults[in.Form][vi]
	flags := in.Raw&fd.mask != fd.bits
	if int(in.Form) == dualForms[0] || int(in.Form) == dualForms[1] {
		return appendDualText(dst, f, &f.variants[vi], vi, in, flags)
	}
	return appendSyntax(dst, f, vi, in, flags)
}

// checkSyntaxPrinter reports whether w prints the same through the syntax
// printers and the interpreter.
func checkSyntaxPrinter(t *testing.T, w uint64) bool {
	t.Helper()
	in, err := DecodeWord(w, 0)
	if err != nil {
		return true
	}
	got, want := appendText(nil, &in), interpText(nil, &in)
	if !bytes.Equal(got, want) {
		t.Errorf("%#016x (%s): syntax printer %q, interpreter %q", w, in.Name(), got, want)
		return false
	}
	return true
}

// TestSyntaxPrintersAgree: the generated printers print exactly what the
// interpreter prints, for 20,000 random words of every form (its fixed bits,
// every syntax reached), for random valid words, and for the oracle's code.
func TestSyntaxPrintersAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	failed := 0
	check := func(w uint64) {
		if !checkSyntaxPrinter(t, w) {
			if failed++; failed > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	for fi := range forms {
		f := &forms[fi]
		seen := make([]int, len(f.variants))
		for i := 0; i < 20000; i++ {
			w := f.value | r.Uint64()&^f.mask
			if in, err := DecodeWord(w, 0); err == nil && int(in.Form) == fi {
				seen[f.variantIndex(&in)]++
			}
			check(w)
		}
		for vi, n := range seen {
			if n == 0 {
				t.Errorf("form %s: no random word printed with syntax %d", f.name, vi)
			}
		}
	}
	code := randomValidCode(1 << 16)
	for i := 0; i+Len <= len(code); i += Len {
		check(binary.LittleEndian.Uint64(code[i:]))
	}
	if testing.Short() {
		return
	}
	for _, w := range allOracleWords(t) {
		check(w.word)
	}
}

// TestAppendDec32 checks appendDec32 against strconv at every length.
func TestAppendDec32(t *testing.T) {
	for _, v := range []uint32{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 123456, 999999, 1000000, 9999999,
		10000000, 99999999, 100000000, 999999999, 1000000000, 2252953843, 4294967295} {
		got := string(appendDec32([]byte("x"), v))
		if want := "x" + strconv.FormatUint(uint64(v), 10); got != want {
			t.Errorf("appendDec32(%d) = %q, want %q", v, got, want)
		}
	}
}

// BenchmarkSyntaxTables is the cost of the printers' tables, paid once by
// the first word a process prints.
func BenchmarkSyntaxTables(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buildSyntaxTables()
	}
}
