package maxwell

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// TestAssembleListingInsns rebuilds the .text of every compiled function from
// insns.tsv (control words included), lists it with Disassemble and assembles
// the listing again: the bytes must come back exactly.
func TestAssembleListingInsns(t *testing.T) {
	path := oracle.Path(t, "oracle/maxwell/insns.tsv")
	type fn struct {
		sm   int
		code []byte
	}
	fns := map[string]*fn{}
	var order []string
	readTSV(t, path, func(c []string) {
		// arch kernel offset hex text opt ctrl21 ctrlword
		key := c[0] + " " + c[1] + " " + c[5]
		f := fns[key]
		if f == nil {
			f = &fn{sm: smOf(c[0])}
			fns[key] = f
			order = append(order, key)
		}
		off := int(parseHex(c[2]))
		for len(f.code) < off+8 {
			f.code = append(f.code, make([]byte, 8)...)
		}
		binary.LittleEndian.PutUint64(f.code[off:], parseHex(c[3]))
		binary.LittleEndian.PutUint64(f.code[off&^31:], parseHex(c[7]))
	})
	same, total := 0, 0
	for _, key := range order {
		f := fns[key]
		for len(f.code)%BundleSize != 0 {
			f.code = append(f.code, make([]byte, 8)...) // the oracle lists no padding rows
		}
		total++
		listing, errs := Disassemble(nil, f.code, 0, f.sm)
		if len(errs) > 0 {
			// zero padding after the last instruction has no valid control field
			t.Logf("%s: %d words do not decode (first %v)", key, len(errs), errs[0])
		}
		got, err := Assemble(key, listing, f.sm)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if string(got) != string(f.code) {
			for i := 0; i+8 <= len(got) && i+8 <= len(f.code); i += 8 {
				if a, b := binary.LittleEndian.Uint64(got[i:]), binary.LittleEndian.Uint64(f.code[i:]); a != b {
					t.Errorf("%s: offset %#x: assembled %#016x, want %#016x", key, i, a, b)
					break
				}
			}
			continue
		}
		same++
	}
	t.Logf("as(dis(.text)) identical for %d/%d functions", same, total)
	if same != total {
		t.Errorf("%d functions differ", total-same)
	}
}

// TestAssembleLabels: labels, branch targets and nvdisasm's ELF-style targets.
func TestAssembleLabels(t *testing.T) {
	src := `
        /* 0x001fc400fe2007f1 */
start:
        /*0008*/                   MOV R1, c[0x0][0x20] ;         /* 0x4c98078000870001 */
loop:   @P0 BRA loop ;
        BRA ` + "`(start)" + ` ;
`
	code, err := Assemble("t.s", []byte(src), 52)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, len(code)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(code[8*i:])
	}
	inst, _ := Decode(words[2], CtrlField(words[0], 1), 52, 0x10)
	if got := Print(inst, 0x10); got != "@P0 BRA 0x10 ;" {
		t.Errorf("loop branch prints %q", got)
	}
	inst, _ = Decode(words[3], CtrlField(words[0], 2), 52, 0x18)
	if got := Print(inst, 0x18); got != "BRA 0x8 ;" {
		t.Errorf("start branch prints %q", got)
	}
	if _, err := Assemble("bad.s", []byte("FOO R1 ;\nMOV R1, R2 ;\nMOV R1, R999 ;\n"), 52); err == nil ||
		!strings.Contains(err.Error(), "bad.s:1:") || !strings.Contains(err.Error(), "bad.s:3:") {
		t.Errorf("errors not reported with positions: %v", err)
	}
}

// A signalling double NaN immediate (nvdisasm prints "-SNAN ") assembles to
// a word that prints the same (found by mxdiff: DSETP with a 20-bit immediate).
func TestSNANImmediate(t *testing.T) {
	text := "@P0 DSETP.LEU.INVALIDBOP3 P5, P3, |R189|, -SNAN , !P3 ;"
	w, _, err := EncodeText(text, 0x118668, 52, nil)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := Decode(w, NeutralCtrl, 52, 0x118668)
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(inst, 0x118668); squeeze(got) != squeeze(text) {
		t.Fatalf("%#x prints %q", w, got)
	}
}

// TestAssembleBareWordMustDecode: a bare hex line where an instruction
// goes is that instruction's encoding (nvdisasm's VLIW layout lists some
// that way); when a listing line is missing, the next bundle's control
// line slides into an instruction's place and must be an error at its
// line, not a raw word that moves every later address (FuzzAs found it).
func TestAssembleBareWordMustDecode(t *testing.T) {
	bundle := "                                                  /* 0x001fc400fe2007f1 */\n" +
		"        /*0008*/                   MOV R1, c[0x0][0x20] ;         /* 0x4c98078000870001 */\n" +
		"        /*0010*/                   MOV R2, RZ ;                   /* 0x5c9807800ff70002 */\n"
	missing := bundle + "                                                  /* 0x007fbc03fde01fef */\n" +
		"        /*0028*/                   MOV R6, R2 ;                   /* 0x5c98078000270006 */\n"
	_, err := Assemble("k.s", []byte(missing), 52)
	if err == nil || !strings.Contains(err.Error(), "k.s:4:1: ") || !strings.Contains(err.Error(), "is an instruction line missing") {
		t.Fatalf("a control line in an instruction's place: got %v", err)
	}
	// the hidden word nvdisasm prints, and a word that decodes, stay
	for _, word := range []string{"0x0000000000000000", "0x5c98078000270006"} {
		src := bundle + "                                                  /* " + word + " */\n"
		code, err := Assemble("k.s", []byte(src), 52)
		if err != nil {
			t.Fatalf("bare %s: %v", word, err)
		}
		if got := fmt.Sprintf("%#016x", binary.LittleEndian.Uint64(code[24:])); got != word {
			t.Errorf("bare %s assembled as %s", word, got)
		}
	}
}
