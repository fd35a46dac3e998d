// vecadd (sm_10): c[i] = a[i] + b[i] for i = ctaid.x * ntid.x + tid.x, i < n.
// Written for gpuisa's assembler, in cuobjdump syntax. Kernel parameters sit in
// shared memory from 0x10: g [0x4] = a, g [0x5] = b, g [0x6] = c, g [0x7] = n;
// g [0x1].U16 is ntid.x and g [0x6].U16 is ctaid.x. R0 starts as tid.x.
	code for sm_10
		Function : vecadd
        MOV.U16 R0H, g [0x1].U16;               // ntid.x
        I2I.U32.U16 R1, R0L;                    // tid.x
        IMAD.U16 R0, g [0x6].U16, R0H, R1;      // i
        ISET.S32.C0 o [0x7f], g [0x7], R0, LE;  // n <= i ?
        RET C0.NE;
        SHL R2, R0, 0x2;                        // byte offset
        IADD32 R3, g [0x4], R2;
        IADD32 R4, g [0x5], R2;
        GLD.U32 R3, global14 [R3];
        GLD.U32 R4, global14 [R4];
        FADD32 R3, R3, R4;
        IADD32 R2, g [0x6], R2;
        GST.U32 global14 [R2], R3;              // the last instruction ends the thread
		.....................................
