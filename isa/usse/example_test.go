package usse_test

import (
	"fmt"

	"github.com/gpuisa/gpuisa/isa/usse"
)

// Decode SGX543 code and print it in Sony's spelling.
func ExampleDecoder_Decode() {
	code := []byte{
		0x00, 0x26, 0x00, 0x02, 0x80, 0xb0, 0x22, 0xfc, // mov.u32 r16, 0xad002600
		0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x04, 0xf8, // nop.end
	}
	var d usse.Decoder
	for addr := uint64(0); addr < uint64(len(code)); addr += usse.Len {
		inst, err := d.Decode(code, addr)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%#04x %s\n", addr, usse.Print(inst, addr))
	}
	// Output:
	// 0x0000 mov.u32 r16, 0xad002600
	// 0x0008 nop.end
}

// Assemble source into machine code.
func ExampleAssemble() {
	code, err := usse.Assemble("k.usse", []byte("mov.u32 r16, 0xad002600\nnop.end\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", code)
	// Output:
	// 00 26 00 02 80 b0 22 fc 00 00 00 00 40 01 04 f8
}

// Read an instruction's fields as values.
func ExampleInst_Field() {
	inst, err := usse.DecodeWord(0xfc22b08002002600, 0) // mov.u32 r16, 0xad002600
	if err != nil {
		fmt.Println(err)
		return
	}
	imm, _ := inst.Field("imm")
	dnum, _ := inst.Field("dnum")
	fmt.Printf("%s: imm %#x, destination register %d\n", inst.Name(), imm, dnum)
	// Output:
	// limm: imm 0xad002600, destination register 16
}
