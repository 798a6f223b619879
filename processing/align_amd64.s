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
