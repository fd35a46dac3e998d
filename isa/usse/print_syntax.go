package usse

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/gpuisa/gpuisa/isa"
)

// The syntax printers (print_gen.go, generated from usse.spec with
// tables.go) print one syntax each in straight-line code: the elements the
// interpreter (appendElems) walks and switches on one by one are unrolled
// with their fields and tables as constants, literals as word stores, and
// the common elements (enums, registers, small numbers, one-character
// modifiers) written without a branch on the value, which random words
// mispredict. The other elements call the interpreter's own code
// (appendElem), so each element still has one meaning;
// TestSyntaxPrintersAgree checks the two print the same bytes.

// syntaxPrinter prints in with one syntax; flags says whether any of the
// syntax's flags differ from their defaults.
type syntaxPrinter func(dst []byte, in *Inst, flags bool, pt *printTables) []byte

// printTables are the tables the syntax printers read, made on first use.
type printTables struct {
	reg [len(regTableKeys)][]regEntry
}

// regTableKey names a register table: bank table, bits of the bank index
// (bank field and extension), bits of the number field, numbering factor.
type regTableKey struct {
	banks, bankBits, numBits, mult uint8
}

// regEntry is a register's text padded to 23 bytes, then its length, with
// regImm set when it is an immediate (regx prints no ".x" then).
type regEntry [24]byte

const regImm = 0x80

var syntaxTables = sync.OnceValue(func() *printTables {
	pt := new(printTables)
	for ti, k := range regTableKeys {
		t := make([]regEntry, 1<<(k.bankBits+k.numBits))
		for i := range t {
			bi, num := i>>k.numBits, uint32(i)&(1<<k.numBits-1)
			s := appendRegAt(nil, k.banks, k.numBits, bi, num, uint64(k.mult))
			if len(s) > 23 {
				panic("usse: register text " + string(s) + " longer than a regEntry") // fixed tables: any test meets it
			}
			t[i][23] = uint8(copy(t[i][:23], s))
			if bi < 8 && bankKinds[k.banks][bi] == bkImm {
				t[i][23] |= regImm
			}
		}
		pt.reg[ti] = t
	}
	return pt
})

// appendRegEntry appends a register's text (one 24-byte store) and says
// whether it was an immediate.
func appendRegEntry(dst []byte, e *regEntry) []byte {
	n := len(dst)
	if cap(dst)-n < 24 {
		dst = slices.Grow(dst, 24)
	}
	*(*regEntry)(dst[n : n+24]) = *e
	return dst[:n+int(e[23]&^regImm)]
}

// appendLit8 appends a literal of n <= 8 bytes held in w (first byte
// lowest) as one store.
func appendLit8(dst []byte, w uint64, n int) []byte {
	l := len(dst)
	if cap(dst)-l < 8 {
		dst = slices.Grow(dst, 8)
	}
	binary.LittleEndian.PutUint64(dst[l:l+8], w)
	return dst[:l+n]
}

// appendCharIf appends c when v is not 0, without a branch on v.
func appendCharIf(dst []byte, c byte, v uint32) []byte {
	l := len(dst)
	if cap(dst)-l < 1 {
		dst = slices.Grow(dst, 1)
	}
	dst = dst[:l+1]
	dst[l] = c
	return dst[:l+int(b2u(v != 0))]
}

// appendDecW appends v in decimal; below 1000 from decWords, one store.
func appendDecW(dst []byte, v uint32) []byte {
	if v >= 1000 {
		return isa.AppendDec(dst, uint64(v))
	}
	l := len(dst)
	if cap(dst)-l < 4 {
		dst = slices.Grow(dst, 4)
	}
	d := decWords[v]
	binary.LittleEndian.PutUint32(dst[l:l+4], d)
	return dst[:l+int(d>>24)]
}

// pfxTexts[t][v] is a pfx element's text: enum entry v of table t and a
// blank, or nothing for an empty entry.
var pfxTexts = func() (t [len(enumTables)][]shortText) {
	for ti, names := range enumTables {
		t[ti] = make([]shortText, len(names))
		for i := range names {
			e := elem{kind: kPfx, table: uint8(ti), f: [16]int8{0}}
			t[ti][i] = newShortText(string(appendElem(nil, nil, &e, &Inst{Args: [MaxFields]uint32{uint32(i)}})))
		}
	}
	return t
}()

// maskTexts[m] is write mask m as appendMaskChans prints it.
var maskTexts = func() (t [16]shortText) {
	for m := range t {
		t[m] = newShortText(string(appendMaskChans(nil, uint32(m))))
	}
	return t
}()

// flagBuf makes room for k flags (flagRoom bytes each) after dst and
// returns it with its length: the flags are written by putFlag and
// putFlagBit and kept by moving the end.
func flagBuf(dst []byte, k int) ([]byte, int) {
	n := len(dst)
	return slices.Grow(dst, k*flagRoom)[:n+k*flagRoom], n
}

// putFlag writes a valued flag (prefix lo, hi of plen bytes, then value
// v) at b[n:] and returns the new end: past it when v is not the default
// def, else n (appendFlags' rule).
func putFlag(b []byte, n int, v, def uint32, lo, hi uint64, plen int) int {
	binary.LittleEndian.PutUint64(b[n:n+8], lo)
	binary.LittleEndian.PutUint64(b[n+8:n+16], hi)
	m := n + plen
	if v >= 1000 { // one branch, rarely taken
		m = len(isa.AppendDec(b[:m], uint64(v)))
	} else {
		d := decWords[v]
		binary.LittleEndian.PutUint32(b[m:m+4], d)
		m += int(d >> 24)
	}
	if v != def {
		n = m
	}
	return n
}

// putFlagBit writes a one-bit flag whose default is 0 (prefix alone) and
// keeps it when v is 1.
func putFlagBit(b []byte, n int, v uint32, lo, hi uint64, plen int) int {
	binary.LittleEndian.PutUint64(b[n:n+8], lo)
	binary.LittleEndian.PutUint64(b[n+8:n+16], hi)
	return n + plen&-int(v&1)
}
