#include "textflag.h"

// func alignRowSep4(z []uint16, rx []float32, ry, units float32, k *[24][4]float32, out [][2]int32, distort bool)
// k holds, each four times: the rotation r0..r8, the translation t0..t2,
// fx, fy, ppx, ppy, 0.5, the distortion coefficients c0..c4, 1 and 2.
TEXT ·alignRowSep4(SB), NOSPLIT, $0-89
	MOVQ   z_base+0(FP), SI
	MOVQ   z_len+8(FP), CX
	MOVQ   rx_base+24(FP), DX
	MOVSS  ry+48(FP), X14
	SHUFPS $0, X14, X14
	MOVSS  units+52(FP), X15
	SHUFPS $0, X15, X15
	MOVQ   k+56(FP), BX
	MOVQ   out_base+64(FP), DI
	MOVBLZX distort+88(FP), AX
	SHRQ   $2, CX
	JZ     done

loop:
	// d = z * units; X10: all ones where d is 0 (+0 or -0).
	MOVQ      (SI), X0
	PXOR      X1, X1
	PUNPCKLWL X1, X0
	CVTPL2PS  X0, X0
	MULPS     X15, X0
	MOVO      X0, X10
	PSLLL     $1, X10
	PCMPEQL   X1, X10

	// vx = d*rx (X1), vy = d*ry (X2)
	MOVUPS (DX), X1
	MULPS  X0, X1
	MOVAPS X14, X2
	MULPS  X0, X2

	// px = r0*vx + (r3*vy + (r6*d + t0)) (X5)
	MOVUPS 96(BX), X3
	MULPS  X0, X3
	MOVUPS 144(BX), X8
	ADDPS X8, X3
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
	ADDPS X8, X3
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
	ADDPS X8, X3
	MOVUPS 80(BX), X4
	MULPS  X2, X4
	ADDPS  X3, X4
	MOVUPS 32(BX), X7
	MULPS  X1, X7
	ADDPS  X4, X7

	// u = (px/pz*fx + ppx) + 0.5, v = (py/pz*fy + ppy) + 0.5, rounded
	DIVPS    X7, X5
	DIVPS    X7, X6

	// Modified Brown-Conrady: r2 = x*x + y*y (X0),
	// f = 1 + (c0*r2 + (c1*(r2*r2) + c4*(r2*(r2*r2)))),
	// xf, yf = x*f, y*f, r4 = c3*(r2 + 2*(xf*xf)),
	// x = xf + (2*(c2*(xf*yf)) + r4), y = yf + (2*(c3*(xf*yf)) + r4).
	TESTB  AL, AL
	JZ     project
	MOVAPS X5, X0
	MULPS  X5, X0
	MOVAPS X6, X1
	MULPS  X6, X1
	ADDPS  X1, X0
	MOVAPS X0, X1
	MULPS  X0, X1
	MOVUPS 288(BX), X2
	MULPS  X1, X2
	MULPS  X0, X1
	MOVUPS 336(BX), X3
	MULPS  X3, X1
	ADDPS  X1, X2
	MOVUPS 272(BX), X3
	MULPS  X0, X3
	ADDPS  X2, X3
	MOVUPS 352(BX), X4
	ADDPS  X3, X4
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

	ADDQ $8, SI
	ADDQ $16, DX
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	RET
