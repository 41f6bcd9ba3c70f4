//go:build amd64 && !purego

#include "textflag.h"

DATA minushalf<>+0(SB)/8, $-0.5
GLOBL minushalf<>(SB), RODATA|NOPTR, $8

DATA neginf<>+0(SB)/8, $0xFFF0000000000000
GLOBL neginf<>(SB), RODATA|NOPTR, $8

// func termsAVX(ell, z, mean, inv, lv *float64, blocks, kk int) float64
//
// Per block: acc = 0; per pixel i, with zc the patch's channel c
// broadcast and Mc, Vc the block's four lanes of μ and 1/φ,
// acc += ((z0−M0)²·V0 + (z1−M1)²·V1) + (z2−M2)²·V2; then
// ell = −½ (acc + lv), each product and sum rounded as termsGo rounds
// it. Y4 keeps the lanes' running largest, Y5 holds −½.
TEXT ·termsAVX(SB), NOSPLIT, $0-64
	MOVQ ell+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ mean+16(FP), R8
	MOVQ inv+24(FP), R9
	MOVQ lv+32(FP), R12
	MOVQ blocks+40(FP), CX
	MOVQ kk+48(FP), DX
	VBROADCASTSD minushalf<>(SB), Y5
	VBROADCASTSD neginf<>(SB), Y4

block:
	VXORPD Y0, Y0, Y0
	MOVQ   SI, R10
	MOVQ   DX, R11

pixel:
	VBROADCASTSD (R10), Y1
	VBROADCASTSD 8(R10), Y2
	VBROADCASTSD 16(R10), Y3
	VSUBPD       (R8), Y1, Y1
	VSUBPD       32(R8), Y2, Y2
	VSUBPD       64(R8), Y3, Y3
	VMULPD       Y1, Y1, Y1
	VMULPD       Y2, Y2, Y2
	VMULPD       Y3, Y3, Y3
	VMULPD       (R9), Y1, Y1
	VMULPD       32(R9), Y2, Y2
	VMULPD       64(R9), Y3, Y3
	VADDPD       Y2, Y1, Y1
	VADDPD       Y3, Y1, Y1
	VADDPD       Y1, Y0, Y0
	ADDQ         $24, R10
	ADDQ         $96, R8
	ADDQ         $96, R9
	DECQ         R11
	JNZ          pixel

	VADDPD  (R12), Y0, Y0
	VMULPD  Y5, Y0, Y0
	VMOVUPD Y0, (DI)
	VMAXPD  Y0, Y4, Y4
	ADDQ    $32, DI
	ADDQ    $32, R12
	DECQ    CX
	JNZ     block

	VEXTRACTF128 $1, Y4, X1
	VMAXPD       X1, X4, X4
	VPERMILPD    $1, X4, X1
	VMAXSD       X1, X4, X4
	VZEROUPPER
	MOVSD        X4, ret+56(FP)
	RET

// func scatterAVX(acc *float64, idx *int, ones *float64, r float64, kk int)
//
// Per pixel i, with P = ones[4i : 4i+4], j = idx[i] and R = r broadcast:
// RV = R·P; acc[8j : 8j+4] += RV; acc[8j+4 : 8j+8] += RV·P.
TEXT ·scatterAVX(SB), NOSPLIT, $0-40
	MOVQ         acc+0(FP), DI
	MOVQ         idx+8(FP), BX
	MOVQ         ones+16(FP), SI
	VBROADCASTSD r+24(FP), Y0
	MOVQ         kk+32(FP), CX

spixel:
	MOVQ    (BX), AX
	SHLQ    $6, AX
	VMOVUPD (SI), Y1
	VMULPD  Y1, Y0, Y2
	VMULPD  Y1, Y2, Y3
	VADDPD  (DI)(AX*1), Y2, Y2
	VMOVUPD Y2, (DI)(AX*1)
	VADDPD  32(DI)(AX*1), Y3, Y3
	VMOVUPD Y3, 32(DI)(AX*1)
	ADDQ    $8, BX
	ADDQ    $32, SI
	DECQ    CX
	JNZ     spixel

	VZEROUPPER
	RET
