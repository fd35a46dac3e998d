// SUATOM (no PTX instruction makes it): add, exchange, compare-and-swap
// (compare R8, new value R9, as ATOM.CAS), signed max on an r32ui surface
// whose handle is the second parameter (c[0x0][0x148]); the first is the output.
        MOV R1, c[0x0][0x20] ;
        S2R R0, SR_TID.X ;
        SHL R2, R0, 0x2 ;
        IADD32I R3, R0, 0x5 ;
        SUATOM.D.BA.1D.ADD.TRAP R4, [R2], R3, 0x52 ;
        SUATOM.D.BA.1D.EXCH.TRAP R5, [R2], R0, 0x52 ;
        MOV R8, R0 ;
        IADD32I R9, R0, 0x64 ;
        SUATOM.D.BA.1D.CAS.TRAP R6, [R2], R8, 0x52 ;
        SUATOM.D.BA.1D.MAX.S32.TRAP R7, [R2], R3, 0x52 ;
        ISCADD R10.CC, R0, c[0x0][0x140], 0x4 ;
        IADD.X R11, RZ, c[0x0][0x144] ;
        STG.E.128 [R10], R4 ;
        EXIT ;
