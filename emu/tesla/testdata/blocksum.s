// blocksum (sm_10): out[ctaid.x] = sum of the block's 64 inputs, by a tree
// in shared memory (s[] at 0x40) with a barrier after every step.
// g [0x4] = in, g [0x5] = out. Launch with 64 threads per block.
	code for sm_10
		Function : blocksum
        I2I.U32.U16 R1, R0L;                    // tid
        MOV.U16 R0H, g [0x1].U16;
        IMAD.U16 R2, g [0x6].U16, R0H, R1;      // i
        SHL R3, R2, 0x2;
        IADD32 R3, g [0x4], R3;
        GLD.U32 R4, global14 [R3];
        R2A A1, R1, 0x2;                        // A1 = 4*tid
        R2G.U32.U32 g[A1+0x10], R4;             // s[tid] = in[i]
        BAR.ARV.WAIT b0, 0xfff;
        MVI R5, 0x20;                           // stride
loop:
        ISET.C0 o [0x7f], R1, R5, LT;
        SSY skip;
        BRA C0.EQ, skip;                        // tid >= stride
        IADD R6, R1, R5;
        R2A A2, R6, 0x2;
        MOV R7, g [A2+0x10];
        MOV R8, g [A1+0x10];
        IADD R8, R8, R7;
        R2G.U32.U32 g[A1+0x10], R8;
skip:
        NOP.S;
        BAR.ARV.WAIT b0, 0xfff;
        SHR R5, R5, 0x1;
        ISET.C0 o [0x7f], R5, R124, NE;
        BRA C0.NE, loop;
        ISET.C0 o [0x7f], R1, R124, EQ;
        RET C0.EQ;                              // only thread 0 goes on
        MOV R8, g [0x10];
        I2I.U32.U16 R9, g [0x6].U16;
        SHL R9, R9, 0x2;
        IADD32 R9, g [0x5], R9;
        GST.U32 global14 [R9], R8;
