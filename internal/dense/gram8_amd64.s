//go:build amd64 && !purego

#include "textflag.h"

// The eight-lane triangular solve and Gram product of spd's fastEigen
// (SolveLowerT8, GramUpperT8): each lane's dot products are dot2AVX's,
// four partial sums by k mod 4 (from the start dot2AVX takes), fused
// multiply-adds in order of k, added pairwise, (s0 + s1) + (s2 + s3); a
// lane's entry is one vector element, so the four partial sums are four
// accumulators. Two rows of the left operand at a time share the loads
// of the two right-hand vectors: sixteen accumulators, Z0-Z15 (class q:
// row 0 with x0 in Zq, with x1 in Z(4+q), row 1 in Z(8+q), Z(12+q)).
// Registers: R10 and R11 the two rows (the same row for a single one),
// SI and DX x0 and x1, R12 the offset of k in a row (64 bytes an
// entry), R13 that in x0 and x1 (8 bytes an entry when they are scalars
// broadcast to every lane), R14 the end of the sums.

// ACCB adds class q's terms at entry offsets OA (rows) and OX (scalars
// x0, x1) into A0-A3. Clobbers Z24-Z27.
#define ACCB(OA, OX, A0, A1, A2, A3) \
	VMOVUPD OA(R10)(R12*1), Z24; \
	VMOVUPD OA(R11)(R12*1), Z25; \
	VBROADCASTSD OX(SI)(R13*1), Z26; \
	VBROADCASTSD OX(DX)(R13*1), Z27; \
	VFMADD231PD Z26, Z24, A0; \
	VFMADD231PD Z27, Z24, A1; \
	VFMADD231PD Z26, Z25, A2; \
	VFMADD231PD Z27, Z25, A3

// ACCV is ACCB with x0 and x1 lane vectors at offset OA.
#define ACCV(OA, A0, A1, A2, A3) \
	VMOVUPD OA(R10)(R12*1), Z24; \
	VMOVUPD OA(R11)(R12*1), Z25; \
	VMOVUPD OA(SI)(R12*1), Z26; \
	VMOVUPD OA(DX)(R12*1), Z27; \
	VFMADD231PD Z26, Z24, A0; \
	VFMADD231PD Z27, Z24, A1; \
	VFMADD231PD Z26, Z25, A2; \
	VFMADD231PD Z27, Z25, A3

#define ZERO16 \
	VPXORQ Z0, Z0, Z0; \
	VPXORQ Z1, Z1, Z1; \
	VPXORQ Z2, Z2, Z2; \
	VPXORQ Z3, Z3, Z3; \
	VPXORQ Z4, Z4, Z4; \
	VPXORQ Z5, Z5, Z5; \
	VPXORQ Z6, Z6, Z6; \
	VPXORQ Z7, Z7, Z7; \
	VPXORQ Z8, Z8, Z8; \
	VPXORQ Z9, Z9, Z9; \
	VPXORQ Z10, Z10, Z10; \
	VPXORQ Z11, Z11, Z11; \
	VPXORQ Z12, Z12, Z12; \
	VPXORQ Z13, Z13, Z13; \
	VPXORQ Z14, Z14, Z14; \
	VPXORQ Z15, Z15, Z15

// RED4 leaves (A0 + A1) + (A2 + A3) in A0.
#define RED4(A0, A1, A2, A3) \
	VADDPD A1, A0, A0; \
	VADDPD A3, A2, A2; \
	VADDPD A2, A0, A0

// REDALL leaves the four sums in Z0 (row 0, x0), Z4, Z8 and Z12.
#define REDALL \
	RED4(Z0, Z1, Z2, Z3); \
	RED4(Z4, Z5, Z6, Z7); \
	RED4(Z8, Z9, Z10, Z11); \
	RED4(Z12, Z13, Z14, Z15)

// func solveRows8AVX512(z *float64, d, i int, l0, l1, m0, m1 *float64, c *[3]float64)
//
// SolveLowerT8's columns r < i of rows i and i+1 of Z (lanes of Zᵀ's rows
// r at z, row stride d): with t0 = Σ_k Zᵀ_rk L_ik and t1 = Σ_k Zᵀ_rk
// L_{i+1,k} over k < i from r rounded down to a multiple of 4 (dot2AVX's
// tri), Z_ir = (M_ir − t0)·c0 and Z_{i+1,r} = (M_{i+1,r} − (t1 +
// Z_ir·c2))·c1, cholRowsAVX's operations with solve; l0, l1 are L's
// rows i, i+1 (scalars), m0, m1 M's (lanes). With l1 nil only row i:
// Z_ir = (M_ir − t0)·c0, solveLowerTVec's odd last row.
TEXT ·solveRows8AVX512(SB), NOSPLIT, $0-64
	MOVQ z+0(FP), R10
	MOVQ d+8(FP), BX
	SHLQ $6, BX
	MOVQ i+16(FP), CX
	MOVQ CX, DI
	SHLQ $6, DI       // offset of column i in a row
	MOVQ DI, R14      // end of the sums
	MOVQ l0+24(FP), SI
	MOVQ l1+32(FP), DX
	MOVQ m0+40(FP), R8
	MOVQ m1+48(FP), R9
	MOVQ c+56(FP), AX
	VBROADCASTSD (AX), Z28
	VBROADCASTSD 8(AX), Z29
	VBROADCASTSD 16(AX), Z30
	XORQ R15, R15     // r
	TESTQ DX, DX
	JNE  srows
	MOVQ SI, DX

srows:
	CMPQ R15, CX
	JGE  sdone
	LEAQ (R10)(BX*1), R11
	LEAQ 1(R15), AX
	CMPQ AX, CX
	JLT  spair
	MOVQ R10, R11     // a single last row

spair:
	ZERO16
	MOVQ R15, R12
	ANDQ $-4, R12
	MOVQ R12, R13
	SHLQ $6, R12
	SHLQ $3, R13

sloop:
	LEAQ 256(R12), AX
	CMPQ AX, R14
	JGT  stail
	ACCB(0, 0, Z0, Z4, Z8, Z12)
	ACCB(64, 8, Z1, Z5, Z9, Z13)
	ACCB(128, 16, Z2, Z6, Z10, Z14)
	ACCB(192, 24, Z3, Z7, Z11, Z15)
	ADDQ $256, R12
	ADDQ $32, R13
	JMP  sloop

stail:
	CMPQ R12, R14
	JGE  ssum
	ACCB(0, 0, Z0, Z4, Z8, Z12)
	LEAQ 64(R12), AX
	CMPQ AX, R14
	JGE  ssum
	ACCB(64, 8, Z1, Z5, Z9, Z13)
	LEAQ 128(R12), AX
	CMPQ AX, R14
	JGE  ssum
	ACCB(128, 16, Z2, Z6, Z10, Z14)

ssum:
	REDALL
	// Row r: Z_ir, then Z_{i+1,r} unless single.
	VMOVUPD (R8), Z16
	VSUBPD Z0, Z16, Z16
	VMULPD Z28, Z16, Z16
	VMOVUPD Z16, (R10)(DI*1)
	CMPQ l1+32(FP), $0
	JEQ  ssingle
	VMULPD Z30, Z16, Z17
	VADDPD Z4, Z17, Z17
	VMOVUPD (R9), Z18
	VSUBPD Z17, Z18, Z18
	VMULPD Z29, Z18, Z18
	VMOVUPD Z18, 64(R10)(DI*1)
	CMPQ R11, R10
	JEQ  sdone
	// Row r+1.
	VMOVUPD 64(R8), Z16
	VSUBPD Z8, Z16, Z16
	VMULPD Z28, Z16, Z16
	VMOVUPD Z16, (R11)(DI*1)
	VMULPD Z30, Z16, Z17
	VADDPD Z12, Z17, Z17
	VMOVUPD 64(R9), Z18
	VSUBPD Z17, Z18, Z18
	VMULPD Z29, Z18, Z18
	VMOVUPD Z18, 64(R11)(DI*1)
	JMP  snext

ssingle:
	CMPQ R11, R10
	JEQ  sdone
	VMOVUPD 64(R8), Z16
	VSUBPD Z8, Z16, Z16
	VMULPD Z28, Z16, Z16
	VMOVUPD Z16, (R11)(DI*1)

snext:
	LEAQ (R11)(BX*1), R10
	ADDQ $128, R8
	ADDQ $128, R9
	ADDQ $2, R15
	JMP  srows

sdone:
	VZEROUPPER
	RET

// func gramRows8AVX512(h, z *float64, d, b int)
//
// GramUpperT8's columns b and b+1 of G for rows a <= b+1: with t0 =
// Σ_k Zᵀ_ak Zᵀ_bk and t1 = Σ_k Zᵀ_ak Zᵀ_{b+1,k} over k > b (dot2AVX's,
// from k = b+1), G_ab = Zᵀ_ab·Zᵀ_bb + t0 and G_{a,b+1} = t1, as
// gramUpperTVec computes them (G_{b+1,b}, below the diagonal, is written
// too, from Zᵀ's zero there, and not read). Lanes of Zᵀ at z, of G at h,
// row stride d.
TEXT ·gramRows8AVX512(SB), NOSPLIT, $0-32
	MOVQ h+0(FP), DI
	MOVQ z+8(FP), R10
	SUBQ R10, DI      // h − z
	MOVQ d+16(FP), BX
	MOVQ b+24(FP), CX
	MOVQ BX, R14
	SUBQ CX, R14
	DECQ R14
	SHLQ $6, R14      // the sums' end: d − b − 1 entries
	SHLQ $6, BX
	LEAQ 1(CX), AX
	SHLQ $6, AX
	ADDQ AX, R10      // row 0 from column b+1
	MOVQ CX, SI
	IMULQ BX, SI
	ADDQ R10, SI      // row b from column b+1
	LEAQ (SI)(BX*1), DX
	VMOVUPD -64(SI), Z28 // Zᵀ_bb
	ADDQ $2, CX       // rows left

grows:
	TESTQ CX, CX
	JLE  gdone
	LEAQ (R10)(BX*1), R11
	CMPQ CX, $1
	JNE  gpair
	MOVQ R10, R11

gpair:
	ZERO16
	XORQ R12, R12

gloop:
	LEAQ 256(R12), AX
	CMPQ AX, R14
	JGT  gtail
	ACCV(0, Z0, Z4, Z8, Z12)
	ACCV(64, Z1, Z5, Z9, Z13)
	ACCV(128, Z2, Z6, Z10, Z14)
	ACCV(192, Z3, Z7, Z11, Z15)
	ADDQ $256, R12
	JMP  gloop

gtail:
	CMPQ R12, R14
	JGE  gsum
	ACCV(0, Z0, Z4, Z8, Z12)
	LEAQ 64(R12), AX
	CMPQ AX, R14
	JGE  gsum
	ACCV(64, Z1, Z5, Z9, Z13)
	LEAQ 128(R12), AX
	CMPQ AX, R14
	JGE  gsum
	ACCV(128, Z2, Z6, Z10, Z14)

gsum:
	REDALL
	VMOVUPD -64(R10), Z16
	VMULPD Z28, Z16, Z16
	VADDPD Z0, Z16, Z16
	VMOVUPD Z16, -64(R10)(DI*1)
	VMOVUPD Z4, (R10)(DI*1)
	CMPQ R11, R10
	JEQ  gdone
	VMOVUPD -64(R11), Z16
	VMULPD Z28, Z16, Z16
	VADDPD Z8, Z16, Z16
	VMOVUPD Z16, -64(R11)(DI*1)
	VMOVUPD Z12, (R11)(DI*1)
	LEAQ (R11)(BX*1), R10
	SUBQ $2, CX
	JMP  grows

gdone:
	VZEROUPPER
	RET

// TRANS8 transposes the 8×8 block of rows Z0-Z7 into Z8-Z15 (entry k
// of every row in Z(8+k)). Clobbers Z16-Z23.
#define TRANS8 \
	VUNPCKLPD Z1, Z0, Z16; \
	VUNPCKHPD Z1, Z0, Z17; \
	VUNPCKLPD Z3, Z2, Z18; \
	VUNPCKHPD Z3, Z2, Z19; \
	VUNPCKLPD Z5, Z4, Z20; \
	VUNPCKHPD Z5, Z4, Z21; \
	VUNPCKLPD Z7, Z6, Z22; \
	VUNPCKHPD Z7, Z6, Z23; \
	VSHUFF64X2 $0x88, Z18, Z16, Z0; \
	VSHUFF64X2 $0x88, Z22, Z20, Z1; \
	VSHUFF64X2 $0x88, Z1, Z0, Z8; \
	VSHUFF64X2 $0xdd, Z1, Z0, Z12; \
	VSHUFF64X2 $0xdd, Z18, Z16, Z0; \
	VSHUFF64X2 $0xdd, Z22, Z20, Z1; \
	VSHUFF64X2 $0x88, Z1, Z0, Z10; \
	VSHUFF64X2 $0xdd, Z1, Z0, Z14; \
	VSHUFF64X2 $0x88, Z19, Z17, Z0; \
	VSHUFF64X2 $0x88, Z23, Z21, Z1; \
	VSHUFF64X2 $0x88, Z1, Z0, Z9; \
	VSHUFF64X2 $0xdd, Z1, Z0, Z13; \
	VSHUFF64X2 $0xdd, Z19, Z17, Z0; \
	VSHUFF64X2 $0xdd, Z23, Z21, Z1; \
	VSHUFF64X2 $0x88, Z1, Z0, Z11; \
	VSHUFF64X2 $0xdd, Z1, Z0, Z15

// LOADROWS loads entries k.. of the eight rows (R12 the offset of k) on
// the lanes of K1 (zero elsewhere).
#define LOADROWS \
	VMOVUPD.Z (AX)(R12*1), K1, Z0; \
	VMOVUPD.Z (BX)(R12*1), K1, Z1; \
	VMOVUPD.Z (CX)(R12*1), K1, Z2; \
	VMOVUPD.Z (DX)(R12*1), K1, Z3; \
	VMOVUPD.Z (R8)(R12*1), K1, Z4; \
	VMOVUPD.Z (R9)(R12*1), K1, Z5; \
	VMOVUPD.Z (R10)(R12*1), K1, Z6; \
	VMOVUPD.Z (R11)(R12*1), K1, Z7

// func packLower8AVX512(mz *float64, m *[8]*float64, d int)
//
// M_p's lower triangles into mz, interleaved: mz[(i·d+k)·8+p] =
// m[p][i·d+k] for k <= i, eight k of the eight lanes an 8×8 transpose
// (the last of a row by masked loads, its entries beyond k = i not
// stored). Registers: AX, BX, CX, DX, R8-R11 the lanes' row i, R12 the
// offset of k in them (mz's is 8·R12), R15 mz's row i, DI the entries
// of the row left, R14 rows left, SI a row's bytes.
TEXT ·packLower8AVX512(SB), NOSPLIT, $0-24
	MOVQ mz+0(FP), R15
	MOVQ m+8(FP), DI
	MOVQ d+16(FP), R14
	MOVQ R14, SI
	SHLQ $3, SI
	MOVQ 0(DI), AX
	MOVQ 8(DI), BX
	MOVQ 16(DI), CX
	MOVQ 24(DI), DX
	MOVQ 32(DI), R8
	MOVQ 40(DI), R9
	MOVQ 48(DI), R10
	MOVQ 56(DI), R11

prow:
	TESTQ R14, R14
	JLE  pdone
	XORQ R12, R12
	MOVQ d+16(FP), DI
	SUBQ R14, DI
	INCQ DI // row i = d − R14 has i+1 entries

pchunk:
	CMPQ DI, $8
	JLT  plast
	KXNORW K1, K1, K1
	LOADROWS
	TRANS8
	VMOVUPD Z8, (R15)(R12*8)
	VMOVUPD Z9, 64(R15)(R12*8)
	VMOVUPD Z10, 128(R15)(R12*8)
	VMOVUPD Z11, 192(R15)(R12*8)
	VMOVUPD Z12, 256(R15)(R12*8)
	VMOVUPD Z13, 320(R15)(R12*8)
	VMOVUPD Z14, 384(R15)(R12*8)
	VMOVUPD Z15, 448(R15)(R12*8)
	ADDQ $64, R12
	SUBQ $8, DI
	JMP  pchunk

plast:
	TESTQ DI, DI
	JLE  pnext
	MOVQ $-1, R13
	SHLXQ DI, R13, R13
	NOTQ R13
	KMOVW R13, K1
	LOADROWS
	TRANS8
	VMOVUPD Z8, (R15)(R12*8)
	CMPQ DI, $1
	JEQ  pnext
	VMOVUPD Z9, 64(R15)(R12*8)
	CMPQ DI, $2
	JEQ  pnext
	VMOVUPD Z10, 128(R15)(R12*8)
	CMPQ DI, $3
	JEQ  pnext
	VMOVUPD Z11, 192(R15)(R12*8)
	CMPQ DI, $4
	JEQ  pnext
	VMOVUPD Z12, 256(R15)(R12*8)
	CMPQ DI, $5
	JEQ  pnext
	VMOVUPD Z13, 320(R15)(R12*8)
	CMPQ DI, $6
	JEQ  pnext
	VMOVUPD Z14, 384(R15)(R12*8)

pnext:
	ADDQ SI, AX
	ADDQ SI, BX
	ADDQ SI, CX
	ADDQ SI, DX
	ADDQ SI, R8
	ADDQ SI, R9
	ADDQ SI, R10
	ADDQ SI, R11
	MOVQ SI, R13
	SHLQ $3, R13
	ADDQ R13, R15
	DECQ R14
	JMP  prow

pdone:
	VZEROUPPER
	RET

// func maxAbsUpper8AVX512(z *float64, d int, mx *[8]float64) (bad uint64)
//
// maxAbsUpperAVX on eight lanes: each lane's largest magnitude over the
// upper triangle of the interleaved d×d z into mx, and the lanes with an
// entry there that is NaN or ±Inf: !(|z| <= MaxFloat64).
TEXT ·maxAbsUpper8AVX512(SB), NOSPLIT, $0-32
	MOVQ z+0(FP), DI
	MOVQ d+8(FP), BX
	MOVQ mx+16(FP), AX
	MOVQ $0x7fffffffffffffff, DX
	VPBROADCASTQ DX, Z30
	MOVQ $0x7fefffffffffffff, DX
	VPBROADCASTQ DX, Z31
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	KXORW K1, K1, K1
	MOVQ BX, R9
	SHLQ $6, R9
	ADDQ $64, R9 // from (i, i) to (i+1, i+1)
	MOVQ BX, CX // entries in row i's upper part

urow:
	TESTQ CX, CX
	JLE  udone
	MOVQ DI, SI
	MOVQ CX, DX

uent4:
	// Four entries at a time into four maxima (a maximum is exact in
	// any order): one would wait on VMAXPD's latency.
	CMPQ DX, $4
	JLT  uent
	VPANDQ (SI), Z30, Z2
	VPANDQ 64(SI), Z30, Z3
	VPANDQ 128(SI), Z30, Z4
	VPANDQ 192(SI), Z30, Z5
	VMAXPD Z2, Z0, Z0
	VMAXPD Z3, Z1, Z1
	VMAXPD Z4, Z6, Z6
	VMAXPD Z5, Z7, Z7
	VCMPPD $6, Z31, Z2, K2
	VCMPPD $6, Z31, Z3, K3
	VCMPPD $6, Z31, Z4, K4
	VCMPPD $6, Z31, Z5, K5
	KORW K2, K3, K2
	KORW K4, K5, K4
	KORW K2, K1, K1
	KORW K4, K1, K1
	ADDQ $256, SI
	SUBQ $4, DX
	JMP  uent4

uent:
	TESTQ DX, DX
	JLE  unext
	VPANDQ (SI), Z30, Z2
	VMAXPD Z2, Z0, Z0
	VCMPPD $6, Z31, Z2, K2
	KORW K2, K1, K1
	ADDQ $64, SI
	DECQ DX
	JMP  uent

unext:
	ADDQ R9, DI
	DECQ CX
	JMP  urow

udone:
	VMAXPD Z1, Z0, Z0
	VMAXPD Z7, Z6, Z6
	VMAXPD Z6, Z0, Z0
	VMOVUPD Z0, (AX)
	KMOVW K1, AX
	MOVQ AX, bad+24(FP)
	VZEROUPPER
	RET
