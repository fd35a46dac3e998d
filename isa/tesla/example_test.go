package tesla_test

import (
	"fmt"

	"github.com/gpuisa/gpuisa/isa/tesla"
)

// Decode a stream of 64-bit and 32-bit instructions and print them as
// cuobjdump does.
func ExampleDecoder_Decode() {
	code := []byte{
		0x05, 0x42, 0x00, 0x10, 0x80, 0xc7, 0x23, 0x00, // MOV.U16 R0H, g [0x1].U16
		0x01, 0x4c, 0x01, 0x60, 0x80, 0x47, 0x20, 0x00, // IMAD.U16
		0x0c, 0xe8, 0x02, 0x21, // IADD32 (a 32-bit instruction)
	}
	d := tesla.Decoder{Base: 0x100}
	for addr := d.Base; addr < d.Base+uint64(len(code)); {
		inst, err := d.Decode(code, addr)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%#x %d bytes: %s\n", addr, inst.Len, tesla.Print(inst, addr))
		addr += uint64(inst.Len)
	}
	// Output:
	// 0x100 8 bytes: MOV.U16 R0H, g [0x1].U16;
	// 0x108 8 bytes: IMAD.U16 R0, g [0x6].U16, R0H, R1;
	// 0x110 4 bytes: IADD32 R3, g [0x4], R2;
}

// Assemble cuobjdump-syntax source into machine code.
func ExampleAssemble() {
	code, err := tesla.Assemble("k.s", []byte("MOV.U16 R0H, g [0x1].U16;\nSHL R2, R0, 0x2;\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", code)
	// Output:
	// 05 42 00 10 80 c7 23 00 09 00 02 30 81 07 10 c4
}

// Read an instruction's operands as values.
func ExampleInst_Resolve() {
	inst, err := tesla.DecodeValue(0xc410078030020009, 0) // SHL R2, R0, 0x2
	if err != nil {
		fmt.Println(err)
		return
	}
	e := inst.Resolve()
	fmt.Println(e.Mnemonic, e.Sem)
	for _, o := range e.Operands {
		fmt.Printf("kind %d reg %d imm %#x\n", o.Kind, o.Reg, o.Imm)
	}
	// Output:
	// SHL shl
	// kind 1 reg 2 imm 0x0
	// kind 1 reg 0 imm 0x0
	// kind 7 reg 0 imm 0x2
}
