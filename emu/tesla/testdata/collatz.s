// collatz (sm_10): steps[i] = number of 3x+1 / x/2 steps from in[i] to 1.
// A data-dependent loop with a divergent if/else (SSY and a .S join) and
// threads leaving the loop at different times.
// g [0x4] = in, g [0x5] = steps, g [0x6] = n.
	code for sm_10
		Function : collatz
        MOV.U16 R0H, g [0x1].U16;
        I2I.U32.U16 R1, R0L;
        IMAD.U16 R0, g [0x6].U16, R0H, R1;      // i
        ISET.S32.C0 o [0x7f], g [0x6], R0, LE;
        RET C0.NE;
        SHL R2, R0, 0x2;
        IADD32 R3, g [0x4], R2;
        GLD.U32 R4, global14 [R3];              // x
        MOV R5, R124;                           // steps
        MVI R6, 0x1;
loop:
        ISET.C0 o [0x7f], R4, R6, EQ;
        BRA C0.NE, done;                        // x == 1
        LOP32I.AND R7, R4, 0x1;
        ISET.C1 o [0x7f], R7, R124, NE;
        SSY next;
        BRA C1.NE, odd;
        SHR R4, R4, 0x1;
        BRA next;
odd:
        IADD R8, R4, R4;
        IADD R4, R8, R4;
        IADD32I R4, R4, 0x1;
next:
        NOP.S;
        IADD32I R5, R5, 0x1;
        BRA loop;
done:
        IADD32 R3, g [0x5], R2;
        GST.U32 global14 [R3], R5;
