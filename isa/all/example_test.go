package all_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// listCubin reads a cubin and lists it as NVIDIA's tools do.
func listCubin(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	out, errs := all.ListCubin(nil, f, maxwell.ListOptions{})
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	return string(out)
}

// A Tesla cubin lists as cuobjdump -sass prints it.
func ExampleListCubin_tesla() {
	fmt.Print(listCubin("../../examples/tesla/vecadd.cubin"))
	// Output:
	//	code for sm_10
	//		Function : vecadd
	//	.headerflags    @"EF_CUDA_SM10 EF_CUDA_PTX_SM(EF_CUDA_SM10)"
	//         /*0000*/        MOV.U16 R0H, g [0x1].U16;                      /* 0x0023c78010004205 */
	//         /*0008*/        I2I.U32.U16 R1, R0L;                           /* 0x04000780a0000005 */
	//         /*0010*/        IMAD.U16 R0, g [0x6].U16, R0H, R1;             /* 0x0020478060014c01 */
	//         /*0018*/        ISET.S32.C0 o[0x7f], g [0x7], R0, LE;          /* 0x6c20c7c83000cffd */
	//         /*0020*/        RET C0.NE;                                     /* 0x0000028030000003 */
	//         /*0028*/        SHL R2, R0, 0x2;                               /* 0xc410078030020009 */
	//         /*0030*/        IADD32 R3, g [0x4], R2;                        /* 0x2102e80c         */
	//         /*0034*/        IADD32 R4, g [0x5], R2;                        /* 0x2102ea10         */
	//         /*0038*/        GLD.U32 R3, global14[R3];                      /* 0x80c00780d00e060d */
	//         /*0040*/        GLD.U32 R4, global14[R4];                      /* 0x80c00780d00e0811 */
	//         /*0048*/        FADD32 R3, R3, R4;                             /* 0xb004060c         */
	//         /*004c*/        IADD32 R2, g [0x6], R2;                        /* 0x2102ec08         */
	//         /*0050*/        GST.U32 global14[R2], R3;                      /* 0xa0c00781d00e040d */
	//		.....................................
}

// A Fermi cubin (here one our assembler made: gpuisa as -arch sm_20 -cubin)
// lists as cuobjdump -sass prints it.
func ExampleListCubin_fermi() {
	fmt.Print(listCubin("testdata/copy.sm_20.cubin"))
	// Output:
	// code for sm_20
	// 		Function : copy
	// 	.headerflags    @"EF_CUDA_SM20 EF_CUDA_PTX_SM(EF_CUDA_SM20)"
	//         /*0000*/        MOV R1, c[0x1][0x100];                         /* 0x2800440400005de4 */
	//         /*0008*/        S2R R0, SR_TID.X;                              /* 0x2c00000084001c04 */
	//         /*0010*/        SHL R2, R0, 0x2;                               /* 0x6000c00008009c03 */
	//         /*0018*/        IADD R4, R2, c[0x0][0x20];                     /* 0x4800400080211c03 */
	//         /*0020*/        LD R3, [R4];                                   /* 0x800000000040dc85 */
	//         /*0028*/        IADD R5, R2, c[0x0][0x24];                     /* 0x4800400090215c03 */
	//         /*0030*/        ST [R5], R3;                                   /* 0x900000000050dc85 */
	//         /*0038*/        EXIT;                                          /* 0x8000000000001de7 */
	// 		..........
}

// A Maxwell cubin lists as nvdisasm -hex -novliw prints it: every section;
// here the first instructions of the kernel.
func ExampleListCubin_maxwell() {
	listing := listCubin("../../examples/maxwell/saxpy.sm_52.cubin")
	_, code, _ := strings.Cut(listing, "\nsaxpy:\n")
	lines := strings.Split(code, "\n")
	fmt.Println(strings.Join(lines[:6], "\n"))
	// Output:
	// .text.saxpy:
	//                                                                                      /* 0x001cfc00e22007f6 */
	//         /*0008*/                   MOV R1, c[0x0][0x20] ;                            /* 0x4c98078000870001 */
	//         /*0010*/                   S2R R0, SR_CTAID.X ;                              /* 0xf0c8000002570000 */
	//         /*0018*/                   S2R R2, SR_TID.X ;                                /* 0xf0c8000002170002 */
	//                                                                                      /* 0x001fd842fec20ff1 */
}

// A PS Vita GXP shader lists its header as comments, then its USSE
// programs in Sony's syntax.
func Example_listGXP() {
	data, err := os.ReadFile("../../binfmt/gxp/testdata/tiny_vertex.gxp")
	if err != nil {
		log.Fatal(err)
	}
	p, err := gxp.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	out, errs := p.AppendListing(nil, usse.Disassemble)
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	fmt.Print(string(bytes.TrimSpace(out)))
	// Output:
	// // GXP vertex program, version 1.4, flags 0x10000, 4 PA, 8 SA, 0 temps
	// // parameter aPos                     attribute     f32 x4 at pa0
	// // parameter mvp                      uniform       f32 x4[4] at sa0
	// // primary program: 3 instructions at file offset 0xa0
	//         /*0000*/        phas 0x0, 0 ;                                                    /* 0xfa44070000000000 */
	//         /*0008*/        mov.f32 o0.xy, i0.xy ;                                           /* 0x3880052103000f00 */
	//         /*0010*/        emitvtx.end.dc=2069 0x0 ;                                        /* 0xfb275000a0200000 */
	// // secondary program: 2 instructions at file offset 0xb8
	//         /*0000*/        nop ;                                                            /* 0xf800014000000000 */
	//         /*0008*/        nop.end ;                                                        /* 0xf804014000000000 */
}

// Look an architecture up by name, list raw code and assemble the listing
// back into the same bytes.
func ExampleLookup() {
	a, err := all.Lookup("sm_52")
	if err != nil {
		log.Fatal(err)
	}
	listing := []byte("MOV R1, c[0x0][0x20] ;\nS2R R0, SR_TID.X ;\nEXIT ;\n")
	code, err := a.Assemble("k.s", listing)
	if err != nil {
		log.Fatal(err)
	}
	out, errs := a.Disassemble(nil, code, 0)
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	again, err := a.Assemble("k.s", out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %d bytes, round trip %v\n", a.ISA, len(code), bytes.Equal(code, again))
	fmt.Print(string(out))
	// Output:
	// maxwell, 32 bytes, round trip true
	// 	.headerflags    @"EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)"
	//                                                            /* 0x001fc400fe2007f1 */
	//         /*0008*/                   MOV R1, c[0x0][0x20] ;  /* 0x4c98078000870001 */
	//         /*0010*/                   S2R R0, SR_TID.X ;      /* 0xf0c8000002170000 */
	//         /*0018*/                   EXIT ;                  /* 0xe30000000007000f */
}
