// count (sm_10), one launch of a host loop: every thread adds 1 to a[tid];
// thread 0 also takes 1 from n[0], and the host launches again while n[0]
// is not zero (count.json). A corrupted n changes how many launches run.
	code for sm_10
		Function : count
        MOV.U16 R0H, g [0x1].U16;
        I2I.U32.U16 R1, R0L;
        SHL R2, R1, 0x2;
        IADD32 R2, g [0x4], R2;
        GLD.U32 R3, global14 [R2];
        IADD32I R3, R3, 0x1;
        GST.U32 global14 [R2], R3;
        ISET.S32.C0 o [0x7f], R1, R124, NE;
        RET C0.NE;
        MOV R4, g [0x5];
        GLD.U32 R5, global14 [R4];
        IADD32I R5, R5, 0xffffffff;
        GST.U32 global14 [R4], R5;
        RET;
