package maxwell

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// TestRoundTripInsns assembles nvdisasm's text of every compiled instruction
// and expects the exact word back.
func TestRoundTripInsns(t *testing.T) {
	path := oracle.Path(t, "oracle/maxwell/insns.tsv")
	var tl tally
	readTSV(t, path, func(c []string) {
		want := parseHex(c[3])
		w, _, err := EncodeText(c[4], parseHex(c[2]), smOf(c[0]), nil)
		ok := err == nil && w == want
		d := ""
		if !ok {
			d = c[4] + ": " + hexOrErr(w, err) + " want " + hexOrErr(want, nil)
		}
		tl.add(mnemonic(c[4]), ok, d)
	})
	tl.report(t, "as(insns.tsv)", baseAsmInsns)
}

// TestRoundTripRandom assembles the text of every valid random word; bits the
// text does not show (fields no template covers, NaN payloads) may differ.
func TestRoundTripRandom(t *testing.T) {
	path := oracle.Path(t, "oracle/maxwell/random/rand_SM52_seed1.tsv.gz")
	var exact, care, same tally
	readTSV(t, path, func(c []string) {
		if c[3] == "INVALID" {
			return
		}
		want := parseHex(c[2])
		w, _, err := EncodeText(c[3], parseHex(c[1]), 52, nil)
		// whatever bits differ, the word must print as nvdisasm printed the original
		printsSame := false
		if err == nil {
			if inst, derr := Decode(w, NeutralCtrl, 52, parseHex(c[1])); derr == nil {
				printsSame = squeeze(Print(inst, parseHex(c[1]))) == squeeze(c[3])
			}
		}
		same.add(mnemonic(c[3]), printsSame, c[3])
		d := ""
		if err != nil || w != want {
			d = c[3] + ": " + hexOrErr(w, err) + " want " + hexOrErr(want, nil)
		}
		exact.add(mnemonic(c[3]), err == nil && w == want, d)
		ok := false
		if err == nil {
			inst, derr := Decode(want, NeutralCtrl, 52, 0)
			m := careMask(&forms[inst.form])
			ok = derr == nil && w&m == want&m
		}
		care.add(mnemonic(c[3]), ok, d)
	})
	exact.report(t, "as(random) exact", 0)
	care.report(t, "as(random) on care bits", baseAsmRandom)
	same.report(t, "as(random) prints as nvdisasm's text", same.total)
}

func hexOrErr(w uint64, err error) string {
	if err != nil {
		return err.Error()
	}
	return "0x" + string(appendUpperHexLower(nil, w))
}

func appendUpperHexLower(dst []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		dst = append(dst, digits[v>>(4*uint(i))&0xf])
	}
	return dst
}

// TestRoundTripZeroWord: the all-zero word decodes as "NOP;" under any
// control field (nvdisasm 11.8), the text alone assembles to the canonical
// NOP, and a listing whose hex column gives the zero word keeps it, in every
// slot, under control words nvdisasm would reject for any other instruction.
func TestRoundTripZeroWord(t *testing.T) {
	s := splitmixT(11)
	for k := 0; k < 2000; k++ {
		ctrl := Ctrl(s.next() & 0x1fffff)
		for _, sm := range []int{50, 52, 53} {
			inst, err := Decode(0, ctrl, sm, 8)
			if err != nil || Print(inst, 8) != "NOP;" {
				t.Fatalf("sm_%d ctrl %#x: %q %v", sm, ctrl, Print(inst, 8), err)
			}
		}
	}
	w, _, err := EncodeText("NOP;", 8, 52, nil)
	if err != nil || w == 0 {
		t.Fatalf("NOP; encodes to %#x %v, want the canonical NOP", w, err)
	}
	code := make([]byte, 3*BundleSize)
	for b := 0; b < 3; b++ {
		binary.LittleEndian.PutUint64(code[b*BundleSize:], s.next()&(1<<63-1))
		for slot := 0; slot < 3; slot++ {
			if slot != b {
				binary.LittleEndian.PutUint64(code[b*BundleSize+8+8*slot:], 0x5c9807800ff70003) // MOV R3, RZ
			}
		}
	}
	// fixed-latency MOVs may not take the random control fields: list only
	// the zero words' lines with their bundles' control lines
	var src []byte
	for b := 0; b < 3; b++ {
		src = fmt.Appendf(src, "/* 0x%016x */\n", binary.LittleEndian.Uint64(code[b*BundleSize:]))
		for slot := 0; slot < 3; slot++ {
			if slot == b {
				src = append(src, "        NOP;  /* 0x0000000000000000 */\n"...)
			} else {
				src = append(src, ".word 0x5c9807800ff70003\n"...)
			}
		}
	}
	got, err := Assemble("zero.s", src, 52)
	if err != nil || !bytes.Equal(got, code) {
		t.Fatalf("Assemble: %v\n% x\nwant\n% x\n%s", err, got, code, src)
	}
}
