// saxpy (sm_10): y[i] = a*x[i] + y[i] for i = ctaid.x*ntid.x + tid.x < n.
// Parameters in shared memory: g [0x4] = x, g [0x5] = y, g [0x6] = a (f32),
// g [0x7] = n; g [0x1].U16 is ntid.x and g [0x6].U16 is ctaid.x.
	code for sm_10
		Function : saxpy
        MOV.U16 R0H, g [0x1].U16;
        I2I.U32.U16 R1, R0L;
        IMAD.U16 R0, g [0x6].U16, R0H, R1;      // i
        ISET.S32.C0 o [0x7f], g [0x7], R0, LE;  // n <= i ?
        RET C0.NE;
        SHL R2, R0, 0x2;
        IADD32 R3, g [0x4], R2;
        IADD32 R4, g [0x5], R2;
        GLD.U32 R3, global14 [R3];
        GLD.U32 R5, global14 [R4];
        FMAD R5, g [0x6], R3, R5;               // G80: product truncated, then added
        GST.U32 global14 [R4], R5;              // end of program
