// copy (sm_20): out[tid.x] = in[tid.x] with 32-bit pointers in c[0x0] from 0x20 (in, out)
        MOV R1, c[0x1][0x100];
        S2R R0, SR_TID.X;
        SHL R2, R0, 0x2;
        IADD R4, R2, c[0x0][0x20];
        LD R3, [R4];
        IADD R5, R2, c[0x0][0x24];
        ST [R5], R3;
        EXIT;
