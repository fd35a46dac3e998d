// TMML (no PTX instruction makes it): the level of detail of u = tid^2/1024,
// v = 0 from the quad's derivatives, and with .NDV; the texture handle is
// the second parameter (c[0x0][0x148]), the first the output.
        MOV R1, c[0x0][0x20] ;
        S2R R0, SR_TID.X ;
        I2F.F32.U32 R2, R0 ;
        FMUL R2, R2, R2 ;
        FMUL R2, R2, 0.0009765625 ;
        MOV R3, RZ ;
        TMML.LOD R4, R2, 0x52, 2D, 0x3 ;
        TMML.LOD.NDV R6, R2, 0x52, 2D, 0x3 ;
        ISCADD R10.CC, R0, c[0x0][0x140], 0x4 ;
        IADD.X R11, RZ, c[0x0][0x144] ;
        STG.E.128 [R10], R4 ;
        EXIT ;
