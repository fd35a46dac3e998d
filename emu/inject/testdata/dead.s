// vecadd with a dead register: R5 is written and never read.
	code for sm_10
		Function : dead
        MOV.U16 R0H, g [0x1].U16;
        I2I.U32.U16 R1, R0L;
        MOV32 R5, R1;
        IMAD.U16 R0, g [0x6].U16, R0H, R1;
        ISET.S32.C0 o [0x7f], g [0x7], R0, LE;
        RET C0.NE;
        SHL R2, R0, 0x2;
        IADD32 R3, g [0x4], R2;
        IADD32 R4, g [0x5], R2;
        GLD.U32 R3, global14 [R3];
        GLD.U32 R4, global14 [R4];
        FADD32 R3, R3, R4;
        IADD32 R2, g [0x6], R2;
        GST.U32 global14 [R2], R3;
