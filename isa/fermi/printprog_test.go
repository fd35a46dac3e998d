package fermi

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/internal/listtest"
)

// TestTextRoom: the longest text of any form, over random words and the
// words with every operand bit set, stays well inside textRoom (the
// printer's word stores rely on it; a text past it would panic).
func TestTextRoom(t *testing.T) {
	longest, at := 0, uint64(0)
	try := func(raw uint64) {
		inst, err := DecodeWord(raw)
		if err != nil {
			return
		}
		for _, d := range []Dialect{New, Old} {
			if n := len(AppendTextDialect(nil, inst, 0xfffffff8, d)); n > longest {
				longest, at = n, raw
			}
		}
	}
	for fi := range forms {
		f := &forms[fi]
		try(f.value | ^f.mask&^8)
		try(f.value | ^f.mask&^8&^(3<<46))
		try(f.value | ^f.mask&0x0000ffffffffffff&^8)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		try(r.Uint64())
	}
	t.Logf("longest text %d bytes (%#016x)", longest, at)
	if longest > textRoom-32 {
		t.Errorf("a text of %d bytes (%#016x): textRoom %d leaves too little margin", longest, at, textRoom)
	}
}

// TestListingPaths: the in-place line writer and the append path (which
// addresses of more than 8 hex digits take) print the same lines in both
// dialects.
func TestListingPaths(t *testing.T) {
	code := randomValidCode(1 << 12)
	for _, d := range []Dialect{New, Old} {
		fast, _ := DisassembleDialect(nil, code, 0x1000, d)
		var slow []byte
		for off := 0; off < len(code); {
			inst, err := DecodeAt(code[off:], uint64(0x1000+off))
			if err != nil {
				t.Fatal(err)
			}
			slow = appendListingWide(slow, inst, uint64(0x1000+off), d)
			off += inst.Len()
		}
		if string(fast) != string(slow) {
			t.Errorf("%v: the in-place lines differ from the append path", d)
		}
	}
}

// oracleMillion is the oracle's sm_20 code repeated to 1M instructions.
func oracleMillion(b *testing.B) []byte {
	one := oracleCode(b)
	code := make([]byte, 0, 8<<20)
	for len(code) < 8<<20 {
		code = append(code, one[:min(len(one), 8<<20-len(code))]...)
	}
	return code
}

// BenchmarkWriteListingOracle is dis -arch sm_20 of 1M instructions of
// real code (the oracle's, repeated) to io.Discard, on every core.
func BenchmarkWriteListingOracle(b *testing.B) {
	listtest.BenchWrite(b, oracleMillion(b), 1<<20, writeListing)
}

// BenchmarkWriteListingOldRandom and ...OldOracle are the same in the
// CUDA 3.x/4.0 dialect (dis -dialect old).
func BenchmarkWriteListingOldRandom(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomValidCode(n), n, writeOld)
}

func BenchmarkWriteListingOldOracle(b *testing.B) {
	listtest.BenchWrite(b, oracleMillion(b), 1<<20, writeOld)
}

func writeOld(w io.Writer, code io.Reader, base uint64) error {
	return WriteListingFromDialect(w, code, base, Old, nil)
}

// BenchmarkListLine is one listing line at a time (no pipeline) of the
// oracle's code, per dialect: the printer's own cost.
func BenchmarkListLine(b *testing.B) {
	code := oracleCode(b)
	for _, d := range []Dialect{New, Old} {
		b.Run(d.String(), func(b *testing.B) {
			buf := make([]byte, 0, len(code)*16)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buf, _ = DisassembleDialect(buf[:0], code, 0, d)
			}
			b.ReportMetric(float64(b.N*len(code)/8)/b.Elapsed().Seconds()/1e6, "Minsn/s")
		})
	}
}

// TestDecodeKeys: decodeWord's in-place checks of composite sources
// accept exactly the words validOperands accepts.
func TestDecodeKeys(t *testing.T) {
	reference := func(raw uint64) (uint16, bool) {
		for _, fi := range formIndex[raw&7|raw>>58<<3] {
			if f := &forms[fi]; raw&f.mask == f.value && validOperands(fi, raw) {
				return fi, true
			}
		}
		return 0, false
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1 << 21 {
		raw := r.Uint64()
		if i&1 != 0 { // the register variant with its spare bits clear
			raw &^= 0x3fff << 32
		}
		if raw&8 != 0 {
			raw &= 0xffffffff
		}
		inst, ok := decodeWord(raw)
		if fi, want := reference(raw); ok != want || ok && inst.form != fi {
			t.Fatalf("%#016x: decodeWord %v form %d, validOperands %v form %d", raw, ok, inst.form, want, fi)
		}
	}
}
