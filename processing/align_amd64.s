#include "textflag.h"
#include "project_amd64.h"

// func alignRowSep4(z []uint16, xs []float32, y, units float32, k *[24][4]float32, out [][2]int32, distort bool)
// k holds, each four times: the rotation r0..r8, the translation t0..t2,
// fx, fy, ppx, ppy, 0.5, the distortion coefficients c0..c4, 1 and 2.
TEXT ·alignRowSep4(SB), NOSPLIT, $0-89
	ROWARGS
	TESTQ  CX, CX
	JZ     done

loop:
	PROJECT4

	// Modified Brown-Conrady: r2 = x*x + y*y (X0),
	// f = 1 + (c0*r2 + (c1*(r2*r2) + c4*(r2*(r2*r2)))),
	// xf, yf = x*f, y*f, r4 = c3*(r2 + 2*(xf*xf)),
	// x = xf + (2*(c2*(xf*yf)) + r4), y = yf + (2*(c3*(xf*yf)) + r4).
	TESTB  AL, AL
	JZ     project
	DISTORTF
	MULPS  X4, X5
	MULPS  X4, X6
	MOVAPS X5, X1
	MULPS  X5, X1
	MOVUPS 368(BX), X2
	MULPS  X2, X1
	ADDPS  X0, X1
	MOVUPS 320(BX), X2
	MULPS  X2, X1
	MOVAPS X5, X2
	MULPS  X6, X2
	MOVUPS 304(BX), X3
	MULPS  X2, X3
	MOVUPS 368(BX), X4
	MULPS  X4, X3
	ADDPS  X1, X3
	MOVUPS 320(BX), X4
	MULPS  X2, X4
	MOVUPS 368(BX), X7
	MULPS  X7, X4
	ADDPS  X1, X4
	ADDPS  X3, X5
	ADDPS  X4, X6

project:
	MOVUPS 192(BX), X8
	MULPS X8, X5
	MOVUPS 224(BX), X8
	ADDPS X8, X5
	MOVUPS 256(BX), X8
	ADDPS X8, X5
	MOVUPS 208(BX), X8
	MULPS X8, X6
	MOVUPS 240(BX), X8
	ADDPS X8, X6
	MOVUPS 256(BX), X8
	ADDPS X8, X6
	CVTPS2PL X5, X5
	CVTPS2PL X6, X6

	// (0, 0) where z is 0; interleaved u, v.
	MOVO      X10, X11
	PANDN     X5, X11
	MOVO      X10, X12
	PANDN     X6, X12
	MOVO      X11, X13
	PUNPCKLLQ X12, X11
	PUNPCKHLQ X12, X13
	MOVOU     X11, (DI)
	MOVOU     X13, 16(DI)

	NEXT4

done:
	RET


// The wide routines below are alignRowSep4 on eight (AVX2) or sixteen
// (AVX-512) pixels, with the macros of project_amd64.h.

// DISTORTV is alignRowSep4's modified Brown-Conrady (DISTORTF and the
// rest) of x in X and y in Y; V0-V4 are overwritten.
#define DISTORTV(MULK, ADDK, s, V0, V1, V2, V3, V4, X, Y) \
	RADIALV(MULK, ADDK, s, V0, V1, V2, V3, V4, X, Y, X, Y); \
	TANGXV(MULK, s, V0, V1, V2, V3, X, Y); \
	MULK   (s*320)(BX), V2, V4; \
	MULK   (s*368)(BX), V4, V4; \
	VADDPS V1, V4, V4; \
	VADDPS V3, X, X; \
	VADDPS V4, Y, Y

// PIXELV turns x in X and y in Y into x*fx + ppx + 0.5 and y*fy + ppy +
// 0.5.
#define PIXELV(MULK, ADDK, s, X, Y) \
	MULK (s*192)(BX), X, X; \
	ADDK (s*224)(BX), X, X; \
	ADDK (s*256)(BX), X, X; \
	MULK (s*208)(BX), Y, Y; \
	ADDK (s*240)(BX), Y, Y; \
	ADDK (s*256)(BX), Y, Y

// func alignRowSep8(z []uint16, xs []float32, y, units float32, k *[24][8]float32, out [][2]int32, distort bool)
// k holds the values of alignRowSep4's table each eight times.
TEXT ·alignRowSep8(SB), NOSPLIT, $0-89
	ROWARGSV(Y14, Y15, 3)
	TESTQ CX, CX
	JZ    done8

loop8:
	DEPTH8
	PROJECTV(VMULPS, VADDPS, 2, Y14, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	TESTB     AL, AL
	JZ        project8
	DISTORTV(VMULPS, VADDPS, 2, Y0, Y1, Y2, Y3, Y4, Y5, Y6)

project8:
	PIXELV(VMULPS, VADDPS, 2, Y5, Y6)
	VCVTPS2DQ Y5, Y5
	VCVTPS2DQ Y6, Y6

	// (0, 0) where z is 0; interleaved u, v in the pixels' order.
	VPANDN     Y5, Y10, Y11
	VPANDN     Y6, Y10, Y12
	PAIRS8(Y11, Y12, Y13)
	NEXTV(8, loop8)

done8:
	VZEROUPPER
	RET

// func alignRowSep16(z []uint16, xs []float32, y, units float32, k *[24][4]float32, out [][2]int32, distort bool)
// The table's values are broadcast from alignRowSep4's table.
TEXT ·alignRowSep16(SB), NOSPLIT, $0-89
	ROWARGSV(Z14, Z15, 4)
	TESTQ CX, CX
	JZ    done16

loop16:
	DEPTH16
	PROJECTV(VMULPS.BCST, VADDPS.BCST, 1, Z14, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	TESTB     AL, AL
	JZ        project16
	DISTORTV(VMULPS.BCST, VADDPS.BCST, 1, Z0, Z1, Z2, Z3, Z4, Z5, Z6)

project16:
	PIXELV(VMULPS.BCST, VADDPS.BCST, 1, Z5, Z6)
	VCVTPS2DQ.Z Z5, K1, Z5 // (0, 0) where z is 0
	VCVTPS2DQ.Z Z6, K1, Z6

	// Interleaved u, v in the pixels' order.
	PAIRS16(Z5, Z6, Z11, Z12, Z13)
	NEXTV(16, loop16)

done16:
	VZEROUPPER
	RET
