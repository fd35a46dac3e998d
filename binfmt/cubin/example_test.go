package cubin_test

import (
	"fmt"
	"log"
	"os"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

func ExampleParse() {
	data, err := os.ReadFile("testdata/small.sm_50.cubin")
	if err != nil {
		log.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sm_%d (from compute_%d): %s\n", f.SM(), f.VirtualSM(), cubin.HeaderFlags(f.Flags))
	for _, fn := range f.Functions {
		fmt.Printf("%s: %d bytes, %d registers, %d barrier(s), %d bytes shared\n", fn.Name, len(fn.Code), fn.Registers, fn.Barriers, fn.SharedSize)
		for _, p := range fn.Params {
			fmt.Printf("  param %d at c[0x%x][0x%x], %d bytes\n", p.Ordinal, fn.ParamBank, fn.ParamBase+p.Offset, p.Size)
		}
	}
	for _, c := range f.Constants {
		fmt.Printf("bank %d: % x\n", c.Bank, c.Data)
	}
	// Output:
	// sm_50 (from compute_50): EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM50 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM50)
	// scale: 320 bytes, 8 registers, 1 barrier(s), 256 bytes shared
	//   param 0 at c[0x0][0x140], 8 bytes
	//   param 1 at c[0x0][0x148], 4 bytes
	//   param 2 at c[0x0][0x14c], 4 bytes
	//   param 3 at c[0x0][0x150], 16 bytes
	// bank 3: 01 00 00 00 02 00 00 00 03 00 00 00 05 00 00 00
}

func ExampleWrite() {
	code := make([]byte, 32) // one Maxwell bundle of NOP-like zero words
	data, err := cubin.Write(cubin.DefaultModule(52, "k", code, 4, 8, 4))
	if err != nil {
		log.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	fn := f.Function("k")
	fmt.Println(cubin.CuobjdumpHeaderFlags(f.Flags))
	fmt.Printf("%s: params at 0x%x, %d bytes: %+v\n", fn.Name, fn.ParamBase, fn.ParamSize, fn.Params[1])
	// Output:
	// EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)
	// k: params at 0x140, 12 bytes: {Ordinal:1 Offset:8 Size:4 LogAlign:0 Space:0 CBank:31 SMem:false Index:0}
}
