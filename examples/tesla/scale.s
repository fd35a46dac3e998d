// scale (sm_10): out[i] = in[i] * c[0x1][0x0] + add + s[0x40], for i =
// ctaid.x * ntid.x + tid.x. The parameters are addresses and values: g [0x4]
// = in, g [0x5] = add (f32), g [0x6] = out; c[0x1][0x0] and the shared word
// at 0x40 (g [0x10]) come from the launch file's memory images. A listing in
// cuobjdump syntax: gpuisa run assembles it ("arch" says for what).
	code for sm_10
		Function : scale
        MOV.U16 R0H, g [0x1].U16;
        I2I.U32.U16 R1, R0L;
        IMAD.U16 R0, g [0x6].U16, R0H, R1;
        SHL R2, R0, 0x2;
        IADD32 R3, g [0x4], R2;
        GLD.U32 R3, global14 [R3];
        FMUL R3, R3, c[0x1][0x0];
        FADD32 R3, g [0x5], R3;
        MOV R4, g [0x10];
        FADD32 R3, R3, R4;
        IADD32 R2, g [0x6], R2;
        GST.U32 global14 [R2], R3;
