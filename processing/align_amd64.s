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

// PROJROW8 is PROJROW on eight pixels with AVX: dst = ra*vx + (rb*vy +
// (rc*d + t)), the table's values at the offsets ra, rb, rc and t, with d
// in Y0, vx in Y1 and vy in Y2; Y3 and Y4 are overwritten.
#define PROJROW8(ra, rb, rc, t, dst) \
	VMULPS rc(BX), Y0, Y3; \
	VADDPS t(BX), Y3, Y3; \
	VMULPS rb(BX), Y2, Y4; \
	VADDPS Y3, Y4, Y4; \
	VMULPS ra(BX), Y1, dst; \
	VADDPS Y4, dst, dst

// func alignRowSep8(z []uint16, xs []float32, y, units float32, k *[24][8]float32, out [][2]int32, distort bool)
// alignRowSep4 eight pixels at a time with AVX2: the same operations on
// the same values in the same order. k holds the values of alignRowSep4's
// table each eight times (offsets twice its).
TEXT ·alignRowSep8(SB), NOSPLIT, $0-89
	MOVQ         z_base+0(FP), SI
	MOVQ         xs_base+24(FP), DX
	VBROADCASTSS y+48(FP), Y14
	VBROADCASTSS units+52(FP), Y15
	MOVQ         k+56(FP), BX
	MOVQ         out_base+64(FP), DI
	MOVQ         out_len+72(FP), CX
	SHRQ         $3, CX
	MOVBLZX      distort+88(FP), AX
	TESTQ        CX, CX
	JZ           done8

loop8:
	// d = z*units, Y10 all ones where d is 0 (+0 or -0), vx = d*x, vy =
	// d*y, and x, y = px/pz, py/pz (PROJECT4).
	VPMOVZXWD (SI), Y0
	VCVTDQ2PS Y0, Y0
	VMULPS    Y15, Y0, Y0
	VPSLLD    $1, Y0, Y10
	VPXOR     Y1, Y1, Y1
	VPCMPEQD  Y1, Y10, Y10
	VMULPS    (DX), Y0, Y1
	VMULPS    Y14, Y0, Y2
	PROJROW8(0, 96, 192, 288, Y5)
	PROJROW8(32, 128, 224, 320, Y6)
	PROJROW8(64, 160, 256, 352, Y7)
	VDIVPS    Y7, Y5, Y5
	VDIVPS    Y7, Y6, Y6

	TESTB AL, AL
	JZ    project8

	// Modified Brown-Conrady, as alignRowSep4 (DISTORTF and the rest).
	VMULPS Y5, Y5, Y0
	VMULPS Y6, Y6, Y1
	VADDPS Y1, Y0, Y0
	VMULPS Y0, Y0, Y1
	VMULPS 576(BX), Y1, Y2
	VMULPS Y0, Y1, Y1
	VMULPS 672(BX), Y1, Y1
	VADDPS Y1, Y2, Y2
	VMULPS 544(BX), Y0, Y3
	VADDPS Y2, Y3, Y3
	VADDPS 704(BX), Y3, Y4
	VMULPS Y4, Y5, Y5
	VMULPS Y4, Y6, Y6
	VMULPS Y5, Y5, Y1
	VMULPS 736(BX), Y1, Y1
	VADDPS Y0, Y1, Y1
	VMULPS 640(BX), Y1, Y1
	VMULPS Y6, Y5, Y2
	VMULPS 608(BX), Y2, Y3
	VMULPS 736(BX), Y3, Y3
	VADDPS Y1, Y3, Y3
	VMULPS 640(BX), Y2, Y4
	VMULPS 736(BX), Y4, Y4
	VADDPS Y1, Y4, Y4
	VADDPS Y3, Y5, Y5
	VADDPS Y4, Y6, Y6

project8:
	VMULPS    384(BX), Y5, Y5
	VADDPS    448(BX), Y5, Y5
	VADDPS    512(BX), Y5, Y5
	VMULPS    416(BX), Y6, Y6
	VADDPS    480(BX), Y6, Y6
	VADDPS    512(BX), Y6, Y6
	VCVTPS2DQ Y5, Y5
	VCVTPS2DQ Y6, Y6

	// (0, 0) where z is 0; interleaved u, v in the pixels' order.
	VPANDN     Y5, Y10, Y11
	VPANDN     Y6, Y10, Y12
	VPUNPCKLDQ Y12, Y11, Y13
	VPUNPCKHDQ Y12, Y11, Y11
	VPERM2I128 $0x20, Y11, Y13, Y12
	VPERM2I128 $0x31, Y11, Y13, Y11
	VMOVDQU    Y12, (DI)
	VMOVDQU    Y11, 32(DI)

	ADDQ $16, SI
	ADDQ $32, DX
	ADDQ $64, DI
	DECQ CX
	JNZ  loop8

done8:
	VZEROUPPER
	RET

// PROJROW16 is PROJROW on sixteen pixels with AVX-512, the table's values
// broadcast from alignRowSep4's table: dst = ra*vx + (rb*vy + (rc*d + t)),
// with d in Z0, vx in Z1 and vy in Z2; Z3 and Z4 are overwritten.
#define PROJROW16(ra, rb, rc, t, dst) \
	VMULPS.BCST rc(BX), Z0, Z3; \
	VADDPS.BCST t(BX), Z3, Z3; \
	VMULPS.BCST rb(BX), Z2, Z4; \
	VADDPS      Z3, Z4, Z4; \
	VMULPS.BCST ra(BX), Z1, dst; \
	VADDPS      Z4, dst, dst

// func alignRowSep16(z []uint16, xs []float32, y, units float32, k *[24][4]float32, out [][2]int32, distort bool)
// alignRowSep4 sixteen pixels at a time with AVX-512 (F): the same
// operations on the same values in the same order, from the same table.
TEXT ·alignRowSep16(SB), NOSPLIT, $0-89
	MOVQ         z_base+0(FP), SI
	MOVQ         xs_base+24(FP), DX
	VBROADCASTSS y+48(FP), Z14
	VBROADCASTSS units+52(FP), Z15
	MOVQ         k+56(FP), BX
	MOVQ         out_base+64(FP), DI
	MOVQ         out_len+72(FP), CX
	SHRQ         $4, CX
	MOVBLZX      distort+88(FP), AX
	TESTQ        CX, CX
	JZ           done16

loop16:
	// d = z*units, K1 set where d is not 0 (+0 or -0), vx = d*x, vy =
	// d*y, and x, y = px/pz, py/pz (PROJECT4).
	VPMOVZXWD (SI), Z0
	VCVTDQ2PS Z0, Z0
	VMULPS    Z15, Z0, Z0
	VPSLLD    $1, Z0, Z10
	VPTESTMD  Z10, Z10, K1
	VMULPS    (DX), Z0, Z1
	VMULPS    Z14, Z0, Z2
	PROJROW16(0, 48, 96, 144, Z5)
	PROJROW16(16, 64, 112, 160, Z6)
	PROJROW16(32, 80, 128, 176, Z7)
	VDIVPS    Z7, Z5, Z5
	VDIVPS    Z7, Z6, Z6

	TESTB AL, AL
	JZ    project16

	// Modified Brown-Conrady, as alignRowSep4 (DISTORTF and the rest).
	VMULPS      Z5, Z5, Z0
	VMULPS      Z6, Z6, Z1
	VADDPS      Z1, Z0, Z0
	VMULPS      Z0, Z0, Z1
	VMULPS.BCST 288(BX), Z1, Z2
	VMULPS      Z0, Z1, Z1
	VMULPS.BCST 336(BX), Z1, Z1
	VADDPS      Z1, Z2, Z2
	VMULPS.BCST 272(BX), Z0, Z3
	VADDPS      Z2, Z3, Z3
	VADDPS.BCST 352(BX), Z3, Z4
	VMULPS      Z4, Z5, Z5
	VMULPS      Z4, Z6, Z6
	VMULPS      Z5, Z5, Z1
	VMULPS.BCST 368(BX), Z1, Z1
	VADDPS      Z0, Z1, Z1
	VMULPS.BCST 320(BX), Z1, Z1
	VMULPS      Z6, Z5, Z2
	VMULPS.BCST 304(BX), Z2, Z3
	VMULPS.BCST 368(BX), Z3, Z3
	VADDPS      Z1, Z3, Z3
	VMULPS.BCST 320(BX), Z2, Z4
	VMULPS.BCST 368(BX), Z4, Z4
	VADDPS      Z1, Z4, Z4
	VADDPS      Z3, Z5, Z5
	VADDPS      Z4, Z6, Z6

project16:
	VMULPS.BCST 192(BX), Z5, Z5
	VADDPS.BCST 224(BX), Z5, Z5
	VADDPS.BCST 256(BX), Z5, Z5
	VMULPS.BCST 208(BX), Z6, Z6
	VADDPS.BCST 240(BX), Z6, Z6
	VADDPS.BCST 256(BX), Z6, Z6
	VCVTPS2DQ.Z Z5, K1, Z5 // (0, 0) where z is 0
	VCVTPS2DQ.Z Z6, K1, Z6

	// Interleaved u, v in the pixels' order.
	VPUNPCKLDQ Z6, Z5, Z11
	VPUNPCKHDQ Z6, Z5, Z12
	VSHUFI64X2 $0x44, Z12, Z11, Z13
	VSHUFI64X2 $0xee, Z12, Z11, Z11
	VSHUFI64X2 $0xd8, Z13, Z13, Z13
	VSHUFI64X2 $0xd8, Z11, Z11, Z11
	VMOVDQU32  Z13, (DI)
	VMOVDQU32  Z11, 64(DI)

	ADDQ $32, SI
	ADDQ $64, DX
	ADDQ $128, DI
	DECQ CX
	JNZ  loop16

done16:
	VZEROUPPER
	RET
