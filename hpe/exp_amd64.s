//go:build amd64 && !purego

#include "textflag.h"

// The constants of the Go runtime's math.Exp on amd64 (exp_amd64.s, after
// Shibata's SLEEF): log₂e, ln 2 in an upper and a lower part, the
// argument's reduction by 1/16, the Taylor coefficients 1/8! … 1/2!, and
// 1, 2 and the exponent's bias.
DATA explanes<>+0(SB)/8, $1.4426950408889634073599246810018920
DATA explanes<>+8(SB)/8, $0.69314718055966295651160180568695068359375
DATA explanes<>+16(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA explanes<>+24(SB)/8, $0.0625
DATA explanes<>+32(SB)/8, $2.4801587301587301587e-5
DATA explanes<>+40(SB)/8, $1.9841269841269841270e-4
DATA explanes<>+48(SB)/8, $1.3888888888888888889e-3
DATA explanes<>+56(SB)/8, $8.3333333333333333333e-3
DATA explanes<>+64(SB)/8, $4.1666666666666666667e-2
DATA explanes<>+72(SB)/8, $1.6666666666666666667e-1
DATA explanes<>+80(SB)/8, $0.5
DATA explanes<>+88(SB)/8, $1.0
DATA explanes<>+96(SB)/8, $2.0
DATA explanes<>+104(SB)/8, $1023
GLOBL explanes<>(SB), RODATA|NOPTR, $112

// func expAVX2(dst, src *float64, blocks int, shift float64)
//
// dst[t] = e^(src[t] − shift) for the 4·blocks values t, each lane the
// operations of math.Exp's FMA path (exp_amd64.s, label avxfma) in their
// order: k = round(x·log₂e); r = ((x − k·ln2U) − k·ln2L)/16 (fused);
// p = Horner's polynomial of r (fused); y = r·p; three times y = y·(y+2);
// then (y+2)·y + 1 (fused), times 2^k made from k's bits. The result is
// math.Exp's where that path returns a normal number without its
// denormal, overflow and non-finite branches: for x in [expLow, expHigh]
// (expShifted recomputes the others).
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	VBROADCASTSD shift+24(FP), Y15
	VBROADCASTSD explanes<>+0(SB), Y14  // log₂e
	VBROADCASTSD explanes<>+8(SB), Y13  // ln2U
	VBROADCASTSD explanes<>+16(SB), Y12 // ln2L
	VBROADCASTSD explanes<>+24(SB), Y11 // 1/16
	VBROADCASTSD explanes<>+96(SB), Y10 // 2
	VBROADCASTSD explanes<>+88(SB), Y9  // 1
	VPBROADCASTQ explanes<>+104(SB), Y8 // 1023
	TESTQ CX, CX
	JEQ done

loop:
	VMOVUPD (SI), Y0
	VSUBPD Y15, Y0, Y0               // x = src − shift
	VMULPD Y14, Y0, Y1               // x·log₂e
	VCVTPD2DQY Y1, X2                // k, rounded as MXCSR says (to nearest)
	VCVTDQ2PD X2, Y1
	VFNMADD231PD Y13, Y1, Y0         // x − k·ln2U
	VFNMADD231PD Y12, Y1, Y0         // − k·ln2L
	VMULPD Y11, Y0, Y0               // r
	// Horner's polynomial, each coefficient broadcast (a packed
	// operation's memory operand would read four of them).
	VBROADCASTSD explanes<>+32(SB), Y3
	VBROADCASTSD explanes<>+40(SB), Y5
	VFMADD213PD Y5, Y0, Y3
	VBROADCASTSD explanes<>+48(SB), Y6
	VFMADD213PD Y6, Y0, Y3
	VBROADCASTSD explanes<>+56(SB), Y7
	VFMADD213PD Y7, Y0, Y3
	VBROADCASTSD explanes<>+64(SB), Y5
	VFMADD213PD Y5, Y0, Y3
	VBROADCASTSD explanes<>+72(SB), Y6
	VFMADD213PD Y6, Y0, Y3
	VBROADCASTSD explanes<>+80(SB), Y7
	VFMADD213PD Y7, Y0, Y3
	VFMADD213PD Y9, Y0, Y3
	VMULPD Y3, Y0, Y0                // y = r·p
	VADDPD Y10, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y10, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y10, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y10, Y0, Y3
	VFMADD213PD Y9, Y3, Y0           // (y+2)·y + 1
	VPMOVSXDQ X2, Y4
	VPADDQ Y8, Y4, Y4
	VPSLLQ $52, Y4, Y4               // 2^k
	VMULPD Y4, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE loop

done:
	VZEROUPPER
	RET
