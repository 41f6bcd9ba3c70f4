//go:build amd64 && !purego

#include "textflag.h"

// func addRows4AVX(n int, dst *float64, a *[4]float64, r0, r1, r2, r3 *float64)
TEXT ·addRows4AVX(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ a+16(FP), AX
	MOVQ r0+24(FP), R8
	MOVQ r1+32(FP), R9
	MOVQ r2+40(FP), R10
	MOVQ r3+48(FP), R11
	VBROADCASTSD 0(AX), Y0
	VBROADCASTSD 8(AX), Y1
	VBROADCASTSD 16(AX), Y2
	VBROADCASTSD 24(AX), Y3
	XORQ SI, SI
	MOVQ CX, DX
	SHRQ $3, DX
	JZ   rest

eight: // two vectors of four entries an iteration
	VMOVUPD (DI)(SI*8), Y4
	VMOVUPD 32(DI)(SI*8), Y6
	VMULPD  (R8)(SI*8), Y0, Y5
	VMULPD  32(R8)(SI*8), Y0, Y7
	VADDPD  Y5, Y4, Y4
	VADDPD  Y7, Y6, Y6
	VMULPD  (R9)(SI*8), Y1, Y5
	VMULPD  32(R9)(SI*8), Y1, Y7
	VADDPD  Y5, Y4, Y4
	VADDPD  Y7, Y6, Y6
	VMULPD  (R10)(SI*8), Y2, Y5
	VMULPD  32(R10)(SI*8), Y2, Y7
	VADDPD  Y5, Y4, Y4
	VADDPD  Y7, Y6, Y6
	VMULPD  (R11)(SI*8), Y3, Y5
	VMULPD  32(R11)(SI*8), Y3, Y7
	VADDPD  Y5, Y4, Y4
	VADDPD  Y7, Y6, Y6
	VMOVUPD Y4, (DI)(SI*8)
	VMOVUPD Y6, 32(DI)(SI*8)
	ADDQ    $8, SI
	DECQ    DX
	JNZ     eight

rest: // the last n mod 8 entries one at a time
	MOVQ CX, DX
	ANDQ $7, DX
	JZ   done

one:
	VMOVSD (DI)(SI*8), X4
	VMULSD (R8)(SI*8), X0, X5
	VADDSD X5, X4, X4
	VMULSD (R9)(SI*8), X1, X5
	VADDSD X5, X4, X4
	VMULSD (R10)(SI*8), X2, X5
	VADDSD X5, X4, X4
	VMULSD (R11)(SI*8), X3, X5
	VADDSD X5, X4, X4
	VMOVSD X4, (DI)(SI*8)
	INCQ   SI
	DECQ   DX
	JNZ    one

done:
	VZEROUPPER
	RET

// func addRowAVX(n int, dst *float64, a float64, r *float64)
TEXT ·addRowAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ r+24(FP), R8
	VBROADCASTSD a+16(FP), Y0
	XORQ SI, SI
	MOVQ CX, DX
	SHRQ $3, DX
	JZ   rest1

eight1:
	VMULPD  (R8)(SI*8), Y0, Y5
	VMULPD  32(R8)(SI*8), Y0, Y7
	VADDPD  (DI)(SI*8), Y5, Y5
	VADDPD  32(DI)(SI*8), Y7, Y7
	VMOVUPD Y5, (DI)(SI*8)
	VMOVUPD Y7, 32(DI)(SI*8)
	ADDQ    $8, SI
	DECQ    DX
	JNZ     eight1

rest1:
	ANDQ $7, CX
	JZ   done1

one1:
	VMULSD (R8)(SI*8), X0, X5
	VADDSD (DI)(SI*8), X5, X5
	VMOVSD X5, (DI)(SI*8)
	INCQ   SI
	DECQ   CX
	JNZ    one1

done1:
	VZEROUPPER
	RET
