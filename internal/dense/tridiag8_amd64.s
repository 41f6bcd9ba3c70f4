//go:build amd64 && !purego

#include "textflag.h"

// COL8 is column j (at byte offset OFF from AX) of a row pair of
// tridiagPairs8AVX512, eight lanes: x = (a_ij − w_j·v_i) − v_j·w_i and
// y likewise for row i+1, stored; the rows' partial sums A0 += x·v'_j,
// A1 += y·v'_j; q'_j = (q'_j + x·v'_i) + y·v'_{i+1}, stored; each a fused
// multiply-add, as tridiagPairsAVX's. Clobbers Z14-Z19.
#define COL8(OFF, A0, A1) \
	VMOVUPD OFF(R8)(AX*1), Z14; \
	VMOVUPD OFF(R9)(AX*1), Z15; \
	VMOVUPD OFF(R13)(AX*1), Z16; \
	VFNMADD231PD Z15, Z0, Z16; \
	VFNMADD231PD Z14, Z1, Z16; \
	VMOVUPD OFF(R14)(AX*1), Z17; \
	VFNMADD231PD Z15, Z2, Z17; \
	VFNMADD231PD Z14, Z3, Z17; \
	VMOVUPD Z16, OFF(R13)(AX*1); \
	VMOVUPD Z17, OFF(R14)(AX*1); \
	VMOVUPD OFF(R10)(AX*1), Z18; \
	VFMADD231PD Z18, Z16, A0; \
	VFMADD231PD Z18, Z17, A1; \
	VMOVUPD OFF(R11)(AX*1), Z19; \
	VFMADD231PD Z16, Z4, Z19; \
	VFMADD231PD Z17, Z5, Z19; \
	VMOVUPD Z19, OFF(R11)(AX*1)

// func tridiagPairs8AVX512(a *float64, n, m int, v, w, nv, q *float64, qv *[8]float64)
//
// Entries are lane-interleaved, 64 bytes each. Registers: DI the block,
// BX the bytes of a row (64·n), DX those of m entries, R8-R11 v, w, v'
// and q', R12 the offset of column i (64·i), R13 and R14 rows i and i+1,
// AX the offset of column j; Z0-Z5 v_i, w_i, v_{i+1}, w_{i+1}, v'_i,
// v'_{i+1}; Z6-Z9 and Z10-Z13 the four partial sums of rows i and i+1
// (column j's in sum (j−i−2) mod 4, as tridiagPairsAVX's vector lanes);
// Z31 q'ᵀv'.
TEXT ·tridiagPairs8AVX512(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), BX
	SHLQ $6, BX
	MOVQ m+16(FP), DX
	SHLQ $6, DX
	MOVQ v+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ nv+40(FP), R10
	MOVQ q+48(FP), R11
	MOVQ qv+56(FP), CX
	VMOVUPD (CX), Z31
	MOVQ $64, R12
	LEAQ (DI)(BX*1), R13
	LEAQ (R13)(BX*1), R14

pair8:
	LEAQ 64(R12), AX
	CMPQ AX, DX
	JGE  done8
	VMOVUPD (R8)(R12*1), Z0
	VMOVUPD (R9)(R12*1), Z1
	VMOVUPD 64(R8)(R12*1), Z2
	VMOVUPD 64(R9)(R12*1), Z3
	VMOVUPD (R10)(R12*1), Z4
	VMOVUPD 64(R10)(R12*1), Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	LEAQ 128(R12), AX // column i+2

cols8:
	LEAQ 256(AX), SI
	CMPQ SI, DX
	JGT  tail8
	COL8(0, Z6, Z10)
	COL8(64, Z7, Z11)
	COL8(128, Z8, Z12)
	COL8(192, Z9, Z13)
	MOVQ SI, AX
	JMP  cols8

tail8:
	CMPQ AX, DX
	JGE  head8
	COL8(0, Z6, Z10)
	LEAQ 64(AX), SI
	CMPQ SI, DX
	JGE  head8
	COL8(64, Z7, Z11)
	LEAQ 128(AX), SI
	CMPQ SI, DX
	JGE  head8
	COL8(128, Z8, Z12)

head8:
	// The 2×2 diagonal block: x00, x01, x11, as tridiagPairsAVX's.
	VMOVUPD (R13)(R12*1), Z20
	VMULPD Z1, Z0, Z21
	VADDPD Z21, Z21, Z21
	VSUBPD Z21, Z20, Z20
	VMOVUPD Z20, (R13)(R12*1)
	VMOVUPD 64(R13)(R12*1), Z22
	VMULPD Z3, Z0, Z23
	VFMADD231PD Z2, Z1, Z23
	VSUBPD Z23, Z22, Z22
	VMOVUPD Z22, 64(R13)(R12*1)
	VMOVUPD 64(R14)(R12*1), Z24
	VMULPD Z3, Z2, Z25
	VADDPD Z25, Z25, Z25
	VSUBPD Z25, Z24, Z24
	VMOVUPD Z24, 64(R14)(R12*1)
	// The partial sums, (s₀+s₁)+(s₂+s₃).
	VADDPD Z7, Z6, Z6
	VADDPD Z9, Z8, Z8
	VADDPD Z8, Z6, Z6
	VADDPD Z11, Z10, Z10
	VADDPD Z13, Z12, Z12
	VADDPD Z12, Z10, Z10
	// s0 = ((x00 v'_i + x01 v'_{i+1}) + sums) + q'_i, s1 likewise.
	VMULPD Z4, Z20, Z26
	VFMADD231PD Z5, Z22, Z26
	VADDPD Z6, Z26, Z26
	VADDPD (R11)(R12*1), Z26, Z26
	VMOVUPD Z26, (R11)(R12*1)
	VMULPD Z4, Z22, Z27
	VFMADD231PD Z5, Z24, Z27
	VADDPD Z10, Z27, Z27
	VADDPD 64(R11)(R12*1), Z27, Z27
	VMOVUPD Z27, 64(R11)(R12*1)
	VFMADD231PD Z4, Z26, Z31
	VFMADD231PD Z5, Z27, Z31
	ADDQ $128, R12
	LEAQ (R14)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	JMP  pair8

done8:
	VMOVUPD Z31, (CX)
	VZEROUPPER
	RET

// func tridiagRow8AVX512(a *float64, m int, v, w *float64, tau, kk, xn *[8]float64)
//
// The update of row 0 of a step's block A₂₂ (at a, m entries), eight
// lanes, each lane's operations those of tridiagonalizeOn's plain loop
// (no fused multiply-adds): w_j = τw_j + kk·v_j; a_0 −= v_0w_0 + w_0v_0,
// a_1 −= v_0w_1 + w_0v_1, a_j −= v_0w_j + w_0v_j for j >= 2, with
// xn = Σ_{j>=2} a_j² in order. Registers: DI the row, DX the bytes of m
// entries, R8 v, R9 w, AX the offset of column j; Z0 τ, Z1 kk, Z2 v_0,
// Z4 w_0, Z11 xn.
TEXT ·tridiagRow8AVX512(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ m+8(FP), DX
	SHLQ $6, DX
	MOVQ v+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ tau+32(FP), AX
	VMOVUPD (AX), Z0
	MOVQ kk+40(FP), AX
	VMOVUPD (AX), Z1
	VMOVUPD (R8), Z2
	VMULPD (R9), Z0, Z4
	VMULPD Z2, Z1, Z5
	VADDPD Z5, Z4, Z4
	VMOVUPD Z4, (R9)
	VMOVUPD 64(R8), Z6
	VMULPD 64(R9), Z0, Z7
	VMULPD Z6, Z1, Z8
	VADDPD Z8, Z7, Z7
	VMOVUPD Z7, 64(R9)
	VMULPD Z4, Z2, Z9
	VMULPD Z2, Z4, Z10
	VADDPD Z10, Z9, Z9
	VMOVUPD (DI), Z10
	VSUBPD Z9, Z10, Z10
	VMOVUPD Z10, (DI)
	VMULPD Z7, Z2, Z9
	VMULPD Z6, Z4, Z10
	VADDPD Z10, Z9, Z9
	VMOVUPD 64(DI), Z10
	VSUBPD Z9, Z10, Z10
	VMOVUPD Z10, 64(DI)
	VPXORQ Z11, Z11, Z11
	MOVQ $128, AX

row8:
	CMPQ AX, DX
	JGE  rowdone8
	VMOVUPD (R8)(AX*1), Z12
	VMULPD (R9)(AX*1), Z0, Z13
	VMULPD Z12, Z1, Z14
	VADDPD Z14, Z13, Z13
	VMOVUPD Z13, (R9)(AX*1)
	VMULPD Z13, Z2, Z15
	VMULPD Z12, Z4, Z16
	VADDPD Z16, Z15, Z15
	VMOVUPD (DI)(AX*1), Z17
	VSUBPD Z15, Z17, Z17
	VMOVUPD Z17, (DI)(AX*1)
	VMULPD Z17, Z17, Z18
	VADDPD Z18, Z11, Z11
	ADDQ $64, AX
	JMP  row8

rowdone8:
	MOVQ xn+48(FP), AX
	VMOVUPD Z11, (AX)
	VZEROUPPER
	RET

// func scale8AVX512(v *float64, m int, scal *[8]float64, mask uint64)
//
// v_j *= scal for j < m in the lanes of mask, the others untouched.
TEXT ·scale8AVX512(SB), NOSPLIT, $0-32
	MOVQ v+0(FP), DI
	MOVQ m+8(FP), CX
	MOVQ scal+16(FP), AX
	VMOVUPD (AX), Z0
	MOVQ mask+24(FP), AX
	KMOVW AX, K1

scale8:
	TESTQ CX, CX
	JLE  scaledone8
	VMOVUPD (DI), Z1
	VMULPD Z0, Z1, K1, Z1
	VMOVUPD Z1, (DI)
	ADDQ $64, DI
	DECQ CX
	JMP  scale8

scaledone8:
	VZEROUPPER
	RET

// func tridiagProd8AVX512(a *float64, n, m int, v, p *float64, qv *[8]float64)
//
// Step 0's product p = A₂₂v of tridiagLanesOn (p zero on entry), eight
// lanes, each lane's operations those of tridiagonalizeOn's plain loop:
// rows in pairs, s0 = a_ii·v_i + a_{i,i+1}·v_{i+1} and s1 likewise, then
// s0 += x_j·v_j in order of j, p_j += x_j·v_i + y_j·v_{i+1}; qv =
// Σ (s0·v_i + s1·v_{i+1}); the odd last row alone. Registers as
// tridiagPairs8AVX512's, R11 p.
TEXT ·tridiagProd8AVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), BX
	SHLQ $6, BX
	MOVQ m+16(FP), DX
	SHLQ $6, DX
	MOVQ v+24(FP), R8
	MOVQ p+32(FP), R11
	MOVQ qv+40(FP), CX
	VPXORQ Z31, Z31, Z31
	XORQ R12, R12
	MOVQ DI, R13
	LEAQ (R13)(BX*1), R14

prodpair8:
	LEAQ 64(R12), AX
	CMPQ AX, DX
	JGE  prododd8
	VMOVUPD (R8)(R12*1), Z0
	VMOVUPD 64(R8)(R12*1), Z2
	VMOVUPD 64(R13)(R12*1), Z22
	VMULPD (R13)(R12*1), Z0, Z6
	VMULPD Z2, Z22, Z7
	VADDPD Z7, Z6, Z6
	VMULPD Z0, Z22, Z10
	VMULPD 64(R14)(R12*1), Z2, Z11
	VADDPD Z11, Z10, Z10
	LEAQ 128(R12), AX

prodcol8:
	CMPQ AX, DX
	JGE  prodhead8
	VMOVUPD (R8)(AX*1), Z14
	VMOVUPD (R13)(AX*1), Z16
	VMOVUPD (R14)(AX*1), Z17
	VMULPD Z14, Z16, Z18
	VADDPD Z18, Z6, Z6
	VMULPD Z14, Z17, Z19
	VADDPD Z19, Z10, Z10
	VMULPD Z0, Z16, Z18
	VMULPD Z2, Z17, Z19
	VADDPD Z19, Z18, Z18
	VADDPD (R11)(AX*1), Z18, Z15
	VMOVUPD Z15, (R11)(AX*1)
	ADDQ $64, AX
	JMP  prodcol8

prodhead8:
	VADDPD (R11)(R12*1), Z6, Z6
	VMOVUPD Z6, (R11)(R12*1)
	VADDPD 64(R11)(R12*1), Z10, Z10
	VMOVUPD Z10, 64(R11)(R12*1)
	VMULPD Z0, Z6, Z18
	VMULPD Z2, Z10, Z19
	VADDPD Z19, Z18, Z18
	VADDPD Z18, Z31, Z31
	ADDQ $128, R12
	LEAQ (R14)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	JMP  prodpair8

prododd8:
	CMPQ R12, DX
	JGE  proddone8
	VMOVUPD (R8)(R12*1), Z0
	VMULPD (R13)(R12*1), Z0, Z20
	VADDPD (R11)(R12*1), Z20, Z20
	VMOVUPD Z20, (R11)(R12*1)
	VMULPD Z0, Z20, Z18
	VADDPD Z18, Z31, Z31

proddone8:
	VMOVUPD Z31, (CX)
	VZEROUPPER
	RET
