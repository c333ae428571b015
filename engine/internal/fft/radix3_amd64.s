//go:build amd64 && !purego

#include "textflag.h"

// The radix-3 stage kernels of radix3.go with AVX2, four butterflies at a
// time. Every lane does exactly the operations of radix3DIFGo and
// radix3DITGo, in the same order and without fused multiply-add (sums and
// products commute bitwise), so the results are bitwise the same.
//
// Registers: SI, DI, R8, R9, R10, R11 point at the ends of the thirds'
// real and imaginary parts, AX, BX, CX, DX at the ends of the twiddles
// w1r, w1i, w2r, w2i; R14 runs from -8n up to 0 in steps of 32 bytes. Y14
// holds 0.5 and Y15 fl(sqrt(3)/2) (sqrt3Half) in every lane.

// R3ARGS loads the arguments (r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i
// *float64, n int, inv bool), sets the registers above and leaves the
// flags of TESTQ inv (JNZ: inverse).
#define R3ARGS \
	MOVQ r0+0(FP), SI \
	MOVQ i0+8(FP), DI \
	MOVQ r1+16(FP), R8 \
	MOVQ i1+24(FP), R9 \
	MOVQ r2+32(FP), R10 \
	MOVQ i2+40(FP), R11 \
	MOVQ w1r+48(FP), AX \
	MOVQ w1i+56(FP), BX \
	MOVQ w2r+64(FP), CX \
	MOVQ w2i+72(FP), DX \
	MOVQ n+80(FP), R14 \
	SHLQ $3, R14 \
	ADDQ R14, SI \
	ADDQ R14, DI \
	ADDQ R14, R8 \
	ADDQ R14, R9 \
	ADDQ R14, R10 \
	ADDQ R14, R11 \
	ADDQ R14, AX \
	ADDQ R14, BX \
	ADDQ R14, CX \
	ADDQ R14, DX \
	NEGQ R14 \
	MOVQ $0x3fe0000000000000, R12 \
	MOVQ R12, X14 \
	VPBROADCASTQ X14, Y14 \
	MOVQ $0x3febb67ae8584caa, R12 \
	MOVQ R12, X15 \
	VPBROADCASTQ X15, Y15 \
	MOVBLZX inv+88(FP), R12 \
	TESTQ R12, R12

// DIF3: one step of radix3DIFGo; (UR, UI) is y_1 and (VR, VI) y_2 before
// the twiddles: (Y4, Y5, Y6, Y7) for the forward transform (h - i c3 d,
// h + i c3 d), (Y6, Y7, Y4, Y5) for the inverse.
#define DIF3(UR, UI, VR, VI) \
	VMOVUPD (SI)(R14*1), Y0 \
	VMOVUPD (DI)(R14*1), Y1 \
	VMOVUPD (R8)(R14*1), Y2 \
	VMOVUPD (R9)(R14*1), Y3 \
	VMOVUPD (R10)(R14*1), Y4 \
	VMOVUPD (R11)(R14*1), Y5 \
	VADDPD Y4, Y2, Y6 \
	VADDPD Y5, Y3, Y7 \
	VSUBPD Y4, Y2, Y2 \
	VSUBPD Y5, Y3, Y3 \
	VADDPD Y6, Y0, Y8 \
	VMOVUPD Y8, (SI)(R14*1) \
	VADDPD Y7, Y1, Y8 \
	VMOVUPD Y8, (DI)(R14*1) \
	VMULPD Y14, Y6, Y6 \
	VSUBPD Y6, Y0, Y0 \
	VMULPD Y14, Y7, Y7 \
	VSUBPD Y7, Y1, Y1 \
	VMULPD Y15, Y2, Y2 \
	VMULPD Y15, Y3, Y3 \
	VADDPD Y3, Y0, Y4 \
	VSUBPD Y2, Y1, Y5 \
	VSUBPD Y3, Y0, Y6 \
	VADDPD Y2, Y1, Y7 \
	VMOVUPD (AX)(R14*1), Y8 \
	VMOVUPD (BX)(R14*1), Y9 \
	VMULPD UR, Y8, Y10 \
	VMULPD UI, Y9, Y11 \
	VSUBPD Y11, Y10, Y10 \
	VMOVUPD Y10, (R8)(R14*1) \
	VMULPD UI, Y8, Y10 \
	VMULPD UR, Y9, Y11 \
	VADDPD Y11, Y10, Y10 \
	VMOVUPD Y10, (R9)(R14*1) \
	VMOVUPD (CX)(R14*1), Y8 \
	VMOVUPD (DX)(R14*1), Y9 \
	VMULPD VR, Y8, Y10 \
	VMULPD VI, Y9, Y11 \
	VSUBPD Y11, Y10, Y10 \
	VMOVUPD Y10, (R10)(R14*1) \
	VMULPD VI, Y8, Y10 \
	VMULPD VR, Y9, Y11 \
	VADDPD Y11, Y10, Y10 \
	VMOVUPD Y10, (R11)(R14*1)

// DIT3: one step of radix3DITGo; (UR, UI) goes to the second third and
// (VR, VI) to the last: (Y6, Y7, Y8, Y9) for the forward transform (h - i
// c3 d, h + i c3 d), (Y8, Y9, Y6, Y7) for the inverse.
#define DIT3(UR, UI, VR, VI) \
	VMOVUPD (AX)(R14*1), Y8 \
	VMOVUPD (BX)(R14*1), Y9 \
	VMOVUPD (R8)(R14*1), Y2 \
	VMOVUPD (R9)(R14*1), Y3 \
	VMULPD Y2, Y8, Y10 \
	VMULPD Y3, Y9, Y11 \
	VSUBPD Y11, Y10, Y4 \
	VMULPD Y3, Y8, Y10 \
	VMULPD Y2, Y9, Y11 \
	VADDPD Y11, Y10, Y5 \
	VMOVUPD (CX)(R14*1), Y8 \
	VMOVUPD (DX)(R14*1), Y9 \
	VMOVUPD (R10)(R14*1), Y2 \
	VMOVUPD (R11)(R14*1), Y3 \
	VMULPD Y2, Y8, Y10 \
	VMULPD Y3, Y9, Y11 \
	VSUBPD Y11, Y10, Y6 \
	VMULPD Y3, Y8, Y10 \
	VMULPD Y2, Y9, Y11 \
	VADDPD Y11, Y10, Y7 \
	VMOVUPD (SI)(R14*1), Y0 \
	VMOVUPD (DI)(R14*1), Y1 \
	VADDPD Y6, Y4, Y2 \
	VADDPD Y7, Y5, Y3 \
	VSUBPD Y6, Y4, Y4 \
	VSUBPD Y7, Y5, Y5 \
	VADDPD Y2, Y0, Y8 \
	VMOVUPD Y8, (SI)(R14*1) \
	VADDPD Y3, Y1, Y8 \
	VMOVUPD Y8, (DI)(R14*1) \
	VMULPD Y14, Y2, Y2 \
	VSUBPD Y2, Y0, Y0 \
	VMULPD Y14, Y3, Y3 \
	VSUBPD Y3, Y1, Y1 \
	VMULPD Y15, Y4, Y4 \
	VMULPD Y15, Y5, Y5 \
	VADDPD Y5, Y0, Y6 \
	VSUBPD Y4, Y1, Y7 \
	VSUBPD Y5, Y0, Y8 \
	VADDPD Y4, Y1, Y9 \
	VMOVUPD UR, (R8)(R14*1) \
	VMOVUPD UI, (R9)(R14*1) \
	VMOVUPD VR, (R10)(R14*1) \
	VMOVUPD VI, (R11)(R14*1)

// func radix3DIFAVX2(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool)
TEXT ·radix3DIFAVX2(SB), NOSPLIT, $0-89
	R3ARGS
	JNZ r3difinv
r3diffwd:
	DIF3(Y4, Y5, Y6, Y7)
	ADDQ $32, R14
	JNZ r3diffwd
	VZEROUPPER
	RET
r3difinv:
	DIF3(Y6, Y7, Y4, Y5)
	ADDQ $32, R14
	JNZ r3difinv
	VZEROUPPER
	RET

// func radix3DITAVX2(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool)
TEXT ·radix3DITAVX2(SB), NOSPLIT, $0-89
	R3ARGS
	JNZ r3ditinv
r3ditfwd:
	DIT3(Y6, Y7, Y8, Y9)
	ADDQ $32, R14
	JNZ r3ditfwd
	VZEROUPPER
	RET
r3ditinv:
	DIT3(Y8, Y9, Y6, Y7)
	ADDQ $32, R14
	JNZ r3ditinv
	VZEROUPPER
	RET
