// histogram: hist[in[i] & 0xff]++ for i < n, a grid-stride loop of atomic
// adds. A 32-bit build (the CUDA 3.x/4.x kind): pointers are 4 bytes, global
// accesses use 32-bit addresses (no .E). Parameters from c[0x0][0x20]:
// in (ptr), n (u32), hist (ptr).
	MOV R1, c[0x1][0x100];
	S2R R0, SR_TID.X;
	S2R R2, SR_CTAID.X;
	IMAD R3, R2, c[0x0][0x8], R0;       // i = ctaid.x * ntid.x + tid.x
	MOV R4, c[0x0][0x14];
	IMUL R4, R4, c[0x0][0x8];           // stride = nctaid.x * ntid.x
	MOV32I R8, 0x1;
	ISETP.GE.U32.AND P0, PT, R3, c[0x0][0x24], PT;
	@P0 EXIT;
loop:
	SHL R5, R3, 0x2;
	IADD R5, R5, c[0x0][0x20];
	LD R6, [R5];
	BFE.U32 R7, R6, 0x800;              // bits 0..7
	SHL R7, R7, 0x2;
	IADD R7, R7, c[0x0][0x28];
	RED.ADD [R7], R8;
	IADD R3, R3, R4;
	ISETP.LT.U32.AND P0, PT, R3, c[0x0][0x24], PT;
	@P0 BRA loop;
	EXIT;
