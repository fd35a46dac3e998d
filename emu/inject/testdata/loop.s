// loop (sm_10): each thread writes n words, out[4 tid + j] = n - j, counting
// j down from n (R3) with a moving pointer (R2). A corrupted counter keeps
// the loop going and the pointer walks past the end of memory.
	code for sm_10
		Function : loop
        MOV.U16 R0H, g [0x1].U16;
        I2I.U32.U16 R1, R0L;
        SHL R2, R1, 0x4;
        IADD32 R2, g [0x4], R2;
        MOV R3, g [0x5];
    loop:
        GST.U32 global14 [R2], R3;
        IADD32I R2, R2, 0x4;
        IADD32I R3, R3, 0xffffffff;
        ISET.S32.C0 o [0x7f], R3, R124, NE;
        BRA C0.NE, loop;
        RET;
