//go:build amd64 && !purego

#include "textflag.h"

// Butterfly loops of fftkernel.go with AVX2, four entries at a time. Every
// lane does exactly the operations of the Go code, in the same order and
// without fused multiply-add, so the results are bitwise the same.
//
// Indexing: each base register points at the END of its array section and
// R14 runs from -len*8 up to 0 in steps of 32 bytes.

// QUARTERS sets SI, DI, R8, R9 to the ends of the four quarters of length
// R14/8 starting at re and R10..R13 likewise for im, moves the twiddle
// pointers AX, BX, CX, DX to the ends of their first R14/8 entries and
// negates R14.
#define QUARTERS \
	ADDQ R14, SI \
	LEAQ (SI)(R14*1), DI \
	LEAQ (DI)(R14*1), R8 \
	LEAQ (R8)(R14*1), R9 \
	ADDQ R14, R10 \
	LEAQ (R10)(R14*1), R11 \
	LEAQ (R11)(R14*1), R12 \
	LEAQ (R12)(R14*1), R13 \
	ADDQ R14, AX \
	ADDQ R14, BX \
	ADDQ R14, CX \
	ADDQ R14, DX \
	NEGQ R14

// HALVES loads the arguments (re, im, wr, wi *float64, h int) of the
// one-stage kernels: SI, DI at the ends of the two halves of length h of
// re, R10, R11 of im, AX, BX at the ends of the first h twiddles, R14 =
// -8h.
#define HALVES \
	MOVQ re+0(FP), SI \
	MOVQ im+8(FP), R10 \
	MOVQ wr+16(FP), AX \
	MOVQ wi+24(FP), BX \
	MOVQ h+32(FP), R14 \
	SHLQ $3, R14 \
	ADDQ R14, SI \
	LEAQ (SI)(R14*1), DI \
	ADDQ R14, R10 \
	LEAQ (R10)(R14*1), R11 \
	ADDQ R14, AX \
	ADDQ R14, BX \
	NEGQ R14

// PAIRARGS loads the arguments (re, im, w1r, w1i, w2r, w2i *float64, h int,
// inv bool) of the two-stage kernels, sets the registers of QUARTERS and
// leaves the flags of TESTQ inv (JNZ: inverse).
#define PAIRARGS \
	MOVQ re+0(FP), SI \
	MOVQ im+8(FP), R10 \
	MOVQ w1r+16(FP), AX \
	MOVQ w1i+24(FP), BX \
	MOVQ w2r+32(FP), CX \
	MOVQ w2i+40(FP), DX \
	MOVQ h+48(FP), R14 \
	SHLQ $3, R14 \
	QUARTERS \
	MOVBLZX inv+56(FP), R15 \
	TESTQ R15, R15

#define SIGNMASK \
	MOVQ $0x8000000000000000, R15 \
	MOVQ R15, X14 \
	VPBROADCASTQ X14, Y14

// DITPAIR: one step of ditPairGo; NEG is Y2 for the forward transform
// (the product by w^(k+h) is (Im, -Re) of the product by w^k) and Y3 for
// the inverse ((-Im, Re)).
#define DITPAIR(NEG) \
	VMOVUPD (AX)(R14*1), Y0 \
	VMOVUPD (BX)(R14*1), Y1 \
	VMOVUPD (DI)(R14*1), Y2 \
	VMOVUPD (R11)(R14*1), Y3 \
	VMULPD Y2, Y0, Y4 \
	VMULPD Y3, Y1, Y5 \
	VSUBPD Y5, Y4, Y4 \
	VMULPD Y3, Y0, Y5 \
	VMULPD Y2, Y1, Y6 \
	VADDPD Y6, Y5, Y5 \
	VMOVUPD (SI)(R14*1), Y2 \
	VMOVUPD (R10)(R14*1), Y3 \
	VADDPD Y4, Y2, Y6 \
	VADDPD Y5, Y3, Y7 \
	VSUBPD Y4, Y2, Y8 \
	VSUBPD Y5, Y3, Y9 \
	VMOVUPD (R9)(R14*1), Y2 \
	VMOVUPD (R13)(R14*1), Y3 \
	VMULPD Y2, Y0, Y4 \
	VMULPD Y3, Y1, Y5 \
	VSUBPD Y5, Y4, Y4 \
	VMULPD Y3, Y0, Y5 \
	VMULPD Y2, Y1, Y10 \
	VADDPD Y10, Y5, Y5 \
	VMOVUPD (R8)(R14*1), Y2 \
	VMOVUPD (R12)(R14*1), Y3 \
	VADDPD Y4, Y2, Y10 \
	VADDPD Y5, Y3, Y11 \
	VSUBPD Y4, Y2, Y12 \
	VSUBPD Y5, Y3, Y13 \
	VMOVUPD (CX)(R14*1), Y0 \
	VMOVUPD (DX)(R14*1), Y1 \
	VMULPD Y10, Y0, Y2 \
	VMULPD Y11, Y1, Y3 \
	VSUBPD Y3, Y2, Y2 \
	VMULPD Y11, Y0, Y3 \
	VMULPD Y10, Y1, Y4 \
	VADDPD Y4, Y3, Y3 \
	VADDPD Y2, Y6, Y4 \
	VMOVUPD Y4, (SI)(R14*1) \
	VADDPD Y3, Y7, Y4 \
	VMOVUPD Y4, (R10)(R14*1) \
	VSUBPD Y2, Y6, Y4 \
	VMOVUPD Y4, (R8)(R14*1) \
	VSUBPD Y3, Y7, Y4 \
	VMOVUPD Y4, (R12)(R14*1) \
	VMULPD Y12, Y0, Y2 \
	VMULPD Y13, Y1, Y3 \
	VSUBPD Y3, Y2, Y2 \
	VMULPD Y13, Y0, Y3 \
	VMULPD Y12, Y1, Y4 \
	VADDPD Y4, Y3, Y3 \
	VXORPD Y14, NEG, NEG \
	VADDPD Y3, Y8, Y4 \
	VMOVUPD Y4, (DI)(R14*1) \
	VADDPD Y2, Y9, Y4 \
	VMOVUPD Y4, (R11)(R14*1) \
	VSUBPD Y3, Y8, Y4 \
	VMOVUPD Y4, (R9)(R14*1) \
	VSUBPD Y2, Y9, Y4 \
	VMOVUPD Y4, (R13)(R14*1)

// DIFPAIR: one step of difPairGo; NEG is Y12 for the forward transform
// and Y13 for the inverse (a3 = (Y13, Y12) after the negation).
#define DIFPAIR(NEG) \
	VMOVUPD (SI)(R14*1), Y2 \
	VMOVUPD (R10)(R14*1), Y3 \
	VMOVUPD (R8)(R14*1), Y4 \
	VMOVUPD (R12)(R14*1), Y5 \
	VADDPD Y4, Y2, Y6 \
	VADDPD Y5, Y3, Y7 \
	VSUBPD Y4, Y2, Y2 \
	VSUBPD Y5, Y3, Y3 \
	VMOVUPD (AX)(R14*1), Y0 \
	VMOVUPD (BX)(R14*1), Y1 \
	VMULPD Y2, Y0, Y4 \
	VMULPD Y3, Y1, Y5 \
	VSUBPD Y5, Y4, Y8 \
	VMULPD Y3, Y0, Y4 \
	VMULPD Y2, Y1, Y5 \
	VADDPD Y5, Y4, Y9 \
	VMOVUPD (DI)(R14*1), Y2 \
	VMOVUPD (R11)(R14*1), Y3 \
	VMOVUPD (R9)(R14*1), Y4 \
	VMOVUPD (R13)(R14*1), Y5 \
	VADDPD Y4, Y2, Y10 \
	VADDPD Y5, Y3, Y11 \
	VSUBPD Y4, Y2, Y2 \
	VSUBPD Y5, Y3, Y3 \
	VMULPD Y2, Y0, Y4 \
	VMULPD Y3, Y1, Y5 \
	VSUBPD Y5, Y4, Y12 \
	VMULPD Y3, Y0, Y4 \
	VMULPD Y2, Y1, Y5 \
	VADDPD Y5, Y4, Y13 \
	VXORPD Y14, NEG, NEG \
	VMOVUPD (CX)(R14*1), Y0 \
	VMOVUPD (DX)(R14*1), Y1 \
	VADDPD Y10, Y6, Y2 \
	VMOVUPD Y2, (SI)(R14*1) \
	VADDPD Y11, Y7, Y2 \
	VMOVUPD Y2, (R10)(R14*1) \
	VSUBPD Y10, Y6, Y2 \
	VSUBPD Y11, Y7, Y3 \
	VMULPD Y2, Y0, Y4 \
	VMULPD Y3, Y1, Y5 \
	VSUBPD Y5, Y4, Y4 \
	VMOVUPD Y4, (DI)(R14*1) \
	VMULPD Y3, Y0, Y4 \
	VMULPD Y2, Y1, Y5 \
	VADDPD Y5, Y4, Y4 \
	VMOVUPD Y4, (R11)(R14*1) \
	VADDPD Y13, Y8, Y2 \
	VMOVUPD Y2, (R8)(R14*1) \
	VADDPD Y12, Y9, Y2 \
	VMOVUPD Y2, (R12)(R14*1) \
	VSUBPD Y13, Y8, Y2 \
	VSUBPD Y12, Y9, Y3 \
	VMULPD Y2, Y0, Y4 \
	VMULPD Y3, Y1, Y5 \
	VSUBPD Y5, Y4, Y4 \
	VMOVUPD Y4, (R9)(R14*1) \
	VMULPD Y3, Y0, Y4 \
	VMULPD Y2, Y1, Y5 \
	VADDPD Y5, Y4, Y4 \
	VMOVUPD Y4, (R13)(R14*1)

// func ditPairAVX2(re, im, w1r, w1i, w2r, w2i *float64, h int, inv bool)
TEXT ·ditPairAVX2(SB), NOSPLIT, $0-57
	SIGNMASK
	PAIRARGS
	JNZ ditpairinv
ditpairfwd:
	DITPAIR(Y2)
	ADDQ $32, R14
	JNZ ditpairfwd
	VZEROUPPER
	RET
ditpairinv:
	DITPAIR(Y3)
	ADDQ $32, R14
	JNZ ditpairinv
	VZEROUPPER
	RET

// func difPairAVX2(re, im, w1r, w1i, w2r, w2i *float64, h int, inv bool)
TEXT ·difPairAVX2(SB), NOSPLIT, $0-57
	SIGNMASK
	PAIRARGS
	JNZ difpairinv
difpairfwd:
	DIFPAIR(Y12)
	ADDQ $32, R14
	JNZ difpairfwd
	VZEROUPPER
	RET
difpairinv:
	DIFPAIR(Y13)
	ADDQ $32, R14
	JNZ difpairinv
	VZEROUPPER
	RET

// func ditOneAVX2(re, im, wr, wi *float64, h int)
TEXT ·ditOneAVX2(SB), NOSPLIT, $0-40
	HALVES
ditoneloop:
	VMOVUPD (AX)(R14*1), Y0
	VMOVUPD (BX)(R14*1), Y1
	VMOVUPD (DI)(R14*1), Y2
	VMOVUPD (R11)(R14*1), Y3
	VMULPD Y2, Y0, Y4
	VMULPD Y3, Y1, Y5
	VSUBPD Y5, Y4, Y4
	VMULPD Y3, Y0, Y5
	VMULPD Y2, Y1, Y6
	VADDPD Y6, Y5, Y5
	VMOVUPD (SI)(R14*1), Y2
	VMOVUPD (R10)(R14*1), Y3
	VADDPD Y4, Y2, Y6
	VMOVUPD Y6, (SI)(R14*1)
	VADDPD Y5, Y3, Y6
	VMOVUPD Y6, (R10)(R14*1)
	VSUBPD Y4, Y2, Y6
	VMOVUPD Y6, (DI)(R14*1)
	VSUBPD Y5, Y3, Y6
	VMOVUPD Y6, (R11)(R14*1)
	ADDQ $32, R14
	JNZ ditoneloop
	VZEROUPPER
	RET

// func difOneAVX2(re, im, wr, wi *float64, h int)
TEXT ·difOneAVX2(SB), NOSPLIT, $0-40
	HALVES
difoneloop:
	VMOVUPD (SI)(R14*1), Y2
	VMOVUPD (R10)(R14*1), Y3
	VMOVUPD (DI)(R14*1), Y4
	VMOVUPD (R11)(R14*1), Y5
	VADDPD Y4, Y2, Y6
	VMOVUPD Y6, (SI)(R14*1)
	VADDPD Y5, Y3, Y6
	VMOVUPD Y6, (R10)(R14*1)
	VSUBPD Y4, Y2, Y2
	VSUBPD Y5, Y3, Y3
	VMOVUPD (AX)(R14*1), Y0
	VMOVUPD (BX)(R14*1), Y1
	VMULPD Y2, Y0, Y4
	VMULPD Y3, Y1, Y5
	VSUBPD Y5, Y4, Y4
	VMOVUPD Y4, (DI)(R14*1)
	VMULPD Y3, Y0, Y4
	VMULPD Y2, Y1, Y5
	VADDPD Y5, Y4, Y4
	VMOVUPD Y4, (R11)(R14*1)
	ADDQ $32, R14
	JNZ difoneloop
	VZEROUPPER
	RET
