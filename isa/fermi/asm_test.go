package fermi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/asm"
)

func words(ws ...uint64) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

func TestListingNew(t *testing.T) {
	code := words(0x2800440400005de4, 0x6000000140000007, 0x0000000f0000000f, 0x8000000000001de7)
	out, errs := Disassemble(nil, code, 0x100)
	want := "" +
		"        /*0100*/        MOV R1, c[0x1][0x100];                         /* 0x2800440400005de4 */\n" +
		"        /*0108*/        SSY 0x160;                                     /* 0x6000000140000007 */\n" +
		"        /*0110*/        .word 0x0000000f;                              /* 0x0000000f */\n" +
		"        /*0114*/        .word 0x0000000f;                              /* 0x0000000f */\n" +
		"        /*0118*/        EXIT;                                          /* 0x8000000000001de7 */\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if len(errs) != 2 || errs[0].Addr != 0x110 || errs[1].Addr != 0x114 || !errors.Is(errs[0], isa.ErrInvalid) {
		t.Errorf("errs = %v", errs)
	}
	// issue 11: the words that do not decode keep their place when the
	// listing is assembled (they were comments, which moved every later
	// address and branch)
	if back, err := Assemble("l.s", out); err != nil || !bytes.Equal(back, code) {
		t.Errorf("reassembled % x, %v; want % x", back, err, code)
	}
}

// TestListingShort: 4-byte forms advance the address by 4 and print 8 hex
// digits; a long form may follow at an address that is 4 mod 8.
func TestListingShort(t *testing.T) {
	code := []byte{0x28, 0x5c, 0x20, 0x00, 0x08, 0x1c, 0x00, 0x00}
	code = append(code, words(0x8000000000001de7)...)
	for d, want := range map[Dialect]string{
		New: "" +
			"        /*0000*/        MOV_N R1, R2;                                  /* 0x00205c28 */\n" +
			"        /*0004*/        NOP_N;                                         /* 0x00001c08 */\n" +
			"        /*0008*/        EXIT;                                          /* 0x8000000000001de7 */\n",
		Old: "" +
			"\t/*0000*/     /*0x00205c28*/ \tMOV_N R1, R2;\n" +
			"\t/*0004*/     /*0x00001c08*/ \tNOP_N;\n" +
			"\t/*0008*/     /*0x00001de780000000*/ \tEXIT;\n",
	} {
		out, errs := DisassembleDialect(nil, code, 0, d)
		if string(out) != want || len(errs) != 0 {
			t.Errorf("%v: got\n%s\nwant\n%s%v", d, out, want, errs)
		}
		back, err := Assemble("s.s", out)
		if err != nil || !bytes.Equal(back, code) {
			t.Errorf("%v: reassembled %x, %v", d, back, err)
		}
	}
}

func TestListingOld(t *testing.T) {
	out, _ := DisassembleDialect(nil, words(0x2800440400005de4), 0, Old)
	want := "\t/*0000*/     /*0x00005de428004404*/ \tMOV R1, c [0x1] [0x100];\n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestListingTruncated(t *testing.T) {
	_, errs := Disassemble(nil, append(words(0x8000000000001de7), 1, 2, 3), 0)
	if len(errs) != 1 || errs[0].Addr != 8 || !errors.Is(errs[0], isa.ErrTruncated) {
		t.Fatalf("errs = %v", errs)
	}
}

// TestAssembleListings reads both cuobjdump styles and ours, with labels.
func TestAssembleListings(t *testing.T) {
	src := `
	code for sm_20
		Function : _Z3fooPi
	/*0000*/     /*0x00005de428004404*/ 	MOV R1, c [0x1] [0x100];
        /*0008*/        S2R R0, SR_TID.X;      /* 0x2c00000084001c04 */
loop:	ISETP.NE.AND P0, pt, R0, RZ, pt;   // comment
	@P0 BRA loop;
	SSY done
	BRA 0x30; BRA.U done;
done:
	EXIT ;
		.....................................
`
	got, err := Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := words(0x2800440400005de4, 0x2c00000084001c04, 0x1a8e0000fc01dc23, 0x4003ffffc00001e7,
		0x6000000040000007, 0x4000000000001de7, 0x4000000000009de7, 0x8000000000001de7)
	if !bytes.Equal(got, want) {
		for i := 0; i+8 <= len(got); i += 8 {
			t.Logf("%#016x", binary.LittleEndian.Uint64(got[i:]))
		}
		t.Fatal("wrong code")
	}
	// and our own listing of it assembles to the same bytes
	list, _ := Disassemble(nil, got, 0)
	again, err := Assemble("list.s", list)
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("listing does not reassemble: %v", err)
	}
}

func TestAssembleAtBase(t *testing.T) {
	code := words(0x6000000140000007, 0x40000000000001e7, 0x8000000000001de7) // SSY, @P0 BRA, EXIT
	list, _ := Disassemble(nil, code, 0x1000)
	if !strings.Contains(string(list), "SSY 0x1058;") {
		t.Fatalf("listing:\n%s", list)
	}
	again, err := Assemble("l.s", list)
	if err != nil || !bytes.Equal(again, code) {
		t.Fatalf("reassembled %x, %v", again, err)
	}
}

func TestAssembleErrors(t *testing.T) {
	src := "FROB R1, R2;\nIADD R1, R2;\n  IADD R1, R2, R3, R4;\nSSY 0x10;\n@P0 SSY 0x10;\nBRA nowhere;\nx: NOP;\nx: NOP;\nMOV R99, R1;\nISETP.LT.BOGUS P0, PT, R1, R2, PT;\n"
	_, err := Assemble("bad.s", []byte(src))
	var el asm.ErrorList
	if !errors.As(err, &el) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	want := []string{
		"bad.s:1:1: unknown instruction",
		"bad.s:2:10: IADD: missing operand 3",
		"bad.s:3:20: IADD: too many operands",
		"bad.s:5:1: SSY cannot be predicated",
		"bad.s:6:5: operand \"nowhere\": unknown label",
		"bad.s:8:1: label x defined twice",
		"bad.s:9:5: operand \"R99\": want a register",
		"bad.s:10:1: ISETP.LT.BOGUS: bad or missing modifier",
	}
	if len(el) != len(want) {
		t.Errorf("got %d errors, want %d:\n%v", len(el), len(want), err)
	}
	for i, w := range want {
		if i < len(el) && !strings.HasPrefix(el[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, el[i].Error(), w)
		}
	}
}

func TestArchs(t *testing.T) {
	as := Archs()
	if len(as) != 2 || as[0].Name != "sm_20" || as[1].Name != "sm_21" || as[1].SMVersion != 21 {
		t.Fatalf("Archs() = %+v", as)
	}
	for _, a := range as {
		code, err := a.Assemble("x.s", []byte("EXIT;"))
		if err != nil {
			t.Fatal(err)
		}
		out, errs := a.Disassemble(nil, code, 0)
		if len(errs) != 0 || !strings.Contains(string(out), "EXIT;") {
			t.Fatalf("%s: %q %v", a.Name, out, errs)
		}
	}
}

func TestAssembleDotLabels(t *testing.T) {
	src := "\t\tFunction : k\n.L_1:\r\n\t@P0 BRA .L_1;\r\n\t.headerflags @\"EF_CUDA_SM20\"\n\tEXIT;\n"
	got, err := Assemble("d.s", []byte(src))
	if err != nil || !bytes.Equal(got, words(0x4003ffffe00001e7, 0x8000000000001de7)) {
		t.Fatalf("%x, %v", got, err)
	}
}

func TestDetectDialect(t *testing.T) {
	for _, c := range []struct {
		src  string
		want Dialect
	}{
		{"ISETP.NE.AND P0, pt, R0, RZ, pt;", Old},
		{"@!pt BRA 0x10;", Old},
		{"MOV R1, c [0x1] [0x100];", Old},
		{"S2R R0, SR_Tid_X;", Old},
		{"ISETP.NE.AND P0, PT, R0, RZ, PT;", New},
		{"ptr: BRA ptr;\nopt: EXIT;", New},
		{"MOV R1, c[0x1][0x100];", New},
	} {
		if got := DetectDialect([]byte(c.src)); got != c.want {
			t.Errorf("DetectDialect(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}
