// saxpy: y[i] = a * x[i] + y[i] for i < n, one thread per element. A
// 64-bit build: pointers are 8 bytes and global accesses use register
// pairs (LD.E, ST.E). Parameters from c[0x0][0x20]: n (u32), a (f32),
// x (ptr, at 0x28), y (ptr, at 0x30).
	MOV R1, c[0x1][0x100];
	S2R R0, SR_TID.X;
	S2R R2, SR_CTAID.X;
	IMAD R0, R2, c[0x0][0x8], R0;
	ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x20], PT;
	@P0 EXIT;
	SHL R3, R0, 0x2;
	IADD R4.CC, R3, c[0x0][0x28];
	IADD.X R5, RZ, c[0x0][0x2c];
	IADD R6.CC, R3, c[0x0][0x30];
	IADD.X R7, RZ, c[0x0][0x34];
	LD.E R8, [R4];
	LD.E R9, [R6];
	FFMA R9, R8, c[0x0][0x24], R9;
	ST.E [R6], R9;
	EXIT;
