//go:build amd64 && !purego

#include "textflag.h"

// masks for the last n mod 4 columns: lanes below n mod 4 set.
DATA tailmask<>+0(SB)/8, $0
DATA tailmask<>+8(SB)/8, $0
DATA tailmask<>+16(SB)/8, $0
DATA tailmask<>+24(SB)/8, $0
DATA tailmask<>+32(SB)/8, $-1
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
DATA tailmask<>+64(SB)/8, $-1
DATA tailmask<>+72(SB)/8, $-1
DATA tailmask<>+80(SB)/8, $0
DATA tailmask<>+88(SB)/8, $0
DATA tailmask<>+96(SB)/8, $-1
DATA tailmask<>+104(SB)/8, $-1
DATA tailmask<>+112(SB)/8, $-1
DATA tailmask<>+120(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $128

// func dot2AVX(a *float64, stride, m, n int, x0, x1, t0, t1 *float64, tri bool)
TEXT ·dot2AVX(SB), NOSPLIT, $0-65
	MOVQ a+0(FP), DI
	MOVQ stride+8(FP), BX
	SHLQ $3, BX
	MOVQ m+16(FP), CX
	MOVQ n+24(FP), AX
	MOVQ x0+32(FP), SI
	MOVQ x1+40(FP), DX
	MOVQ t0+48(FP), R8
	MOVQ t1+56(FP), R9
	MOVQ AX, R15
	ANDQ $3, R15
	SHLQ $5, R15
	LEAQ tailmask<>(SB), R10
	VMOVDQU (R10)(R15*1), Y15
	MOVQ R8, R15 // t0, for the row index under tri
	ANDQ $-4, AX
	SHLQ $3, AX // bytes of whole vectors

rows4:
	CMPQ CX, $4
	JLT  rows1
	MOVQ DI, R10
	LEAQ (DI)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ R14, R14
	CMPB tri+64(FP), $0
	JEQ  loop4
	MOVQ R8, R14
	SUBQ R15, R14
	ANDQ $-32, R14

loop4:
	CMPQ R14, AX
	JGE  tail4
	VMOVUPD (SI)(R14*1), Y8
	VMOVUPD (DX)(R14*1), Y9
	VMOVUPD (R10)(R14*1), Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VMOVUPD (R11)(R14*1), Y11
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VMOVUPD (R12)(R14*1), Y12
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VMOVUPD (R13)(R14*1), Y13
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7
	ADDQ $32, R14
	JMP  loop4

tail4:
	TESTQ $3, n+24(FP)
	JEQ  sum4
	VMASKMOVPD (SI)(R14*1), Y15, Y8
	VMASKMOVPD (DX)(R14*1), Y15, Y9
	VMASKMOVPD (R10)(R14*1), Y15, Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VMASKMOVPD (R11)(R14*1), Y15, Y11
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VMASKMOVPD (R12)(R14*1), Y15, Y12
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VMASKMOVPD (R13)(R14*1), Y15, Y13
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7

sum4:
	// [Σ row 0, Σ row 1, Σ row 2, Σ row 3] for x0, then for x1.
	VHADDPD Y2, Y0, Y10
	VHADDPD Y6, Y4, Y11
	VPERM2F128 $0x20, Y11, Y10, Y12
	VPERM2F128 $0x31, Y11, Y10, Y13
	VADDPD Y13, Y12, Y12
	VMOVUPD Y12, (R8)
	VHADDPD Y3, Y1, Y10
	VHADDPD Y7, Y5, Y11
	VPERM2F128 $0x20, Y11, Y10, Y12
	VPERM2F128 $0x31, Y11, Y10, Y13
	VADDPD Y13, Y12, Y12
	VMOVUPD Y12, (R9)
	LEAQ (R13)(BX*1), DI
	ADDQ $32, R8
	ADDQ $32, R9
	SUBQ $4, CX
	JMP  rows4

rows1:
	CMPQ CX, $0
	JLE  done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ R14, R14
	CMPB tri+64(FP), $0
	JEQ  loop1
	MOVQ R8, R14
	SUBQ R15, R14
	ANDQ $-32, R14

loop1:
	CMPQ R14, AX
	JGE  tail1
	VMOVUPD (DI)(R14*1), Y10
	VFMADD231PD (SI)(R14*1), Y10, Y0
	VFMADD231PD (DX)(R14*1), Y10, Y1
	ADDQ $32, R14
	JMP  loop1

tail1:
	TESTQ $3, n+24(FP)
	JEQ  sum1
	VMASKMOVPD (SI)(R14*1), Y15, Y8
	VMASKMOVPD (DX)(R14*1), Y15, Y9
	VMASKMOVPD (DI)(R14*1), Y15, Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1

sum1:
	// [Σ x0, Σ x1] in the low lanes.
	VHADDPD Y1, Y0, Y10
	VEXTRACTF128 $1, Y10, X11
	VADDPD X11, X10, X10
	VMOVSD X10, (R8)
	VMOVHPD X10, (R9)
	ADDQ BX, DI
	ADDQ $8, R8
	ADDQ $8, R9
	DECQ CX
	JMP  rows1

done:
	VZEROUPPER
	RET


// func tridiagPairsAVX(a *float64, n, m int, v, w, nv, q *float64) (qv float64)
TEXT ·tridiagPairsAVX(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), BX
	SHLQ $3, BX
	MOVQ m+16(FP), CX
	MOVQ CX, DX
	SHLQ $3, DX // m, in bytes
	MOVQ v+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ nv+40(FP), R10
	MOVQ q+48(FP), R11
	LEAQ tailmask<>(SB), R15
	VXORPD Y15, Y15, Y15 // qv
	MOVQ $1, R12         // i
	LEAQ (DI)(BX*1), R13 // row i
	LEAQ (R13)(BX*1), R14 // row i+1

pair:
	LEAQ 1(R12), AX
	CMPQ AX, CX
	JGE  pdone
	VBROADCASTSD (R8)(R12*8), Y0  // v_i
	VBROADCASTSD (R9)(R12*8), Y1  // w_i
	VBROADCASTSD 8(R8)(R12*8), Y2 // v_i+1
	VBROADCASTSD 8(R9)(R12*8), Y3 // w_i+1
	VBROADCASTSD (R10)(R12*8), Y4 // v'_i
	VBROADCASTSD 8(R10)(R12*8), Y5 // v'_i+1
	VXORPD Y6, Y6, Y6 // row i's Σ x_j v'_j
	VXORPD Y7, Y7, Y7 // row i+1's
	LEAQ 2(R12), AX
	SHLQ $3, AX // column j, in bytes

ploop:
	LEAQ 32(AX), SI
	CMPQ SI, DX
	JGT  ptail
	VMOVUPD (R8)(AX*1), Y8
	VMOVUPD (R9)(AX*1), Y9
	VMOVUPD (R13)(AX*1), Y10
	VFNMADD231PD Y9, Y0, Y10
	VFNMADD231PD Y8, Y1, Y10
	VMOVUPD (R14)(AX*1), Y11
	VFNMADD231PD Y9, Y2, Y11
	VFNMADD231PD Y8, Y3, Y11
	VMOVUPD Y10, (R13)(AX*1)
	VMOVUPD Y11, (R14)(AX*1)
	VMOVUPD (R10)(AX*1), Y12
	VFMADD231PD Y12, Y10, Y6
	VFMADD231PD Y12, Y11, Y7
	VMOVUPD (R11)(AX*1), Y13
	VFMADD231PD Y10, Y4, Y13
	VFMADD231PD Y11, Y5, Y13
	VMOVUPD Y13, (R11)(AX*1)
	MOVQ SI, AX
	JMP  ploop

ptail:
	CMPQ AX, DX
	JGE  phead
	MOVQ DX, SI
	SUBQ AX, SI
	VMOVDQU (R15)(SI*4), Y14
	VMASKMOVPD (R8)(AX*1), Y14, Y8
	VMASKMOVPD (R9)(AX*1), Y14, Y9
	VMASKMOVPD (R13)(AX*1), Y14, Y10
	VFNMADD231PD Y9, Y0, Y10
	VFNMADD231PD Y8, Y1, Y10
	VMASKMOVPD (R14)(AX*1), Y14, Y11
	VFNMADD231PD Y9, Y2, Y11
	VFNMADD231PD Y8, Y3, Y11
	VMASKMOVPD Y10, Y14, (R13)(AX*1)
	VMASKMOVPD Y11, Y14, (R14)(AX*1)
	VMASKMOVPD (R10)(AX*1), Y14, Y12
	VFMADD231PD Y12, Y10, Y6
	VFMADD231PD Y12, Y11, Y7
	VMASKMOVPD (R11)(AX*1), Y14, Y13
	VFMADD231PD Y10, Y4, Y13
	VFMADD231PD Y11, Y5, Y13
	VMASKMOVPD Y13, Y14, (R11)(AX*1)

phead:
	// The 2×2 diagonal block: x00, x01, x11.
	VMOVSD (R13)(R12*8), X8
	VMULSD X1, X0, X9
	VADDSD X9, X9, X9
	VSUBSD X9, X8, X8
	VMOVSD X8, (R13)(R12*8)
	VMOVSD 8(R13)(R12*8), X9
	VMULSD X3, X0, X10
	VFMADD231SD X2, X1, X10
	VSUBSD X10, X9, X9
	VMOVSD X9, 8(R13)(R12*8)
	VMOVSD 8(R14)(R12*8), X10
	VMULSD X3, X2, X11
	VADDSD X11, X11, X11
	VSUBSD X11, X10, X10
	VMOVSD X10, 8(R14)(R12*8)
	// [row i's sum, row i+1's sum] from the lanes.
	VHADDPD Y7, Y6, Y11
	VEXTRACTF128 $1, Y11, X12
	VADDPD X12, X11, X11
	// s0 = x00 v'_i + x01 v'_i+1 + lanes + q_i, s1 likewise.
	VMULSD X4, X8, X12
	VFMADD231SD X5, X9, X12
	VMULSD X4, X9, X13
	VFMADD231SD X5, X10, X13
	VADDSD X11, X12, X12
	VUNPCKHPD X11, X11, X11
	VADDSD X11, X13, X13
	VADDSD (R11)(R12*8), X12, X12
	VMOVSD X12, (R11)(R12*8)
	VADDSD 8(R11)(R12*8), X13, X13
	VMOVSD X13, 8(R11)(R12*8)
	VFMADD231SD X4, X12, X15
	VFMADD231SD X5, X13, X15
	ADDQ $2, R12
	LEAQ (R14)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	JMP  pair

pdone:
	VMOVSD X15, qv+56(FP)
	VZEROUPPER
	RET

// func rotRowsAVX(x, y *float64, n int, c, s float64)
TEXT ·rotRowsAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD c+24(FP), Y14
	VBROADCASTSD s+32(FP), Y15
	MOVQ CX, DX
	ANDQ $-4, DX
	SHLQ $3, DX // bytes of whole vectors
	SHLQ $3, CX // bytes of the rows
	XORQ AX, AX

rot4:
	CMPQ AX, DX
	JGE  rot1
	VMOVUPD (DI)(AX*1), Y0
	VMOVUPD (SI)(AX*1), Y1
	VMULPD Y1, Y14, Y2
	VFMADD231PD Y0, Y15, Y2  // y' = s x + c y
	VMULPD Y0, Y14, Y3
	VFNMADD231PD Y1, Y15, Y3 // x' = c x − s y
	VMOVUPD Y3, (DI)(AX*1)
	VMOVUPD Y2, (SI)(AX*1)
	ADDQ $32, AX
	JMP  rot4

rot1:
	CMPQ AX, CX
	JGE  rotdone
	VMOVSD (DI)(AX*1), X0
	VMOVSD (SI)(AX*1), X1
	VMULSD X1, X14, X2
	VFMADD231SD X0, X15, X2
	VMULSD X0, X14, X3
	VFNMADD231SD X1, X15, X3
	VMOVSD X3, (DI)(AX*1)
	VMOVSD X2, (SI)(AX*1)
	ADDQ $8, AX
	JMP  rot1

rotdone:
	VZEROUPPER
	RET

// func reflRowsAVX(a *float64, stride, m, n int, v *float64, tau float64)
TEXT ·reflRowsAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ stride+8(FP), BX
	SHLQ $3, BX
	MOVQ m+16(FP), CX
	MOVQ n+24(FP), R8
	MOVQ v+32(FP), SI
	VMOVSD tau+40(FP), X13
	MOVQ R8, R9
	ANDQ $3, R9
	SHLQ $5, R9
	LEAQ tailmask<>(SB), R10
	VMOVDQU (R10)(R9*1), Y15
	MOVQ R8, DX
	ANDQ $-4, DX
	SHLQ $3, DX // bytes of whole vectors

rrow:
	CMPQ CX, $0
	JLE  rdone
	VXORPD Y0, Y0, Y0
	XORQ AX, AX

rdot:
	CMPQ AX, DX
	JGE  rdottail
	VMOVUPD (DI)(AX*1), Y2
	VFMADD231PD (SI)(AX*1), Y2, Y0
	ADDQ $32, AX
	JMP  rdot

rdottail:
	TESTQ $3, R8
	JEQ  rsum
	VMASKMOVPD (DI)(AX*1), Y15, Y2
	VMASKMOVPD (SI)(AX*1), Y15, Y3
	VFMADD231PD Y3, Y2, Y0

rsum:
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VMULSD X13, X0, X0 // τ (row·v)
	VBROADCASTSD X0, Y4
	XORQ AX, AX

raxpy:
	CMPQ AX, DX
	JGE  raxpytail
	VMOVUPD (SI)(AX*1), Y2
	VMOVUPD (DI)(AX*1), Y3
	VFNMADD231PD Y2, Y4, Y3
	VMOVUPD Y3, (DI)(AX*1)
	ADDQ $32, AX
	JMP  raxpy

raxpytail:
	TESTQ $3, R8
	JEQ  rnext
	VMASKMOVPD (SI)(AX*1), Y15, Y2
	VMASKMOVPD (DI)(AX*1), Y15, Y3
	VFNMADD231PD Y2, Y4, Y3
	VMASKMOVPD Y3, Y15, (DI)(AX*1)

rnext:
	ADDQ BX, DI
	DECQ CX
	JMP  rrow

rdone:
	VZEROUPPER
	RET

// func maxAbsUpperAVX(z *float64, d int) (m float64, bad bool)
//
// The largest |z_ij| over the upper triangle of the row-major d×d z,
// four a vector (the last d−j mod 4 of row j by masked loads, whose
// zeros change no maximum), and whether an entry is NaN or ±Inf:
// !(|z_ij| <= MaxFloat64).
TEXT ·maxAbsUpperAVX(SB), NOSPLIT, $0-25
	MOVQ z+0(FP), DI
	MOVQ d+8(FP), DX
	MOVQ DX, BX
	SHLQ $3, BX
	LEAQ tailmask<>(SB), R15
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X2
	VPBROADCASTQ X2, Y2
	MOVQ $0x7fefffffffffffff, AX
	MOVQ AX, X3
	VPBROADCASTQ X3, Y3

marows:
	TESTQ DX, DX
	JLE  madone
	MOVQ DX, SI
	MOVQ DI, R8

machunks:
	CMPQ SI, $4
	JLT  matail
	VMOVUPD (R8), Y4
	VANDPD Y2, Y4, Y4
	VMAXPD Y4, Y0, Y0
	VCMPPD $0x16, Y3, Y4, Y5
	VORPD Y5, Y1, Y1
	ADDQ $32, R8
	SUBQ $4, SI
	JMP  machunks

matail:
	TESTQ SI, SI
	JEQ  manext
	MOVQ SI, AX
	SHLQ $5, AX
	VMOVDQU (R15)(AX*1), Y6
	VMASKMOVPD (R8), Y6, Y4
	VANDPD Y2, Y4, Y4
	VMAXPD Y4, Y0, Y0
	VCMPPD $0x16, Y3, Y4, Y5
	VORPD Y5, Y1, Y1

manext:
	LEAQ 8(DI)(BX*1), DI
	DECQ DX
	JMP  marows

madone:
	VEXTRACTF128 $1, Y0, X4
	VMAXPD X4, X0, X0
	VPERMILPD $1, X0, X4
	VMAXPD X4, X0, X0
	VMOVSD X0, m+16(FP)
	VMOVMSKPD Y1, AX
	TESTL AX, AX
	SETNE bad+24(FP)
	VZEROUPPER
	RET

// func scaleUpperAVX(z *float64, d int, f float64)
//
// z_ij *= f over the upper triangle of the row-major d×d z, four a
// vector, the last d−j mod 4 of row j by masked loads and stores.
TEXT ·scaleUpperAVX(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), DI
	MOVQ d+8(FP), DX
	MOVQ DX, BX
	SHLQ $3, BX
	LEAQ tailmask<>(SB), R15
	VBROADCASTSD f+16(FP), Y2

scrows:
	TESTQ DX, DX
	JLE  scdone
	MOVQ DX, SI
	MOVQ DI, R8

scchunks:
	CMPQ SI, $4
	JLT  sctail
	VMULPD (R8), Y2, Y4
	VMOVUPD Y4, (R8)
	ADDQ $32, R8
	SUBQ $4, SI
	JMP  scchunks

sctail:
	TESTQ SI, SI
	JEQ  scnext
	MOVQ SI, AX
	SHLQ $5, AX
	VMOVDQU (R15)(AX*1), Y6
	VMASKMOVPD (R8), Y6, Y4
	VMULPD Y4, Y2, Y4
	VMASKMOVPD Y4, Y6, (R8)

scnext:
	LEAQ 8(DI)(BX*1), DI
	DECQ DX
	JMP  scrows

scdone:
	VZEROUPPER
	RET
