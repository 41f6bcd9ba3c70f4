//go:build amd64 && !purego

#include "textflag.h"

// Offsets in pwk8State (checked by TestPWK8StateLayout).
#define ST_X1 0
#define ST_X2 64
#define ST_T 128
#define ST_DIR 192
#define ST_A 256
#define ST_WD 320
#define ST_WE 384
#define ST_ENDE 448
#define ST_ENDD 512
#define ST_DM 576
#define ST_N1 640
#define ST_LAST 704
#define ST_SIG 768
#define ST_SIG2 832
#define ST_C 896
#define ST_S 960
#define ST_G 1024
#define ST_P 1088
#define ST_C2 1152
#define ST_S2 1216
#define ST_G2 1280
#define ST_P2 1344
#define ST_PD 1408
#define ST_PE 1472
#define ST_QR 1536
#define ST_DBL 1544
#define ST_ACTIVE 1552

// STEP8 is rootFree.step on the lanes of K4 with state C, S, G, P and
// shift at SIG(R15), α in Z12 and bb in Z13: r = p + bb, e' = s·r into
// Z15, num = p(α−σ) − bb·γ, c' = p·(1/r), s' = bb·(1/r), γ' = num·(1/r),
// p' = num²·(1/(r·p)) (c·bb where p = 0), and the diagonal entry
// γ + (α − γ') (QL) or (γ + α) − γ' (QR lanes, K3) into Z23; the state
// on K4's lanes. Z25 holds ones, Z26 zeros. Clobbers K2, Z14-Z24.
#define STEP8(C, S, G, P, SIG) \
	VADDPD Z13, P, Z14; \
	VMULPD Z14, S, Z15; \
	VSUBPD SIG(R15), Z12, Z16; \
	VMULPD Z16, P, Z16; \
	VMULPD G, Z13, Z17; \
	VSUBPD Z17, Z16, Z16; \
	VDIVPD Z14, Z25, Z17; \
	VMULPD P, Z14, Z18; \
	VDIVPD Z18, Z25, Z18; \
	VMULPD Z16, Z16, Z19; \
	VMULPD Z18, Z19, Z19; \
	VMULPD Z13, C, Z20; \
	VCMPPD $0, Z26, P, K2; \
	VMOVAPD Z20, K2, Z19; \
	VMULPD Z17, P, Z20; \
	VMULPD Z17, Z13, Z21; \
	VMULPD Z17, Z16, Z22; \
	VSUBPD Z22, Z12, Z23; \
	VADDPD Z23, G, Z23; \
	VADDPD Z12, G, Z24; \
	VSUBPD Z22, Z24, Z24; \
	VMOVAPD Z24, K3, Z23; \
	VMOVAPD Z20, K4, C; \
	VMOVAPD Z21, K4, S; \
	VMOVAPD Z22, K4, G; \
	VMOVAPD Z19, K4, P

// PUT8 writes Z23 into d[X+wd] on the lanes of K4 and Z15 into e[X+we]
// on those of K5. DI holds d, SI e. Clobbers K1, Z11.
#define PUT8(X) \
	VPADDQ ST_WD(R15), X, Z11; \
	KMOVW K4, K1; \
	VSCATTERQPD Z23, K1, (DI)(Z11*8); \
	VPADDQ ST_WE(R15), X, Z11; \
	KMOVW K5, K1; \
	VSCATTERQPD Z15, K1, (SI)(Z11*8)

// ENDS8 writes the end of a sweep with state S, G, P and shift SIG on the
// lanes of K4: e[endE] = s·p, d[endD] = σ + γ; it leaves them in Z15 and
// Z16.
#define ENDS8(S, G, P, SIG) \
	VMULPD P, S, Z15; \
	VADDPD SIG(R15), G, Z16; \
	VMOVDQU64 ST_ENDE(R15), Z11; \
	KMOVW K4, K1; \
	VSCATTERQPD Z15, K1, (SI)(Z11*8); \
	VMOVDQU64 ST_ENDD(R15), Z11; \
	KMOVW K4, K1; \
	VSCATTERQPD Z16, K1, (DI)(Z11*8)

// func pwk8AVX512(d, e *float64, st *pwk8State) (fin uint64)
//
// The lanes' sweeps in lockstep (see TridiagEigen8) until every active
// lane has taken its sweep's last step: it returns those lanes, taken
// out of st.active. A lane done early idles till the others are: a
// return after each lane's sweep costs more (the Go control between
// calls, and the branches on when lanes start and end, mispredicted
// when the lanes' sweeps start at different steps). A lane of two sweeps takes the second's α and bb from
// what the first left the step before (Z30, Z31: the entries it reads
// are those), and only the second sweep's entries are stored, since it
// overwrites every entry that the first writes; the second runs first in
// a step, as the two touch no entry in common within one. Registers: DI
// d, SI e, R15 st; Z0 x1, Z1 x2, Z2 t, Z3-Z6 the first sweep's c, s, γ,
// p, Z7-Z10 the second's; Z25 ones, Z26 zeros, Z27 and Z28 the integers
// 1 and 2, Z29 dir; K7 the active lanes, K3 the QR lanes, K6 those of
// two sweeps.
TEXT ·pwk8AVX512(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ e+8(FP), SI
	MOVQ st+16(FP), R15
	VMOVDQU64 ST_X1(R15), Z0
	VMOVDQU64 ST_X2(R15), Z1
	VMOVDQU64 ST_T(R15), Z2
	VMOVUPD ST_C(R15), Z3
	VMOVUPD ST_S(R15), Z4
	VMOVUPD ST_G(R15), Z5
	VMOVUPD ST_P(R15), Z6
	VMOVUPD ST_C2(R15), Z7
	VMOVUPD ST_S2(R15), Z8
	VMOVUPD ST_G2(R15), Z9
	VMOVUPD ST_P2(R15), Z10
	VMOVUPD ST_PD(R15), Z30
	VMOVUPD ST_PE(R15), Z31
	VMOVDQU64 ST_DIR(R15), Z29
	MOVQ $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z25
	VPXORQ Z26, Z26, Z26
	MOVQ $1, AX
	VPBROADCASTQ AX, Z27
	MOVQ $2, AX
	VPBROADCASTQ AX, Z28
	MOVQ ST_QR(R15), AX
	KMOVW AX, K3
	MOVQ ST_DBL(R15), AX
	KMOVW AX, K6
	MOVQ ST_ACTIVE(R15), AX
	KMOVW AX, K7
	MOVQ AX, R9 // the lanes that will have finished

loop8:
	// The second sweep, on the lanes of two: its start where t = 1, a
	// step where t >= 2 (its e' where t != 2), its end at the lane's
	// last step.
	KANDW K6, K7, K2
	VPCMPQ $0, Z27, Z2, K2, K4
	KORTESTW K4, K4
	JEQ  step2
	VSUBPD ST_SIG2(R15), Z30, Z12
	VMULPD Z12, Z12, Z13
	VMOVAPD Z25, K4, Z7
	VMOVAPD Z26, K4, Z8
	VMOVAPD Z12, K4, Z9
	VMOVAPD Z13, K4, Z10

step2:
	KANDW K6, K7, K2
	VPCMPQ $5, Z28, Z2, K2, K4
	KORTESTW K4, K4
	JEQ  end2
	VPCMPQ $4, Z28, Z2, K4, K5
	VMOVAPD Z30, Z12
	VMOVAPD Z31, Z13
	STEP8(Z7, Z8, Z9, Z10, ST_SIG2)
	PUT8(Z1)

end2:
	VPCMPQ $0, ST_LAST(R15), Z2, K7, K0
	KANDW K6, K0, K4
	KORTESTW K4, K4
	JEQ  step1
	ENDS8(Z8, Z9, Z10, ST_SIG2)

step1:
	// The first sweep: a step where t < n1 (its e' where t != 0), its
	// end where t = n1, stored on the lanes of one sweep, kept for the
	// second on the others.
	VPCMPQ $1, ST_N1(R15), Z2, K7, K4
	KORTESTW K4, K4
	JEQ  end1
	VPTESTMQ Z2, Z2, K4, K5
	VPADDQ ST_A(R15), Z0, Z11
	KMOVW K4, K1
	VGATHERQPD (DI)(Z11*8), K1, Z12
	KMOVW K4, K1
	VGATHERQPD (SI)(Z0*8), K1, Z13
	STEP8(Z3, Z4, Z5, Z6, ST_SIG)
	VMOVAPD Z23, K4, Z30
	VMOVAPD Z15, K4, Z31
	KANDNW K4, K6, K4
	KANDNW K5, K6, K5
	KORTESTW K4, K4
	JEQ  end1
	PUT8(Z0)

end1:
	VPCMPQ $0, ST_N1(R15), Z2, K7, K4
	KORTESTW K4, K4
	JEQ  next8
	KANDW K6, K4, K5
	KANDNW K4, K6, K4
	ENDS8(Z4, Z5, Z6, ST_SIG)
	VMULPD Z6, Z4, Z15
	VADDPD ST_SIG(R15), Z5, Z16
	VMOVAPD Z16, K5, Z30
	VMOVAPD Z15, K5, Z31

next8:
	VPADDQ Z27, Z2, Z2
	VPADDQ Z29, Z0, Z0
	VPADDQ Z29, Z1, Z1
	KANDNW K7, K0, K7
	KORTESTW K7, K7
	JNE  loop8

	VMOVDQU64 Z0, ST_X1(R15)
	VMOVDQU64 Z1, ST_X2(R15)
	VMOVDQU64 Z2, ST_T(R15)
	VMOVUPD Z3, ST_C(R15)
	VMOVUPD Z4, ST_S(R15)
	VMOVUPD Z5, ST_G(R15)
	VMOVUPD Z6, ST_P(R15)
	VMOVUPD Z7, ST_C2(R15)
	VMOVUPD Z8, ST_S2(R15)
	VMOVUPD Z9, ST_G2(R15)
	VMOVUPD Z10, ST_P2(R15)
	VMOVUPD Z30, ST_PD(R15)
	VMOVUPD Z31, ST_PE(R15)
	KMOVW K7, AX
	MOVQ AX, ST_ACTIVE(R15)
	MOVQ R9, fin+24(FP)
	VZEROUPPER
	RET

// DEFL8 sets K2 to the lanes of K1 where |e_k| <= 2⁻¹⁰⁶·|d_k·d_{k+1}|
// for the entries at EO(SI), DO(DI) and D1(DI) from index R8 (pwkQL's
// and pwkQR's test of a negligible off-diagonal entry, on eight k at
// once). Z3 holds 2⁻¹⁰⁶, Z4 the mask of the magnitude bits.
#define DEFL8(EO, DO, D1) \
	VMOVUPD EO(SI)(R8*8), K1, Z0; \
	VMOVUPD DO(DI)(R8*8), K1, Z1; \
	VMOVUPD D1(DI)(R8*8), K1, Z2; \
	VMULPD Z2, Z1, Z1; \
	VPANDQ Z4, Z1, Z1; \
	VMULPD Z1, Z3, Z1; \
	VPANDQ Z4, Z0, Z0; \
	VCMPPD $2, Z1, Z0, K1, K2

// DEFLCONST loads DEFL8's constants.
#define DEFLCONST \
	MOVQ $0x3950000000000000, AX; \
	VPBROADCASTQ AX, Z3; \
	MOVQ $0x7fffffffffffffff, AX; \
	VPBROADCASTQ AX, Z4

// func deflQL8AVX512(d, e *float64, l, lend int) int
//
// The least m in [l, lend) with |e_m| <= 2⁻¹⁰⁶·|d_m·d_{m+1}|, else
// lend: pwkQL's scan, eight m at a time, the last by masked loads.
TEXT ·deflQL8AVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ e+8(FP), SI
	MOVQ l+16(FP), R8
	MOVQ lend+24(FP), R9
	DEFLCONST

qlscan:
	CMPQ R8, R9
	JGE  qlnone
	MOVQ R9, CX
	SUBQ R8, CX
	CMPQ CX, $8
	JLE  qlmask
	MOVQ $8, CX

qlmask:
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	DEFL8(0, 0, 8)
	KMOVW K2, AX
	TESTQ AX, AX
	JNE  qlfound
	ADDQ $8, R8
	JMP  qlscan

qlfound:
	BSFQ AX, AX
	ADDQ R8, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

qlnone:
	MOVQ R9, ret+32(FP)
	VZEROUPPER
	RET

// func deflQR8AVX512(d, e *float64, l, lend int) int
//
// The greatest m in (lend, l] with |e_{m−1}| <= 2⁻¹⁰⁶·|d_m·d_{m−1}|,
// else lend: pwkQR's scan, eight m at a time from l down. R10 is the
// top of a group, R8 its bottom.
TEXT ·deflQR8AVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ e+8(FP), SI
	MOVQ l+16(FP), R10
	MOVQ lend+24(FP), R9
	DEFLCONST

qrscan:
	CMPQ R10, R9
	JLE  qrnone
	LEAQ -7(R10), R8
	LEAQ 1(R9), AX
	CMPQ R8, AX
	JGE  qrgroup
	MOVQ AX, R8

qrgroup:
	MOVQ R10, CX
	SUBQ R8, CX
	INCQ CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	DEFL8(-8, 0, -8)
	KMOVW K2, AX
	TESTQ AX, AX
	JNE  qrfound
	LEAQ -1(R8), R10
	JMP  qrscan

qrfound:
	BSRQ AX, AX
	ADDQ R8, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

qrnone:
	MOVQ R9, ret+32(FP)
	VZEROUPPER
	RET
