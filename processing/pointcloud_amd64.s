#include "textflag.h"

// func texRowSep4(z []byte, xs []float32, y, units float32, k *[25][4]float32, tc [][2]float32, px []float32, distort, undistXY bool)
// k holds, each four times: the rotation r0..r8, the translation t0..t2,
// the distortion coefficients c0..c4, 1, 2, fx, fy, ppx, ppy, and the
// texture's width and height.
TEXT ·texRowSep4(SB), NOSPLIT, $0-114
	MOVQ    z_base+0(FP), SI
	MOVQ    xs_base+24(FP), DX
	MOVSS   y+48(FP), X14
	SHUFPS  $0, X14, X14
	MOVSS   units+52(FP), X15
	SHUFPS  $0, X15, X15
	MOVQ    k+56(FP), BX
	MOVQ    tc_base+64(FP), DI
	MOVQ    tc_len+72(FP), CX
	MOVQ    px_base+88(FP), R8
	MOVBLZX distort+112(FP), AX
	MOVBLZX undistXY+113(FP), R9
	SHRQ    $2, CX
	JZ      done

loop:
	// d = z * units (the vertex's z); X10: all ones where d is 0.
	MOVQ      (SI), X0
	PXOR      X1, X1
	PUNPCKLWL X1, X0
	CVTPL2PS  X0, X0
	MULPS     X15, X0
	MOVO      X0, X10
	PSLLL     $1, X10
	PCMPEQL   X1, X10

	// vx = d*xs (X1), vy = d*y (X2)
	MOVUPS (DX), X1
	MULPS  X0, X1
	MOVAPS X14, X2
	MULPS  X0, X2

	// px = r0*vx + (r3*vy + (r6*d + t0)) (X5)
	MOVUPS 96(BX), X3
	MULPS  X0, X3
	MOVUPS 144(BX), X8
	ADDPS  X8, X3
	MOVUPS 48(BX), X4
	MULPS  X2, X4
	ADDPS  X3, X4
	MOVUPS 0(BX), X5
	MULPS  X1, X5
	ADDPS  X4, X5

	// py = r1*vx + (r4*vy + (r7*d + t1)) (X6)
	MOVUPS 112(BX), X3
	MULPS  X0, X3
	MOVUPS 160(BX), X8
	ADDPS  X8, X3
	MOVUPS 64(BX), X4
	MULPS  X2, X4
	ADDPS  X3, X4
	MOVUPS 16(BX), X6
	MULPS  X1, X6
	ADDPS  X4, X6

	// pz = r2*vx + (r5*vy + (r8*d + t2)) (X7)
	MOVUPS 128(BX), X3
	MULPS  X0, X3
	MOVUPS 176(BX), X8
	ADDPS  X8, X3
	MOVUPS 80(BX), X4
	MULPS  X2, X4
	ADDPS  X3, X4
	MOVUPS 32(BX), X7
	MULPS  X1, X7
	ADDPS  X4, X7

	DIVPS X7, X5
	DIVPS X7, X6

	// r2 = x*x + y*y (X0), f = 1 + (c0*r2 + (c1*(r2*r2) + c4*(r2*(r2*r2)))),
	// xf, yf = x*f, y*f (X11, X12); xd, yd = x, y (Brown-Conrady) or xf, yf;
	// x = xf + (2*(c2*(xd*yd)) + c3*(r2 + 2*(xd*xd))),
	// y = yf + (2*(c3*(xd*yd)) + c2*(r2 + 2*(yd*yd))).
	TESTB  AL, AL
	JZ     project
	MOVAPS X5, X0
	MULPS  X5, X0
	MOVAPS X6, X1
	MULPS  X6, X1
	ADDPS  X1, X0
	MOVAPS X0, X1
	MULPS  X0, X1
	MOVUPS 208(BX), X2
	MULPS  X1, X2
	MULPS  X0, X1
	MOVUPS 256(BX), X3
	MULPS  X3, X1
	ADDPS  X1, X2
	MOVUPS 192(BX), X3
	MULPS  X0, X3
	ADDPS  X2, X3
	MOVUPS 272(BX), X4
	ADDPS  X3, X4
	MOVAPS X5, X11
	MULPS  X4, X11
	MOVAPS X6, X12
	MULPS  X4, X12
	TESTB  R9B, R9B
	JNZ    undist
	MOVAPS X11, X5
	MOVAPS X12, X6

undist:
	MOVUPS 288(BX), X13
	MOVAPS X5, X1
	MULPS  X5, X1
	MULPS  X13, X1
	ADDPS  X0, X1
	MOVUPS 240(BX), X3
	MULPS  X3, X1
	MOVAPS X5, X2
	MULPS  X6, X2
	MOVUPS 224(BX), X3
	MULPS  X2, X3
	MULPS  X13, X3
	ADDPS  X1, X3
	ADDPS  X3, X11
	MOVAPS X6, X4
	MULPS  X6, X4
	MULPS  X13, X4
	ADDPS  X0, X4
	MOVUPS 224(BX), X3
	MULPS  X3, X4
	MOVUPS 240(BX), X3
	MULPS  X2, X3
	MULPS  X13, X3
	ADDPS  X4, X3
	ADDPS  X3, X12
	MOVAPS X11, X5
	MOVAPS X12, X6

project:
	// u = x*fx + ppx, v = y*fy + ppy; 0 where z is 0.
	MOVUPS 304(BX), X8
	MULPS  X8, X5
	MOVUPS 336(BX), X8
	ADDPS  X8, X5
	MOVUPS 320(BX), X8
	MULPS  X8, X6
	MOVUPS 352(BX), X8
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
	MOVUPS 368(BX), X8
	DIVPS  X8, X11
	MOVUPS 384(BX), X8
	DIVPS  X8, X12
	MOVAPS X11, X13
	UNPCKLPS X12, X11
	UNPCKHPS X12, X13
	MOVUPS X11, (DI)
	MOVUPS X13, 16(DI)

	ADDQ $8, SI
	ADDQ $16, DX
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	RET
