// Macros that chol4AVX (chol4_amd64.s, four lanes of AVX2) and
// chol8AVX512 (chol8_amd64.s, eight lanes of AVX-512) share. Each file
// defines ST_QS, ST_S, ST_ROWS, ST_I, ST_P and ST_CONT, its state's
// offsets (and ST_M, ST_E, ST_N for LOGPROD); V names a vector register (Y or Z), SH is log2 of the bytes
// of a lane-interleaved entry (5 or 6) and EL those bytes (32 or 64).

// PAIRREGS sets, from the pair's column i in CX, SI and DX to rows i and
// i+1 (DI the factor, BX the bytes of a row), CX to the bytes of a dot
// product over k < i (also the offset of column i in a row) and R8 to
// those of its whole groups of four.
#define PAIRREGS(SH, GROUPMASK) \
	MOVQ CX, SI; \
	IMULQ BX, SI; \
	ADDQ DI, SI; \
	LEAQ (SI)(BX*1), DX; \
	SHLQ $SH, CX; \
	MOVQ CX, R8; \
	ANDQ $GROUPMASK, R8

// NEXTSUMS sets st.s to the next pivots' sums over k < i+2 from st.qs,
// those over k < i, and rows j = i+2, k = i+3 (the row after DX):
// s00 = (q00 + lj0²) + lj1², s01 = (q01 + lj0·lk0) + lj1·lk1,
// s11 = (q11 + lk0²) + lk1² (the last two when st.rows >= 2, else going
// to label SKIP). R9 holds st; clobbers R10, R11 and V0-V5.
#define NEXTSUMS(EL, V0, V1, V2, V3, V4, V5, SKIP) \
	LEAQ (DX)(BX*1), R10; \
	VMOVUPD (R10)(CX*1), V0; \
	VMOVUPD EL(R10)(CX*1), V1; \
	VMULPD V0, V0, V4; \
	VADDPD ST_QS(R9), V4, V4; \
	VMULPD V1, V1, V5; \
	VADDPD V5, V4, V4; \
	VMOVUPD V4, ST_S(R9); \
	CMPQ ST_ROWS(R9), $2; \
	JLT  SKIP; \
	LEAQ (R10)(BX*1), R11; \
	VMOVUPD (R11)(CX*1), V2; \
	VMOVUPD EL(R11)(CX*1), V3; \
	VMULPD V2, V0, V4; \
	VADDPD ST_QS+EL(R9), V4, V4; \
	VMULPD V3, V1, V5; \
	VADDPD V5, V4, V4; \
	VMOVUPD V4, ST_S+EL(R9); \
	VMULPD V2, V2, V4; \
	VADDPD ST_QS+2*EL(R9), V4, V4; \
	VMULPD V3, V3, V5; \
	VADDPD V5, V4, V4; \
	VMOVUPD V4, ST_S+2*EL(R9)

// TOPIVOTS sets st.p to the next pair's column i+2 and st.cont to 1, so
// that the pivots return to the rows, and jumps to label PIVOTS. R9
// holds st.
#define TOPIVOTS(PIVOTS) \
	MOVQ ST_I(R9), R10; \
	ADDQ $2, R10; \
	MOVQ R10, ST_P(R9); \
	MOVQ $1, ST_CONT(R9); \
	JMP  PIVOTS

// NEXTPAIR moves st.i to the next column pair and jumps to label PAIR
// when it has two columns left.
#define NEXTPAIR(PAIR) \
	MOVQ st+32(FP), R9; \
	MOVQ ST_I(R9), R10; \
	ADDQ $2, R10; \
	MOVQ R10, ST_I(R9); \
	INCQ R10; \
	CMPQ R10, d+24(FP); \
	JLT  PAIR

// PIVOTREGS sets, from the column P in st.p (st in R15), R12 to
// &x[P·d+P], R13 to the entry of h and R14 to that of the factor (DI)
// at (P, P), AX to d and R9 to P.
#define PIVOTREGS(SH) \
	MOVQ st+32(FP), R15; \
	MOVQ d+24(FP), AX; \
	MOVQ ST_P(R15), R9; \
	MOVQ R9, R11; \
	IMULQ AX, R11; \
	ADDQ R9, R11; \
	MOVQ x+8(FP), R12; \
	LEAQ (R12)(R11*8), R12; \
	SHLQ $SH, R11; \
	MOVQ h+16(FP), R13; \
	ADDQ R11, R13; \
	LEAQ (DI)(R11*1), R14

// LOGPROD multiplies the lanes' normal pivots in P, whose exponent
// fields E holds, into the logProd mantissas st.m and exponents st.e as
// logProd.mul does, renormalising after 63 factors (st.n), then goes on
// at label NORMLABEL. AND and OR are the bitwise instructions of V's
// width (VPAND, VPOR for Y; VPANDQ, VPORQ for Z). Clobbers T, M and R10;
// R15 holds st.
#define LOGPROD(P, E, T, M, AND, OR, NORMLABEL) \
	VPBROADCASTQ cholk<>+24(SB), T; \
	AND T, P, M; \
	VPBROADCASTQ cholk<>+32(SB), T; \
	OR T, M, M; \
	VMULPD ST_M(R15), M, M; \
	VMOVUPD M, ST_M(R15); \
	VPBROADCASTQ cholk<>+48(SB), T; \
	VPSUBQ T, E, E; \
	VPADDQ ST_E(R15), E, E; \
	VMOVUPD E, ST_E(R15); \
	MOVQ ST_N(R15), R10; \
	INCQ R10; \
	MOVQ R10, ST_N(R15); \
	CMPQ R10, $63; \
	JNE NORMLABEL; \
	VPSRLQ $52, M, E; \
	VPBROADCASTQ cholk<>+56(SB), T; \
	VPSUBQ T, E, E; \
	VPADDQ ST_E(R15), E, E; \
	VMOVUPD E, ST_E(R15); \
	VPBROADCASTQ cholk<>+24(SB), T; \
	AND T, M, M; \
	VPBROADCASTQ cholk<>+40(SB), T; \
	OR T, M, M; \
	VMOVUPD M, ST_M(R15); \
	MOVQ $0, ST_N(R15)

// PIVOTA computes, for the column P of PIVOTREGS, a00 = ½x + h into A,
// p0 = a00 − s00 (st.s) into P0 and tol·a00 into TA; HALF holds ½, TOL
// the tolerance.
#define PIVOTA(HALF, TOL, A, P0, TA) \
	VBROADCASTSD (R12), A; \
	VMULPD HALF, A, A; \
	VADDPD (R13), A, A; \
	VSUBPD ST_S(R15), A, P0; \
	VMULPD TOL, A, TA

// PIVOTB computes, from p0 in P0, b = ½x + h − s01 into B, a11 = ½x + h
// into A11, t = a11 − s11 into T, p1 = t − b·(b/p0) into Q, L_PP = √p0
// into L, its reciprocal into R and L_{P+1,P} = b/L_PP into L10, as
// pivotPair does; clobbers ONE.
#define PIVOTB(EL, HALF, P0, B, A11, T, Q, L, R, ONE, L10) \
	VBROADCASTSD 8(R12), B; \
	VMULPD HALF, B, B; \
	VADDPD EL(R13), B, B; \
	VSUBPD ST_S+EL(R15), B, B; \
	VBROADCASTSD 8(R12)(AX*8), A11; \
	VMULPD HALF, A11, A11; \
	VADDPD EL(R13)(BX*1), A11, A11; \
	VSUBPD ST_S+2*EL(R15), A11, T; \
	VDIVPD P0, B, Q; \
	VMULPD Q, B, Q; \
	VSUBPD Q, T, Q; \
	VSQRTPD P0, L; \
	VBROADCASTSD cholk<>+8(SB), ONE; \
	VDIVPD L, ONE, R; \
	VMULPD R, B, L10

// The kernels' constants (each file has its copy): ½, 1,
// math.MaxFloat64, the mantissa mask, the exponent fields of 1 and of ½,
// and the exponent biases 1023 and 1022.
DATA cholk<>+0(SB)/8, $0.5
DATA cholk<>+8(SB)/8, $1.0
DATA cholk<>+16(SB)/8, $0x7fefffffffffffff
DATA cholk<>+24(SB)/8, $0x000fffffffffffff
DATA cholk<>+32(SB)/8, $0x3ff0000000000000
DATA cholk<>+40(SB)/8, $0x3fe0000000000000
DATA cholk<>+48(SB)/8, $1023
DATA cholk<>+56(SB)/8, $1022
GLOBL cholk<>(SB), RODATA|NOPTR, $64
