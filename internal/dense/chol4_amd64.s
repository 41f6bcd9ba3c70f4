//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// Offsets in chol4State (checked by TestChol4StateLayout).
#define ST_C 0
#define ST_CN 96
#define ST_S 192
#define ST_QS 288
#define ST_M 384
#define ST_E 416
#define ST_N 448
#define ST_TOL 456
#define ST_I 464
#define ST_P 472
#define ST_CONT 480
#define ST_DONE 488
#define ST_ROWS 496
#define ST_SAVE 504

// LOGMUL multiplies the lanes' pivots in register P into the
// log-determinants' mantissas and exponents as logProd.mul does (normal
// pivots only: a subnormal one leaves by label unusual). Clobbers Y0-Y3
// and R10; R15 holds st. NORMLABEL is the label after the renormalisation.
#define LOGMUL(P, NORMLABEL) \
	VPSRLQ $52, P, Y1; \
	VPXOR Y2, Y2, Y2; \
	VPCMPEQQ Y2, Y1, Y2; \
	VMOVMSKPD Y2, R10; \
	TESTQ R10, R10; \
	JNZ unusual; \
	LOGPROD(P, Y1, Y2, Y3, VPAND, VPOR, NORMLABEL)

// PIVOTOK sets M to the lanes where the pivot P passes pivotOK against
// the diagonal entries' tol·a_jj in TA: P > 0, P <= MaxFloat64 (Y13),
// P >= TA; Y12 holds zeros. Clobbers T.
#define PIVOTOK(P, TA, M, T) \
	VCMPPD $0x1e, Y12, P, M; \
	VCMPPD $0x12, Y13, P, T; \
	VANDPD T, M, M; \
	VCMPPD $0x1d, TA, P, T; \
	VANDPD T, M, M

// DOTS4 is one group of four k of two dot products of row RA with rows
// RB0 and RB1 at offset R9, four partial sums each (Y0-Y3, Y4-Y7).
#define DOTS4(RA, RB0, RB1) \
	VMOVUPD (RA)(R9*1), Y8; \
	VFMADD231PD (RB0)(R9*1), Y8, Y0; \
	VFMADD231PD (RB1)(R9*1), Y8, Y4; \
	VMOVUPD 32(RA)(R9*1), Y9; \
	VFMADD231PD 32(RB0)(R9*1), Y9, Y1; \
	VFMADD231PD 32(RB1)(R9*1), Y9, Y5; \
	VMOVUPD 64(RA)(R9*1), Y10; \
	VFMADD231PD 64(RB0)(R9*1), Y10, Y2; \
	VFMADD231PD 64(RB1)(R9*1), Y10, Y6; \
	VMOVUPD 96(RA)(R9*1), Y11; \
	VFMADD231PD 96(RB0)(R9*1), Y11, Y3; \
	VFMADD231PD 96(RB1)(R9*1), Y11, Y7

// DOT1 is one k of the same two dot products into the partial sums A, B.
#define DOT1(RA, RB0, RB1, A, B) \
	VMOVUPD (RA)(R9*1), Y8; \
	VFMADD231PD (RB0)(R9*1), Y8, A; \
	VFMADD231PD (RB1)(R9*1), Y8, B

// ZERO8 clears the eight partial sums.
#define ZERO8 \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// SUM8 adds the partial sums as dot2AVX does, (s0+s1) + (s2+s3): the
// first dot product in Y0, the second in Y4.
#define SUM8 \
	VADDPD Y1, Y0, Y0; \
	VADDPD Y3, Y2, Y2; \
	VADDPD Y2, Y0, Y0; \
	VADDPD Y5, Y4, Y4; \
	VADDPD Y7, Y6, Y6; \
	VADDPD Y6, Y4, Y4

// func chol4AVX(l, x, h *float64, d int, st *chol4State) int
//
// The whole factorisation of cholLanesOn's assembly path, column pair by
// column pair. Registers in the loops over rows: BX the bytes of a
// lane-interleaved row (32·d), CX those of a dot product (32·i, also the
// offset of column i in a row), R8 those of its whole groups of four, R9
// the offset k, SI and DX rows i and i+1, R10 row j, R11-R14 the entries
// of rows i and i+1 of X and H at column j, R15 the rows left, AX the
// rows left at which the loop stops. The pivots (label pivots) are
// reached with st.p the column and st.cont saying where to go back.
TEXT ·chol4AVX(SB), NOSPLIT, $0-48
	MOVQ l+0(FP), DI
	MOVQ d+24(FP), BX
	SHLQ $5, BX
	MOVQ st+32(FP), R15
	MOVQ $0, ST_P(R15)
	MOVQ $0, ST_CONT(R15)
	JMP  pivots

start:
	MOVQ st+32(FP), R15
	MOVQ $0, ST_I(R15)

pair:
	MOVQ st+32(FP), R12
	VMOVUPD ST_CN(R12), Y0
	VMOVUPD Y0, ST_C(R12)
	VMOVUPD ST_CN+32(R12), Y0
	VMOVUPD Y0, ST_C+32(R12)
	VMOVUPD ST_CN+64(R12), Y0
	VMOVUPD Y0, ST_C+64(R12)
	MOVQ $0, ST_DONE(R12)
	MOVQ d+24(FP), R15
	MOVQ ST_I(R12), CX
	SUBQ CX, R15
	SUBQ $2, R15 // m = d − i − 2 rows below the pair
	JLE  finish
	MOVQ R15, ST_ROWS(R12)
	PAIRREGS(5, -128)
	ADDQ $ST_QS, R12

	// The next pivots' sums over k < i: rows i+2 and i+3 with themselves
	// and each other.
	LEAQ (DX)(BX*1), R10
	MOVQ R10, R11
	CMPQ R15, $2
	JLT  qone
	ADDQ BX, R11

qone:
	ZERO8
	XORQ R9, R9

qaloop:
	CMPQ R9, R8
	JGE  qatail
	DOTS4(R10, R10, R11)
	ADDQ $128, R9
	JMP  qaloop

qatail:
	CMPQ R9, CX
	JGE  qasum
	DOT1(R10, R10, R11, Y0, Y4)
	ADDQ $32, R9
	CMPQ R9, CX
	JGE  qasum
	DOT1(R10, R10, R11, Y1, Y5)
	ADDQ $32, R9
	CMPQ R9, CX
	JGE  qasum
	DOT1(R10, R10, R11, Y2, Y6)
	ADDQ $32, R9

qasum:
	SUM8
	VMOVUPD Y0, (R12)
	CMPQ R15, $2
	JLT  rowsinit
	VMOVUPD Y4, 32(R12)
	ZERO8
	XORQ R9, R9

qbloop:
	CMPQ R9, R8
	JGE  qbtail
	DOTS4(R11, R11, R11)
	ADDQ $128, R9
	JMP  qbloop

qbtail:
	CMPQ R9, CX
	JGE  qbsum
	DOT1(R11, R11, R11, Y0, Y4)
	ADDQ $32, R9
	CMPQ R9, CX
	JGE  qbsum
	DOT1(R11, R11, R11, Y1, Y5)
	ADDQ $32, R9
	CMPQ R9, CX
	JGE  qbsum
	DOT1(R11, R11, R11, Y2, Y6)
	ADDQ $32, R9

qbsum:
	SUM8
	VMOVUPD Y0, 64(R12)

rowsinit:
	MOVQ st+32(FP), R9
	VMOVUPD ST_C(R9), Y12
	VMOVUPD ST_C+32(R9), Y13
	VMOVUPD ST_C+64(R9), Y14
	VBROADCASTSD cholk<>+0(SB), Y15
	// R11 = &x[i·d+i+2], R12 = &x[(i+1)·d+i+2]; R13, R14 the same in h.
	MOVQ ST_I(R9), R11
	MOVQ d+24(FP), AX
	IMULQ AX, R11
	ADDQ ST_I(R9), R11
	ADDQ $2, R11
	MOVQ R11, R13
	SHLQ $3, R11
	ADDQ x+8(FP), R11
	LEAQ (R11)(AX*8), R12
	SHLQ $5, R13
	ADDQ h+16(FP), R13
	LEAQ (R13)(BX*1), R14
	LEAQ (DX)(BX*1), R10
	// The first two rows (one when m = 1) stop the loop for the next
	// pivots, which overlap the remaining rows.
	MOVQ R15, AX
	SUBQ $2, AX
	XORQ R9, R9
	CMPQ AX, $0
	CMOVQLT R9, AX

rows:
	ZERO8
	XORQ R9, R9

rloop:
	CMPQ R9, R8
	JGE  rtail
	DOTS4(R10, SI, DX)
	ADDQ $128, R9
	JMP  rloop

rtail:
	CMPQ R9, CX
	JGE  rsum
	DOT1(R10, SI, DX, Y0, Y4)
	ADDQ $32, R9
	CMPQ R9, CX
	JGE  rsum
	DOT1(R10, SI, DX, Y1, Y5)
	ADDQ $32, R9
	CMPQ R9, CX
	JGE  rsum
	DOT1(R10, SI, DX, Y2, Y6)
	ADDQ $32, R9

rsum:
	SUM8
	// L_ji = (½x_ij + h_ij − t0)·(1/L_ii),
	// L_{j,i+1} = (½x_{i+1,j} + h_{i+1,j} − t1 − L_ji·L_{i+1,i})·(1/L_{i+1,i+1})
	VBROADCASTSD (R11), Y8
	VMULPD Y15, Y8, Y8
	VADDPD (R13), Y8, Y8
	VSUBPD Y0, Y8, Y8
	VMULPD Y12, Y8, Y8
	VMOVUPD Y8, (R10)(CX*1)
	VBROADCASTSD (R12), Y9
	VMULPD Y15, Y9, Y9
	VADDPD (R14), Y9, Y9
	VSUBPD Y4, Y9, Y9
	VMULPD Y14, Y8, Y10
	VSUBPD Y10, Y9, Y9
	VMULPD Y13, Y9, Y9
	VMOVUPD Y9, 32(R10)(CX*1)
	ADDQ BX, R10
	ADDQ $8, R11
	ADDQ $8, R12
	ADDQ $32, R13
	ADDQ $32, R14
	DECQ R15
	CMPQ R15, AX
	JG   rows

	MOVQ st+32(FP), R9
	CMPQ ST_DONE(R9), $0
	JNE  pairend
	MOVQ $1, ST_DONE(R9)
	MOVQ R10, ST_SAVE(R9)
	MOVQ R11, ST_SAVE+8(R9)
	MOVQ R12, ST_SAVE+16(R9)
	MOVQ R13, ST_SAVE+24(R9)
	MOVQ R14, ST_SAVE+32(R9)
	MOVQ R15, ST_SAVE+40(R9)
	NEXTSUMS(32, Y0, Y1, Y2, Y3, Y4, Y5, snext)

snext:
	TOPIVOTS(pivots)

resume:
	MOVQ st+32(FP), R9
	MOVQ ST_SAVE(R9), R10
	MOVQ ST_SAVE+8(R9), R11
	MOVQ ST_SAVE+16(R9), R12
	MOVQ ST_SAVE+24(R9), R13
	MOVQ ST_SAVE+32(R9), R14
	MOVQ ST_SAVE+40(R9), R15
	MOVQ ST_I(R9), CX
	PAIRREGS(5, -128)
	VMOVUPD ST_C(R9), Y12
	VMOVUPD ST_C+32(R9), Y13
	VMOVUPD ST_C+64(R9), Y14
	VBROADCASTSD cholk<>+0(SB), Y15
	XORQ AX, AX
	CMPQ R15, $0
	JG   rows

pairend:
	NEXTPAIR(pair)

finish:
	VZEROUPPER
	MOVQ $0, ret+40(FP)
	RET

	// The pivots of column pair P, P+1 (pivotPair, lane by lane), or of
	// the last column P = d−1 (lastPivot), from the sums in st.s; their
	// factor entries, their 1/L_PP, 1/L_{P+1,P+1}, L_{P+1,P} in st.cn, and
	// the pivots multiplied into the log-determinants.
pivots:
	PIVOTREGS(5)
	VBROADCASTSD cholk<>+0(SB), Y15
	VXORPD Y12, Y12, Y12
	VBROADCASTSD cholk<>+16(SB), Y13
	VBROADCASTSD ST_TOL(R15), Y14
	PIVOTA(Y15, Y14, Y0, Y4, Y6)
	PIVOTOK(Y4, Y6, Y5, Y7)
	LEAQ 1(R9), R10
	CMPQ R10, AX
	JGE  lastcol
	PIVOTB(32, Y15, Y4, Y1, Y2, Y6, Y7, Y8, Y10, Y9, Y11)
	// tol·a11 in Y1; Y3: p1 passes; else p1 = t − L_{P+1,P}², Y0: that passes
	VMULPD Y14, Y2, Y1
	PIVOTOK(Y7, Y1, Y3, Y0)
	VMULPD Y11, Y11, Y0
	VSUBPD Y0, Y6, Y6
	PIVOTOK(Y6, Y1, Y0, Y2)
	VBLENDVPD Y3, Y7, Y6, Y7
	VORPD Y0, Y3, Y3
	VANDPD Y3, Y5, Y5
	VMOVMSKPD Y5, R10
	CMPQ R10, $15
	JNE  notspd
	VSQRTPD Y7, Y9
	VBROADCASTSD cholk<>+8(SB), Y0
	VDIVPD Y9, Y0, Y0
	VMOVUPD Y8, (R14)
	VMOVUPD Y11, (R14)(BX*1)
	VMOVUPD Y9, 32(R14)(BX*1)
	VMOVUPD Y10, ST_CN(R15)
	VMOVUPD Y0, ST_CN+32(R15)
	VMOVUPD Y11, ST_CN+64(R15)
	LOGMUL(Y4, norm0)
norm0:
	LOGMUL(Y7, norm1)
norm1:
	JMP  pivdone

lastcol:
	VMOVMSKPD Y5, R10
	CMPQ R10, $15
	JNE  notspd
	VSQRTPD Y4, Y8
	VMOVUPD Y8, (R14)
	LOGMUL(Y4, norm2)
norm2:

pivdone:
	CMPQ ST_CONT(R15), $0
	JEQ  start
	JMP  resume

notspd:
	VZEROUPPER
	MOVQ $1, ret+40(FP)
	RET

unusual:
	VZEROUPPER
	MOVQ $2, ret+40(FP)
	RET

// func packHalfAVX(h, y0, y1, y2, y3 *float64, d, stride int)
//
// PackHalf4's and PackHalf8's rows four columns at a time: the four
// rows' entries loaded, halved and transposed into four lanes of four
// entries, stride bytes apart; the last d − i mod 4 entries of row i one
// at a time. Registers: R10 the row, R11 the offset i·d+j, R12 the row's
// end, R13 its whole groups' end, R14 the stride.
TEXT ·packHalfAVX(SB), NOSPLIT, $0-56
	MOVQ h+0(FP), DI
	MOVQ y0+8(FP), SI
	MOVQ y1+16(FP), DX
	MOVQ y2+24(FP), R8
	MOVQ y3+32(FP), R9
	MOVQ d+40(FP), CX
	MOVQ stride+48(FP), R14
	VBROADCASTSD cholk<>+0(SB), Y15
	XORQ R10, R10

prow:
	CMPQ R10, CX
	JGE  pdone
	MOVQ R10, R11
	IMULQ CX, R11
	LEAQ (R11)(CX*1), R12
	ADDQ R10, R11
	MOVQ R12, R13
	SUBQ $3, R13

pgroup:
	CMPQ R11, R13
	JGE  psingle
	VMULPD (SI)(R11*8), Y15, Y0
	VMULPD (DX)(R11*8), Y15, Y1
	VMULPD (R8)(R11*8), Y15, Y2
	VMULPD (R9)(R11*8), Y15, Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	MOVQ R11, AX
	IMULQ R14, AX
	VPERM2F128 $0x20, Y6, Y4, Y8
	VMOVUPD Y8, (DI)(AX*1)
	ADDQ R14, AX
	VPERM2F128 $0x20, Y7, Y5, Y8
	VMOVUPD Y8, (DI)(AX*1)
	ADDQ R14, AX
	VPERM2F128 $0x31, Y6, Y4, Y8
	VMOVUPD Y8, (DI)(AX*1)
	ADDQ R14, AX
	VPERM2F128 $0x31, Y7, Y5, Y8
	VMOVUPD Y8, (DI)(AX*1)
	ADDQ $4, R11
	JMP  pgroup

psingle:
	CMPQ R11, R12
	JGE  pnext
	MOVQ R11, AX
	IMULQ R14, AX
	VMULSD (SI)(R11*8), X15, X0
	VMOVSD X0, (DI)(AX*1)
	VMULSD (DX)(R11*8), X15, X0
	VMOVSD X0, 8(DI)(AX*1)
	VMULSD (R8)(R11*8), X15, X0
	VMOVSD X0, 16(DI)(AX*1)
	VMULSD (R9)(R11*8), X15, X0
	VMOVSD X0, 24(DI)(AX*1)
	INCQ R11
	JMP  psingle

pnext:
	INCQ R10
	JMP  prow

pdone:
	VZEROUPPER
	RET

// func cholRowsAVX(l *float64, d, m int, a0, a1, b0, b1, t0, t1 *float64, c *[3]float64, solve bool)
//
// cholLowerVec's rows below a column pair i, i+1, four at a time: for
// r < m, L_ji = (A_ij − t0_r)·c0 and L_{j,i+1} = ((A_{i+1,j} − t1_r) −
// L_ji·c2)·c1 into l + r·d and the entry after it, with A_ij =
// ½a0_r + ½b0_r (a0_r alone when b0 is nil), A_{i+1,j} likewise from a1
// and b1; with solve, solveLowerTVec's columns j of rows i, i+1 of Z
// instead, the second (A_{i+1,j} − (t1_r + L_ji·c2))·c1. Registers: R12
// the offset 8r, DI row j of l, BX its stride.
TEXT ·cholRowsAVX(SB), NOSPLIT, $0-81
	MOVQ l+0(FP), DI
	MOVQ d+8(FP), BX
	SHLQ $3, BX
	MOVQ m+16(FP), CX
	MOVQ a0+24(FP), SI
	MOVQ a1+32(FP), DX
	MOVQ b0+40(FP), R8
	MOVQ b1+48(FP), R9
	MOVQ t0+56(FP), R10
	MOVQ t1+64(FP), R11
	MOVQ c+72(FP), AX
	VBROADCASTSD (AX), Y12
	VBROADCASTSD 8(AX), Y13
	VBROADCASTSD 16(AX), Y14
	VBROADCASTSD cholk<>+0(SB), Y15
	XORQ R12, R12

crows4:
	CMPQ CX, $4
	JLT  crows1
	VMOVUPD (SI)(R12*1), Y0
	VMOVUPD (DX)(R12*1), Y2
	TESTQ R8, R8
	JZ   cone4
	VMULPD Y15, Y0, Y0
	VMULPD (R8)(R12*1), Y15, Y1
	VADDPD Y1, Y0, Y0
	VMULPD Y15, Y2, Y2
	VMULPD (R9)(R12*1), Y15, Y3
	VADDPD Y3, Y2, Y2

cone4:
	VSUBPD (R10)(R12*1), Y0, Y0
	VMULPD Y12, Y0, Y0
	VMULPD Y14, Y0, Y3
	CMPB solve+80(FP), $0
	JNE  csolve4
	VSUBPD (R11)(R12*1), Y2, Y2
	VSUBPD Y3, Y2, Y2
	JMP  cstore4

csolve4:
	VADDPD (R11)(R12*1), Y3, Y3
	VSUBPD Y3, Y2, Y2

cstore4:
	VMULPD Y13, Y2, Y2
	// Rows j..j+3: (u0, v0), (u1, v1), (u2, v2), (u3, v3).
	VUNPCKLPD Y2, Y0, Y4
	VUNPCKHPD Y2, Y0, Y5
	VMOVUPD X4, (DI)
	LEAQ (DI)(BX*1), R13
	VMOVUPD X5, (R13)
	ADDQ BX, R13
	VEXTRACTF128 $1, Y4, X6
	VMOVUPD X6, (R13)
	ADDQ BX, R13
	VEXTRACTF128 $1, Y5, X7
	VMOVUPD X7, (R13)
	LEAQ (R13)(BX*1), DI
	ADDQ $32, R12
	SUBQ $4, CX
	JMP  crows4

crows1:
	CMPQ CX, $0
	JLE  crowsdone
	VMOVSD (SI)(R12*1), X0
	VMOVSD (DX)(R12*1), X2
	TESTQ R8, R8
	JZ   cone1
	VMULSD X15, X0, X0
	VMULSD (R8)(R12*1), X15, X1
	VADDSD X1, X0, X0
	VMULSD X15, X2, X2
	VMULSD (R9)(R12*1), X15, X3
	VADDSD X3, X2, X2

cone1:
	VSUBSD (R10)(R12*1), X0, X0
	VMULSD X12, X0, X0
	VMULSD X14, X0, X3
	CMPB solve+80(FP), $0
	JNE  csolve1
	VSUBSD (R11)(R12*1), X2, X2
	VSUBSD X3, X2, X2
	JMP  cstore1

csolve1:
	VADDSD (R11)(R12*1), X3, X3
	VSUBSD X3, X2, X2

cstore1:
	VMULSD X13, X2, X2
	VMOVSD X0, (DI)
	VMOVSD X2, 8(DI)
	ADDQ BX, DI
	ADDQ $8, R12
	DECQ CX
	JMP  crows1

crowsdone:
	VZEROUPPER
	RET
