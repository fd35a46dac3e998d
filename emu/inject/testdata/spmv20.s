// spmv20 (sm_20): y = scale * A x for a CSR matrix, a row per thread; x is
// read through a buffer texture (TLD), the row start and the uniform scale
// by one LD_LDU. Parameters: rowptr, col, val, y, scale (pointers), rows.
	MOV R1, c[0x1][0x100];
	S2R R0, SR_TID.X;
	S2R R2, SR_CTAID.X;
	IMAD R0, R2, c[0x0][0x8], R0;
	ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x34], PT;
	@P0 EXIT;
	ISCADD R2, R0, c[0x0][0x20], 0x2;
	MOV R13, c[0x0][0x30];
	LD_LDU.32.32 R4, [R2], R14, [R13];
	LD R5, [R2+0x4];
	MOV R6, RZ;
	ISETP.GE.U32.AND P1, PT, R4, R5, PT;
	@P1 BRA store;
loop:
	ISCADD R7, R4, c[0x0][0x24], 0x2;
	LD R8, [R7];
	ISCADD R9, R4, c[0x0][0x28], 0x2;
	LD R10, [R9];
	TLD.LZ.T R11, R8, 0x0, 1D, 0x1;
	FFMA R6, R10, R11, R6;
	IADD R4, R4, 0x1;
	ISETP.LT.U32.AND P1, PT, R4, R5, PT;
	@P1 BRA loop;
store:
	FMUL R6, R6, R14;
	ISCADD R12, R0, c[0x0][0x2c], 0x2;
	ST [R12], R6;
	EXIT;
