package fermi_test

import (
	"fmt"

	"github.com/gpuisa/gpuisa/isa/fermi"
)

// Decode sm_20 code and print it as CUDA 5+ cuobjdump does.
func ExampleDecoder_Decode() {
	code := []byte{
		0x03, 0x1c, 0x10, 0x40, 0x00, 0xc0, 0x00, 0x48, // IADD R0, R1, 0x10
		0x00, 0x9c, 0x30, 0x10, 0x00, 0x00, 0x0a, 0x30, // FFMA R2, R3, R4, R5
		0xe7, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, // EXIT
	}
	var d fermi.Decoder
	for addr := uint64(0); addr < uint64(len(code)); {
		inst, err := d.Decode(code, addr)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%#04x %s\n", addr, fermi.Print(inst, addr))
		addr += uint64(inst.Len())
	}
	// Output:
	// 0x0000 IADD R0, R1, 0x10;
	// 0x0008 FFMA R2, R3, R4, R5;
	// 0x0010 EXIT;
}

// Assemble cuobjdump-syntax source (either dialect) into machine code.
func ExampleAssemble() {
	code, err := fermi.Assemble("k.s", []byte("IADD R0, R1, 0x10;\nEXIT;\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", code)
	// Output:
	// 03 1c 10 40 00 c0 00 48 e7 1d 00 00 00 00 00 80
}

// Read an instruction's operands as values.
func ExampleInst_Args() {
	inst, err := fermi.DecodeWord(0x4800c00040101c03) // IADD R0, R1, 0x10
	if err != nil {
		fmt.Println(err)
		return
	}
	args, n := inst.Args(0)
	for _, a := range args[:n] {
		fmt.Printf("kind %d reg %d imm %#x\n", a.Kind, a.Reg, a.Imm)
	}
	// Output:
	// kind 1 reg 0 imm 0x0
	// kind 1 reg 1 imm 0x0
	// kind 3 reg 0 imm 0x10
}
