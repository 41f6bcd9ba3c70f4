//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// Offsets in chol8State (checked by TestChol8StateLayout).
#define ST_CN 0
#define ST_S 192
#define ST_QS 384
#define ST_M 576
#define ST_E 640
#define ST_N 704
#define ST_TOL 712
#define ST_I 720
#define ST_P 728
#define ST_CONT 736
#define ST_DONE 744
#define ST_ROWS 752
#define ST_SAVE 760

// LOGMUL8 multiplies the lanes' pivots in register P into the
// log-determinants' mantissas and exponents as logProd.mul does (normal
// pivots only: a subnormal one leaves by label unusual8). Clobbers Z1-Z3,
// K4 and R10; R15 holds st. NORMLABEL is the label after the
// renormalisation.
#define LOGMUL8(P, NORMLABEL) \
	VPSRLQ $52, P, Z1; \
	VPTESTNMQ Z1, Z1, K4; \
	KORTESTW K4, K4; \
	JNE unusual8; \
	LOGPROD(P, Z1, Z2, Z3, VPANDQ, VPORQ, NORMLABEL)

// PIVOTOK8 sets mask M to the lanes where the pivot P passes pivotOK
// against the diagonal entries' tol·a_jj in TA: P > 0, P <= MaxFloat64
// (Z13), P >= TA; Z12 holds zeros.
#define PIVOTOK8(P, TA, M) \
	VCMPPD $0x1e, Z12, P, M; \
	VCMPPD $0x12, Z13, P, M, M; \
	VCMPPD $0x1d, TA, P, M, M

// QDOT8 is one k, at offset OFF from R9, of the next pivots' three dot
// products of rows a (R10) and b (R11): a·a into A, a·b into B, b·b
// into C.
#define QDOT8(OFF, A, B, C) \
	VMOVUPD OFF(R10)(R9*1), Z24; \
	VMOVUPD OFF(R11)(R9*1), Z25; \
	VFMADD231PD Z24, Z24, A; \
	VFMADD231PD Z25, Z24, B; \
	VFMADD231PD Z25, Z25, C

// RDOT8 is one k, at offset OFF from R9, of a tile's six dot products:
// rows j, j+1, j+2 (R10, R11, R12) with rows i and i+1 (SI, DX), into
// A0, A1 (row j), B0, B1 (row j+1), C0, C1 (row j+2); rows i and i+1 are
// loaded once for the three rows.
#define RDOT8(OFF, A0, A1, B0, B1, C0, C1) \
	VMOVUPD OFF(SI)(R9*1), Z24; \
	VMOVUPD OFF(DX)(R9*1), Z25; \
	VMOVUPD OFF(R10)(R9*1), Z26; \
	VFMADD231PD Z24, Z26, A0; \
	VFMADD231PD Z25, Z26, A1; \
	VMOVUPD OFF(R11)(R9*1), Z26; \
	VFMADD231PD Z24, Z26, B0; \
	VFMADD231PD Z25, Z26, B1; \
	VMOVUPD OFF(R12)(R9*1), Z26; \
	VFMADD231PD Z24, Z26, C0; \
	VFMADD231PD Z25, Z26, C1

// ZERO6 clears six partial sums.
#define ZERO6(A, B, C, D, E, F) \
	VPXORQ A, A, A; \
	VPXORQ B, B, B; \
	VPXORQ C, C, C; \
	VPXORQ D, D, D; \
	VPXORQ E, E, E; \
	VPXORQ F, F, F

// SUM4 adds the four partial sums of a dot product as dot2AVX does,
// (s0+s1) + (s2+s3), into S0.
#define SUM4(S0, S1, S2, S3) \
	VADDPD S1, S0, S0; \
	VADDPD S3, S2, S2; \
	VADDPD S2, S0, S0

// FINISH8 computes row ROW's L_ji and L_{j,i+1} from its dot products
// T0, T1: L_ji = (½x_ij + h_ij − T0)·(1/L_ii), L_{j,i+1} = (½x_{i+1,j} +
// h_{i+1,j} − T1 − L_ji·L_{i+1,i})·(1/L_{i+1,i+1}), with x_ij at XO(R13)
// and h_ij at HO(R14); Z27 holds ½ and Z28-Z30 the pair's 1/L_ii,
// 1/L_{i+1,i+1} and L_{i+1,i}. Clobbers V0-V2.
#define FINISH8(ROW, XO, HO, T0, T1, V0, V1, V2) \
	VBROADCASTSD XO(R13), V0; \
	VMULPD Z27, V0, V0; \
	VADDPD HO(R14), V0, V0; \
	VSUBPD T0, V0, V0; \
	VMULPD Z28, V0, V0; \
	VMOVUPD V0, (ROW)(CX*1); \
	VBROADCASTSD XO(R13)(AX*8), V1; \
	VMULPD Z27, V1, V1; \
	VADDPD HO(R14)(BX*1), V1, V1; \
	VSUBPD T1, V1, V1; \
	VMULPD Z30, V0, V2; \
	VSUBPD V2, V1, V1; \
	VMULPD Z29, V1, V1; \
	VMOVUPD V1, 64(ROW)(CX*1)

// func chol8AVX512(l, x, h *float64, d int, st *chol8State) int
//
// chol4AVX's factorisation on eight lanes of AVX-512 registers. Its 32
// vector registers keep a tile of three rows' six dot products, four
// partial sums each (Z0-Z23: partial sum r of the tile's dot products in
// Z6r-Z6r+5), in one pass over k; rows i and i+1 are loaded once for the
// tile's three rows. Registers in the loops over rows: DI the factor, BX
// the bytes of a lane-interleaved row (64·d), AX d, CX those of a dot
// product (64·i, also the offset of column i in a row), R8 those of its
// whole groups of four, R9 the offset k, SI and DX rows i and i+1,
// R10-R12 rows j, j+1, j+2 (the last row again past it), R13 and R14
// x_ij and h_ij at row j, R15 the rows left; Z27 ½, Z28-Z30 the pair's
// pivots' reciprocals and L_{i+1,i}, which the pivots (Z0-Z15, label
// pivots8, reached with st.p the column and st.cont saying where to go
// back) leave alone.
TEXT ·chol8AVX512(SB), NOSPLIT, $0-48
	MOVQ l+0(FP), DI
	MOVQ d+24(FP), BX
	SHLQ $6, BX
	VBROADCASTSD cholk<>+0(SB), Z27
	MOVQ st+32(FP), R15
	MOVQ $0, ST_P(R15)
	MOVQ $0, ST_CONT(R15)
	JMP  pivots8

start8:
	MOVQ st+32(FP), R15
	MOVQ $0, ST_I(R15)

pair8:
	MOVQ st+32(FP), R12
	VMOVUPD ST_CN(R12), Z28
	VMOVUPD ST_CN+64(R12), Z29
	VMOVUPD ST_CN+128(R12), Z30
	MOVQ $0, ST_DONE(R12)
	MOVQ d+24(FP), R15
	MOVQ ST_I(R12), CX
	SUBQ CX, R15
	SUBQ $2, R15 // m = d − i − 2 rows below the pair
	JLE  finish8
	MOVQ R15, ST_ROWS(R12)
	PAIRREGS(6, -256)
	ADDQ $ST_QS, R12

	// The next pivots' sums over k < i: rows i+2 and i+3 (i+2 again when
	// m = 1) with themselves and each other, four partial sums each. i is
	// even: a last group of four holds two k.
	LEAQ (DX)(BX*1), R10
	MOVQ R10, R11
	CMPQ R15, $2
	JLT  qinit8
	ADDQ BX, R11

qinit8:
	ZERO6(Z0, Z1, Z2, Z3, Z4, Z5)
	ZERO6(Z6, Z7, Z8, Z9, Z10, Z11)
	XORQ R9, R9
	JMP  qcheck8

qloop8:
	QDOT8(0, Z0, Z1, Z2)
	QDOT8(64, Z3, Z4, Z5)
	QDOT8(128, Z6, Z7, Z8)
	QDOT8(192, Z9, Z10, Z11)
	ADDQ $256, R9

qcheck8:
	CMPQ R9, R8
	JLT  qloop8
	CMPQ R9, CX
	JGE  qsum8
	QDOT8(0, Z0, Z1, Z2)
	QDOT8(64, Z3, Z4, Z5)

qsum8:
	SUM4(Z0, Z3, Z6, Z9)
	SUM4(Z1, Z4, Z7, Z10)
	SUM4(Z2, Z5, Z8, Z11)
	VMOVUPD Z0, (R12)
	VMOVUPD Z1, 64(R12)
	VMOVUPD Z2, 128(R12)

	// R13 = &x[i·d+i+2], R14 = &h[8(i·d+i+2)], R10 row i+2.
	MOVQ st+32(FP), R9
	MOVQ d+24(FP), AX
	MOVQ ST_I(R9), R13
	IMULQ AX, R13
	ADDQ ST_I(R9), R13
	ADDQ $2, R13
	MOVQ R13, R14
	SHLQ $3, R13
	ADDQ x+8(FP), R13
	SHLQ $6, R14
	ADDQ h+16(FP), R14
	LEAQ (DX)(BX*1), R10

rows8:
	MOVQ R10, R11
	MOVQ R10, R12
	CMPQ R15, $2
	JLT  rdots8
	ADDQ BX, R11
	MOVQ R11, R12
	CMPQ R15, $3
	JLT  rdots8
	ADDQ BX, R12

rdots8:
	ZERO6(Z0, Z1, Z2, Z3, Z4, Z5)
	ZERO6(Z6, Z7, Z8, Z9, Z10, Z11)
	ZERO6(Z12, Z13, Z14, Z15, Z16, Z17)
	ZERO6(Z18, Z19, Z20, Z21, Z22, Z23)
	XORQ R9, R9
	JMP  rcheck8

rloop8:
	RDOT8(0, Z0, Z1, Z2, Z3, Z4, Z5)
	RDOT8(64, Z6, Z7, Z8, Z9, Z10, Z11)
	RDOT8(128, Z12, Z13, Z14, Z15, Z16, Z17)
	RDOT8(192, Z18, Z19, Z20, Z21, Z22, Z23)
	ADDQ $256, R9

rcheck8:
	CMPQ R9, R8
	JLT  rloop8
	CMPQ R9, CX
	JGE  rsum8
	RDOT8(0, Z0, Z1, Z2, Z3, Z4, Z5)
	RDOT8(64, Z6, Z7, Z8, Z9, Z10, Z11)

rsum8:
	SUM4(Z0, Z6, Z12, Z18)
	SUM4(Z1, Z7, Z13, Z19)
	SUM4(Z2, Z8, Z14, Z20)
	SUM4(Z3, Z9, Z15, Z21)
	SUM4(Z4, Z10, Z16, Z22)
	SUM4(Z5, Z11, Z17, Z23)
	FINISH8(R10, 0, 0, Z0, Z1, Z6, Z7, Z8)
	CMPQ R15, $2
	JLT  rnext8
	FINISH8(R11, 8, 64, Z2, Z3, Z9, Z10, Z11)
	CMPQ R15, $3
	JLT  rnext8
	FINISH8(R12, 16, 128, Z4, Z5, Z12, Z13, Z14)

rnext8:
	LEAQ (R10)(BX*2), R10
	ADDQ BX, R10
	ADDQ $24, R13
	ADDQ $192, R14
	SUBQ $3, R15
	MOVQ st+32(FP), R9
	CMPQ ST_DONE(R9), $0
	JNE  rmore8
	// The pair's first tile holds rows i+2 and i+3: the next pivots now,
	// their serial chain overlapping the rows below.
	MOVQ $1, ST_DONE(R9)
	MOVQ R10, ST_SAVE(R9)
	MOVQ R13, ST_SAVE+8(R9)
	MOVQ R14, ST_SAVE+16(R9)
	MOVQ R15, ST_SAVE+24(R9)
	NEXTSUMS(64, Z0, Z1, Z2, Z3, Z4, Z5, snext8)

snext8:
	TOPIVOTS(pivots8)

resume8:
	MOVQ st+32(FP), R9
	MOVQ ST_SAVE(R9), R10
	MOVQ ST_SAVE+8(R9), R13
	MOVQ ST_SAVE+16(R9), R14
	MOVQ ST_SAVE+24(R9), R15
	MOVQ ST_I(R9), CX
	PAIRREGS(6, -256)
	MOVQ d+24(FP), AX

rmore8:
	CMPQ R15, $0
	JG   rows8

	NEXTPAIR(pair8)

finish8:
	VZEROUPPER
	MOVQ $0, ret+40(FP)
	RET

	// The pivots of column pair P, P+1 (pivotPair, lane by lane), or of
	// the last column P = d−1 (lastPivot), from the sums in st.s; their
	// factor entries, their 1/L_PP, 1/L_{P+1,P+1}, L_{P+1,P} in st.cn, and
	// the pivots multiplied into the log-determinants.
pivots8:
	PIVOTREGS(6)
	VBROADCASTSD cholk<>+0(SB), Z15
	VPXORQ Z12, Z12, Z12
	VBROADCASTSD cholk<>+16(SB), Z13
	VBROADCASTSD ST_TOL(R15), Z14
	PIVOTA(Z15, Z14, Z0, Z4, Z6)
	PIVOTOK8(Z4, Z6, K1)
	LEAQ 1(R9), R10
	CMPQ R10, AX
	JGE  lastcol8
	PIVOTB(64, Z15, Z4, Z1, Z2, Z6, Z7, Z8, Z10, Z9, Z11)
	// tol·a11 in Z1; K2: p1 passes; else p1 = t − L_{P+1,P}², K3: that passes
	VMULPD Z14, Z2, Z1
	PIVOTOK8(Z7, Z1, K2)
	VMULPD Z11, Z11, Z0
	VSUBPD Z0, Z6, Z6
	PIVOTOK8(Z6, Z1, K3)
	VBLENDMPD Z7, Z6, K2, Z7
	KORW K3, K2, K2
	KANDW K2, K1, K1
	KMOVW K1, R10
	CMPQ R10, $0xff
	JNE  notspd8
	VSQRTPD Z7, Z9
	VBROADCASTSD cholk<>+8(SB), Z0
	VDIVPD Z9, Z0, Z0
	VMOVUPD Z8, (R14)
	VMOVUPD Z11, (R14)(BX*1)
	VMOVUPD Z9, 64(R14)(BX*1)
	VMOVUPD Z10, ST_CN(R15)
	VMOVUPD Z0, ST_CN+64(R15)
	VMOVUPD Z11, ST_CN+128(R15)
	LOGMUL8(Z4, norm80)
norm80:
	LOGMUL8(Z7, norm81)
norm81:
	JMP  pivdone8

lastcol8:
	KMOVW K1, R10
	CMPQ R10, $0xff
	JNE  notspd8
	VSQRTPD Z4, Z8
	VMOVUPD Z8, (R14)
	LOGMUL8(Z4, norm82)
norm82:

pivdone8:
	CMPQ ST_CONT(R15), $0
	JEQ  start8
	JMP  resume8

notspd8:
	VZEROUPPER
	MOVQ $1, ret+40(FP)
	RET

unusual8:
	VZEROUPPER
	MOVQ $2, ret+40(FP)
	RET
