package fermi

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func FuzzDecode(f *testing.F) {
	for _, c := range readGolden(f) {
		f.Add(binary.LittleEndian.AppendUint64(nil, c.raw))
	}
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		inst, err := Decode(b)
		if err != nil {
			return
		}
		for d := New; d <= Old; d++ {
			text := string(AppendTextDialect(nil, inst, 0x1000, d))
			back, err := AssembleLineDialect(text, 0x1000, d)
			if err != nil || back.Raw != inst.Raw {
				t.Fatalf("%s %#016x: %q -> %#016x, %v", d.String(), inst.Raw, text, back.Raw, err)
			}
		}
	})
}

func FuzzAssemble(f *testing.F) {
	for _, c := range readGolden(f) {
		if c.dialect != "error" {
			f.Add(c.text)
		}
	}
	f.Add("l: @!P0 BRA l; c [0x1] [0x2]; MOV R1, c[0x1][")
	f.Add("/*0000*/ IADD R1, R2, -0x; /* 0x")
	f.Fuzz(func(t *testing.T, src string) {
		code, err := Assemble("f.s", []byte(src))
		if err != nil {
			return
		}
		list, errs := Disassemble(nil, code, 0)
		if len(errs) != 0 {
			t.Fatalf("assembled code does not decode: %v", errs)
		}
		again, err := Assemble("list.s", list)
		if err != nil || !bytes.Equal(again, code) {
			t.Fatalf("listing does not reassemble: %v\n%s", err, list)
		}
	})
}
