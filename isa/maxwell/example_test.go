package maxwell_test

import (
	"fmt"

	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// Decode a bundle (a control word, then three instructions) and print it
// as nvdisasm does.
func ExampleDecoder_Decode() {
	code := []byte{
		0xf1, 0x07, 0x20, 0xfe, 0x00, 0xc4, 0x1f, 0x00, // control word
		0x0c, 0x03, 0x07, 0xff, 0x7f, 0x00, 0xc0, 0x39, // IADD3 R12, R3, 0xffff0, R0
		0x0f, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0xe3, // EXIT
		0x00, 0x0f, 0x07, 0x00, 0x00, 0x00, 0xb0, 0x50, // NOP
	}
	d := maxwell.Decoder{SM: 52}
	for _, addr := range []uint64{0x8, 0x10, 0x18} {
		inst, err := d.Decode(code, addr)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%#04x %s\n", addr, maxwell.Print(inst, addr))
	}
	// Output:
	// 0x0008 IADD3 R12, R3, 0xffff0, R0 ;
	// 0x0010 EXIT ;
	// 0x0018 NOP ;
}

// Assemble nvdisasm-syntax source into bundles (control words made up
// where the source has none).
func ExampleAssemble() {
	code, err := maxwell.Assemble("k.s", []byte("IADD3 R12, R3, 0xffff0, R0 ;\nEXIT ;\n"), 52)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes\n% x\n", len(code), code[8:16])
	// Output:
	// 32 bytes
	// 0c 03 07 ff 7f 00 c0 39
}

// Read an instruction's operands and modifiers as typed values: the
// immediate nvdisasm prints as 0xffff0 is -16 to the hardware.
func ExampleInst_Operands() {
	inst, err := maxwell.Decode(0x39c0007fff07030c, maxwell.NeutralCtrl, 52, 0x8)
	if err != nil {
		fmt.Println(err)
		return
	}
	ops := inst.Operands(0x8)
	fmt.Println(maxwell.Print(inst, 0x8))
	fmt.Println(ops.Op, "guard", ops.Guard.Reg)
	for _, a := range ops.Args[:ops.NArgs()] {
		switch a.Kind {
		case maxwell.ArgReg:
			fmt.Printf("register %d (%d bits)\n", a.Reg, a.Bits)
		case maxwell.ArgImm:
			fmt.Printf("immediate %d (%d-bit field, signed %v)\n", a.Imm, a.Bits, a.Signed)
		}
	}
	inst, err = maxwell.Decode(0x5cb0118000270a02, maxwell.MakeCtrl(0xf, false, 0, 7, 0, 0), 52, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	ops = inst.Operands(0)
	fmt.Println(maxwell.Print(inst, 0))
	for _, m := range ops.Mods {
		if m.IsZero() {
			break
		}
		fmt.Printf("%s=%d %q\n", m.Name(), m.Value, m.Text())
	}
	// Output:
	// IADD3 R12, R3, 0xffff0, R0 ;
	// IADD3 guard 7
	// register 12 (32 bits)
	// register 3 (32 bits)
	// immediate -16 (20-bit field, signed true)
	// register 0 (32 bits)
	// F2I.FTZ.U32.F32.TRUNC R2, R2 ;
	// FTZ=1 ".FTZ"
	// F2IDST=4 ".U32"
	// FPSRC=2 ".F32"
	// F2IRND=3 ".TRUNC"
}
