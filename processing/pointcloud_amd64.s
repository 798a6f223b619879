#include "textflag.h"
#include "project_amd64.h"

// func texRowSep4(z []byte, xs []float32, y, units float32, k *[26][4]float32, out [][2]float32, distort bool, px []float32, undistXY bool, verts [][3]float32)
// k holds, each four times: the rotation r0..r8, the translation t0..t2,
// fx, fy, ppx, ppy, 0.5, the distortion coefficients c0..c4, 1, 2, and the
// texture's width and height (the layout of alignRowSep4's, and more).
TEXT ·texRowSep4(SB), NOSPLIT, $0-152
	ROWARGS
	MOVQ    px_base+96(FP), R8
	MOVBLZX undistXY+120(FP), R9
	MOVQ    verts_base+128(FP), R10
	TESTQ   CX, CX
	JZ      done

loop:
	PROJECT4

	// The vertices (d*x, d*y, d), interleaved from vx (X1), vy (X2) and
	// d (X0): A = x0 y0 x1 y1, B = x2 y2 x3 y3, M = z0 x0 z1 x1,
	// P = y0 z0 y1 z1, Q = z2 x2 z3 x3, R = y2 z2 y3 z3; the three
	// stores are A0 A1 M0 M3, P2 P3 B0 B1 and Q0 Q3 R2 R3.
	MOVAPS   X1, X3
	UNPCKLPS X2, X3
	MOVAPS   X1, X4
	UNPCKHPS X2, X4
	MOVAPS   X0, X7
	UNPCKLPS X1, X7
	SHUFPS   $0xC4, X7, X3
	MOVUPS   X3, (R10)
	MOVAPS   X2, X8
	UNPCKLPS X0, X8
	SHUFPS   $0x4E, X4, X8
	MOVUPS   X8, 16(R10)
	MOVAPS   X0, X9
	UNPCKHPS X1, X9
	MOVAPS   X2, X11
	UNPCKHPS X0, X11
	SHUFPS   $0xEC, X11, X9
	MOVUPS   X9, 32(R10)
	ADDQ     $48, R10

	// r2 = x*x + y*y (X0), f = 1 + (c0*r2 + (c1*(r2*r2) + c4*(r2*(r2*r2)))),
	// xf, yf = x*f, y*f (X11, X12); xd, yd = x, y (Brown-Conrady) or xf, yf;
	// x = xf + (2*(c2*(xd*yd)) + c3*(r2 + 2*(xd*xd))),
	// y = yf + (2*(c3*(xd*yd)) + c2*(r2 + 2*(yd*yd))).
	TESTB  AL, AL
	JZ     project
	DISTORTF
	MOVAPS X5, X11
	MULPS  X4, X11
	MOVAPS X6, X12
	MULPS  X4, X12
	TESTB  R9B, R9B
	JNZ    undist
	MOVAPS X11, X5
	MOVAPS X12, X6

undist:
	MOVUPS 368(BX), X13
	MOVAPS X5, X1
	MULPS  X5, X1
	MULPS  X13, X1
	ADDPS  X0, X1
	MOVUPS 320(BX), X3
	MULPS  X3, X1
	MOVAPS X5, X2
	MULPS  X6, X2
	MOVUPS 304(BX), X3
	MULPS  X2, X3
	MULPS  X13, X3
	ADDPS  X1, X3
	ADDPS  X3, X11
	MOVAPS X6, X4
	MULPS  X6, X4
	MULPS  X13, X4
	ADDPS  X0, X4
	MOVUPS 304(BX), X3
	MULPS  X3, X4
	MOVUPS 320(BX), X3
	MULPS  X2, X3
	MULPS  X13, X3
	ADDPS  X4, X3
	ADDPS  X3, X12
	MOVAPS X11, X5
	MOVAPS X12, X6

project:
	// u = x*fx + ppx, v = y*fy + ppy; 0 where z is 0.
	MOVUPS 192(BX), X8
	MULPS  X8, X5
	MOVUPS 224(BX), X8
	ADDPS  X8, X5
	MOVUPS 208(BX), X8
	MULPS  X8, X6
	MOVUPS 240(BX), X8
	ADDPS  X8, X6
	MOVAPS X10, X11
	ANDNPS X5, X11
	MOVAPS X10, X12
	ANDNPS X6, X12
	TESTQ  R8, R8
	JZ     nopx
	MOVUPS X11, (R8)
	ADDQ   $16, R8

nopx:
	// texture coordinates u/width, v/height, interleaved.
	MOVUPS 384(BX), X8
	DIVPS  X8, X11
	MOVUPS 400(BX), X8
	DIVPS  X8, X12
	MOVAPS X11, X13
	UNPCKLPS X12, X11
	UNPCKHPS X12, X13
	MOVUPS X11, (DI)
	MOVUPS X13, 16(DI)

	NEXT4

done:
	RET
