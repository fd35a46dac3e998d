package tesla

import (
	"bufio"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"
)

// goldenCode reads the instructions of testdata/golden.txt in memory order:
// 4 bytes for 8 hex digits (short and 32-bit flow), else 8.
func goldenCode(t testing.TB) [][]byte {
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		h, _, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.HasPrefix(h, "#") {
			continue
		}
		h = strings.TrimPrefix(h, "0x")
		v, err := strconv.ParseUint(h, 16, 64)
		if err == nil {
			out = append(out, binary.LittleEndian.AppendUint64(nil, v)[:len(h)/2])
		}
	}
	return out
}

// canonical is what the assembler writes back for a decoded value: no exit
// marker (it comes from context) and don't-care bits as NVIDIA fills them.
func canonical(inst Inst) uint64 {
	f := &forms[inst.Form]
	return clearExit(inst.Raw)&^f.ignore | f.fill
}

// FuzzDecode: decoding never panics, and whatever decodes prints text that
// assembles back to the same bits.
func FuzzDecode(f *testing.F) {
	for _, c := range goldenCode(f) {
		f.Add(c)
	}
	f.Add([]byte{0x03, 0xfe, 0x1f, 0x86})
	f.Fuzz(func(t *testing.T, b []byte) {
		inst, err := Decode(b, 0)
		if err != nil {
			if inst.Len == 0 && len(b) > 0 {
				t.Fatalf("error without a length to skip: %v", err)
			}
			return
		}
		if inst.Len != 4 && inst.Len != 8 {
			t.Fatalf("length %d", inst.Len)
		}
		text := Print(inst, 0)
		v, n, err := AssembleInst(text)
		if err != nil || v != canonical(inst) || n != int(inst.Len) {
			t.Fatalf("%#x prints %q which assembles to %#x (%d bytes), %v", inst.Raw, text, v, n, err)
		}
	})
}

// FuzzAssemble: assembling never panics, and what assembles lists and
// assembles again to the same bytes.
func FuzzAssemble(f *testing.F) {
	for _, s := range []string{
		"MOV R0, R1;", "IADD R0 (C0.EQU), g [A1+0x4], -c [0x1] [0x2];", "BRA C0.NE, L1;\nL1: RET ;",
		"/*0000*/ MOV.U16 R0H, g [0x1].U16; /* 0x0023c78010004205 */", "IMAD.U16 R1 (C3), -R1H, R2H, R3;",
		"\tcode for sm_10\n\t\tFunction : k\n NOP;\n\t\t.....", ".word 0x861ffe03;", "BRA", "MOV R0 R1", "GLD.U32 R0, global14 [R99999];",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		code, err := Assemble("fuzz.s", []byte(src))
		if err != nil {
			return
		}
		lst, _ := Disassemble(nil, code, 0)
		again, err := Assemble("again.s", lst)
		if err != nil {
			t.Fatalf("listing of %q does not assemble: %v\n%s", src, err, lst)
		}
		if at := differsBeyondDontCare(code, again); at >= 0 {
			lst2, _ := Disassemble(nil, again, 0)
			t.Fatalf("round trip of %q changed the code at %#x:\n%s\n%s", src, at, lst, lst2)
		}
	})
}

// differsBeyondDontCare is the address of the first instruction where b
// differs from a in bits the text carries, or -1. The end-of-program marker
// is not printed (as sets it by position: the last instruction of a
// function, which a listing of several functions' code does not show), nor
// are the bits the hardware ignores (docs/roundtrip.md): Inst.DontCare.
func differsBeyondDontCare(a, b []byte) int {
	if len(a) != len(b) {
		return 0
	}
	for pc := 0; pc < len(a); {
		n, mask := 4, uint64(0)
		if inst, err := Decode(a[pc:], uint64(pc)); err == nil {
			n, mask = int(inst.Len), inst.DontCare()
		}
		n = min(n, len(a)-pc)
		var x, y [8]byte
		copy(x[:], a[pc:pc+n])
		copy(y[:], b[pc:pc+n])
		if (binary.LittleEndian.Uint64(x[:])^binary.LittleEndian.Uint64(y[:]))&^mask != 0 {
			return pc
		}
		pc += n
	}
	return -1
}
