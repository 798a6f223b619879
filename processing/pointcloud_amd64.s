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

// TEXTANGV adds texRowSep4's tangential terms of xd in X and yd in Y, with
// r2 in V0, to XF and YF; V1-V3 are overwritten.
#define TEXTANGV(MULK, s, V0, V1, V2, V3, X, Y, XF, YF) \
	TANGXV(MULK, s, V0, V1, V2, V3, X, Y); \
	VADDPS V3, XF, XF; \
	VMULPS Y, Y, V1; \
	MULK   (s*368)(BX), V1, V1; \
	VADDPS V0, V1, V1; \
	MULK   (s*304)(BX), V1, V1; \
	MULK   (s*320)(BX), V2, V3; \
	MULK   (s*368)(BX), V3, V3; \
	VADDPS V1, V3, V3; \
	VADDPS V3, YF, YF

// TEXARGSV loads, after ROWARGSV, px into R8, undistXY into R9 and verts
// into R10.
#define TEXARGSV \
	MOVQ    px_base+96(FP), R8; \
	MOVBLZX undistXY+120(FP), R9; \
	MOVQ    verts_base+128(FP), R10

// vperm8 and vperm16 hold, for eight and sixteen pixels, the permutations
// that place the x, y and z of the vertices where the three stores of the
// interleaved vertices want them: component c of pixel p goes to float
// 3p+c of the row, so to lane (3p+c) mod n of store (3p+c) div n; the
// lane's other stores take other components (the blends choose).
DATA vperm8<>+0(SB)/4, $0
DATA vperm8<>+4(SB)/4, $3
DATA vperm8<>+8(SB)/4, $6
DATA vperm8<>+12(SB)/4, $1
DATA vperm8<>+16(SB)/4, $4
DATA vperm8<>+20(SB)/4, $7
DATA vperm8<>+24(SB)/4, $2
DATA vperm8<>+28(SB)/4, $5
DATA vperm8<>+32(SB)/4, $5
DATA vperm8<>+36(SB)/4, $0
DATA vperm8<>+40(SB)/4, $3
DATA vperm8<>+44(SB)/4, $6
DATA vperm8<>+48(SB)/4, $1
DATA vperm8<>+52(SB)/4, $4
DATA vperm8<>+56(SB)/4, $7
DATA vperm8<>+60(SB)/4, $2
DATA vperm8<>+64(SB)/4, $2
DATA vperm8<>+68(SB)/4, $5
DATA vperm8<>+72(SB)/4, $0
DATA vperm8<>+76(SB)/4, $3
DATA vperm8<>+80(SB)/4, $6
DATA vperm8<>+84(SB)/4, $1
DATA vperm8<>+88(SB)/4, $4
DATA vperm8<>+92(SB)/4, $7
GLOBL vperm8<>(SB), RODATA|NOPTR, $96
DATA vperm16<>+0(SB)/4, $0
DATA vperm16<>+4(SB)/4, $11
DATA vperm16<>+8(SB)/4, $6
DATA vperm16<>+12(SB)/4, $1
DATA vperm16<>+16(SB)/4, $12
DATA vperm16<>+20(SB)/4, $7
DATA vperm16<>+24(SB)/4, $2
DATA vperm16<>+28(SB)/4, $13
DATA vperm16<>+32(SB)/4, $8
DATA vperm16<>+36(SB)/4, $3
DATA vperm16<>+40(SB)/4, $14
DATA vperm16<>+44(SB)/4, $9
DATA vperm16<>+48(SB)/4, $4
DATA vperm16<>+52(SB)/4, $15
DATA vperm16<>+56(SB)/4, $10
DATA vperm16<>+60(SB)/4, $5
DATA vperm16<>+64(SB)/4, $5
DATA vperm16<>+68(SB)/4, $0
DATA vperm16<>+72(SB)/4, $11
DATA vperm16<>+76(SB)/4, $6
DATA vperm16<>+80(SB)/4, $1
DATA vperm16<>+84(SB)/4, $12
DATA vperm16<>+88(SB)/4, $7
DATA vperm16<>+92(SB)/4, $2
DATA vperm16<>+96(SB)/4, $13
DATA vperm16<>+100(SB)/4, $8
DATA vperm16<>+104(SB)/4, $3
DATA vperm16<>+108(SB)/4, $14
DATA vperm16<>+112(SB)/4, $9
DATA vperm16<>+116(SB)/4, $4
DATA vperm16<>+120(SB)/4, $15
DATA vperm16<>+124(SB)/4, $10
DATA vperm16<>+128(SB)/4, $10
DATA vperm16<>+132(SB)/4, $5
DATA vperm16<>+136(SB)/4, $0
DATA vperm16<>+140(SB)/4, $11
DATA vperm16<>+144(SB)/4, $6
DATA vperm16<>+148(SB)/4, $1
DATA vperm16<>+152(SB)/4, $12
DATA vperm16<>+156(SB)/4, $7
DATA vperm16<>+160(SB)/4, $2
DATA vperm16<>+164(SB)/4, $13
DATA vperm16<>+168(SB)/4, $8
DATA vperm16<>+172(SB)/4, $3
DATA vperm16<>+176(SB)/4, $14
DATA vperm16<>+180(SB)/4, $9
DATA vperm16<>+184(SB)/4, $4
DATA vperm16<>+188(SB)/4, $15
GLOBL vperm16<>(SB), RODATA|NOPTR, $192

// occl holds -1 (the texture column occlusion scanning starts from), -inf
// and 15 (the last lane).
DATA occl<>+0(SB)/4, $0xbf800000
DATA occl<>+4(SB)/4, $0xff800000
DATA occl<>+8(SB)/4, $15
GLOBL occl<>(SB), RODATA|NOPTR, $12

// shift8 holds the permutations that move eight lanes up by one, two and
// four lanes, then one that takes the last lane into every lane.
DATA shift8<>+0(SB)/4, $0
DATA shift8<>+4(SB)/4, $0
DATA shift8<>+8(SB)/4, $1
DATA shift8<>+12(SB)/4, $2
DATA shift8<>+16(SB)/4, $3
DATA shift8<>+20(SB)/4, $4
DATA shift8<>+24(SB)/4, $5
DATA shift8<>+28(SB)/4, $6
DATA shift8<>+32(SB)/4, $0
DATA shift8<>+36(SB)/4, $0
DATA shift8<>+40(SB)/4, $0
DATA shift8<>+44(SB)/4, $1
DATA shift8<>+48(SB)/4, $2
DATA shift8<>+52(SB)/4, $3
DATA shift8<>+56(SB)/4, $4
DATA shift8<>+60(SB)/4, $5
DATA shift8<>+64(SB)/4, $0
DATA shift8<>+68(SB)/4, $0
DATA shift8<>+72(SB)/4, $0
DATA shift8<>+76(SB)/4, $0
DATA shift8<>+80(SB)/4, $0
DATA shift8<>+84(SB)/4, $1
DATA shift8<>+88(SB)/4, $2
DATA shift8<>+92(SB)/4, $3
DATA shift8<>+96(SB)/4, $7
DATA shift8<>+100(SB)/4, $7
DATA shift8<>+104(SB)/4, $7
DATA shift8<>+108(SB)/4, $7
DATA shift8<>+112(SB)/4, $7
DATA shift8<>+116(SB)/4, $7
DATA shift8<>+120(SB)/4, $7
DATA shift8<>+124(SB)/4, $7
GLOBL shift8<>(SB), RODATA|NOPTR, $128

// func texRowSep8(z []byte, xs []float32, y, units float32, k *[26][8]float32, out [][2]float32, distort bool, px []float32, undistXY bool, verts [][3]float32) (clean int)
// k holds the values of texRowSep4's table each eight times. clean is
// texRowSep16's, for groups of eight: R13 holds the groups, R12 the groups
// left at the first one not clean, Y9 the highest column so far.
TEXT ·texRowSep8(SB), NOSPLIT, $0-160
	ROWARGSV(Y14, Y15, 3)
	TEXARGSV
	MOVQ  CX, R13
	XORQ  R12, R12
	TESTQ CX, CX
	JZ    done8
	VBROADCASTSS occl<>+0(SB), Y9

loop8:
	DEPTH8
	PROJECTV(VMULPS, VADDPS, 2, Y14, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

	// The vertices (vx, vy, d): the stores take x at the lanes k with
	// k mod 3 = 0, 1, 2, y at the next and d at the last.
	VMOVDQU  vperm8<>+0(SB), Y8
	VPERMPS  Y1, Y8, Y3
	VMOVDQU  vperm8<>+32(SB), Y8
	VPERMPS  Y2, Y8, Y4
	VMOVDQU  vperm8<>+64(SB), Y8
	VPERMPS  Y0, Y8, Y7
	VBLENDPS $0x92, Y4, Y3, Y11
	VBLENDPS $0x24, Y7, Y11, Y11
	VMOVUPS  Y11, (R10)
	VBLENDPS $0x24, Y4, Y3, Y11
	VBLENDPS $0x49, Y7, Y11, Y11
	VMOVUPS  Y11, 32(R10)
	VBLENDPS $0x49, Y4, Y3, Y11
	VBLENDPS $0x92, Y7, Y11, Y11
	VMOVUPS  Y11, 64(R10)
	ADDQ     $96, R10

	TESTB AL, AL
	JZ    project8
	RADIALV(VMULPS, VADDPS, 2, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y11, Y12)
	TESTB R9B, R9B
	JNZ   undist8
	VMOVAPS Y11, Y5
	VMOVAPS Y12, Y6

undist8:
	TEXTANGV(VMULPS, 2, Y0, Y1, Y2, Y3, Y5, Y6, Y11, Y12)
	VMOVAPS Y11, Y5
	VMOVAPS Y12, Y6

project8:
	// u = x*fx + ppx, v = y*fy + ppy; 0 where d is 0.
	VMULPS  384(BX), Y5, Y5
	VADDPS  448(BX), Y5, Y5
	VMULPS  416(BX), Y6, Y6
	VADDPS  480(BX), Y6, Y6
	VANDNPS Y5, Y10, Y11
	VANDNPS Y6, Y10, Y12
	TESTQ   R8, R8
	JZ      nopx8
	VMOVUPS Y11, (R8)
	ADDQ    $32, R8

	// Y3 the columns, -inf where d is 0; Y6 their running maximum from
	// the first lane on, Y4 that of the lanes before each (and Y9); lanes
	// move up with the permutations of shift8, the lanes left empty taking
	// the first lane's (which they already count).
	TESTQ        R12, R12
	JNZ          nopx8
	VBROADCASTSS occl<>+4(SB), Y8
	VBLENDVPS    Y10, Y8, Y11, Y3
	VMOVDQU      shift8<>+0(SB), Y5
	VPERMPS      Y3, Y5, Y4
	VMAXPS       Y4, Y3, Y6
	VMOVDQU      shift8<>+32(SB), Y5
	VPERMPS      Y6, Y5, Y4
	VMAXPS       Y4, Y6, Y6
	VMOVDQU      shift8<>+64(SB), Y5
	VPERMPS      Y6, Y5, Y4
	VMAXPS       Y4, Y6, Y6
	VMOVDQU      shift8<>+0(SB), Y5
	VPERMPS      Y6, Y5, Y4
	VBLENDPS     $0x01, Y9, Y4, Y4
	VMAXPS       Y9, Y4, Y4
	VCMPPS       $0x1e, Y4, Y3, Y5
	VORPS        Y10, Y5, Y5
	VMOVDQU      shift8<>+96(SB), Y8
	VPERMPS      Y6, Y8, Y4
	VMAXPS       Y9, Y4, Y9
	VMOVMSKPS    Y5, R11
	CMPQ         R11, $0xff
	JEQ          nopx8
	MOVQ         CX, R12

nopx8:
	// texture coordinates u/width, v/height, interleaved.
	VDIVPS     768(BX), Y11, Y11
	VDIVPS     800(BX), Y12, Y12
	PAIRS8(Y11, Y12, Y13)
	NEXTV(8, loop8)

done8:
	SUBQ R12, R13
	SHLQ $3, R13
	MOVQ R13, clean+152(FP)
	VZEROUPPER
	RET

// func texRowSep16(z []byte, xs []float32, y, units float32, k *[26][4]float32, out [][2]float32, distort bool, px []float32, undistXY bool, verts [][3]float32) (clean int)
// The table's values are broadcast from texRowSep4's table. With px, clean
// counts the pixels of the groups of sixteen before the first one with a
// pixel of nonzero depth whose texture column is not above every column
// before it (and -1); R13 holds the groups, R12 the groups left at that
// first one (0 while none), Z21 the highest column so far, Z22 -inf and
// Z26 15 in every lane.
TEXT ·texRowSep16(SB), NOSPLIT, $0-160
	ROWARGSV(Z14, Z15, 4)
	TEXARGSV
	MOVQ  CX, R13
	XORQ  R12, R12
	TESTQ CX, CX
	JZ    done16
	VBROADCASTSS occl<>+0(SB), Z21
	VBROADCASTSS occl<>+4(SB), Z22
	VPBROADCASTD occl<>+8(SB), Z26
	VMOVDQU32 vperm16<>+0(SB), Z16
	VMOVDQU32 vperm16<>+64(SB), Z17
	VMOVDQU32 vperm16<>+128(SB), Z18
	MOVW      $0x9249, R11
	KMOVW     R11, K2
	MOVW      $0x2492, R11
	KMOVW     R11, K3
	MOVW      $0x4924, R11
	KMOVW     R11, K4

loop16:
	DEPTH16
	PROJECTV(VMULPS.BCST, VADDPS.BCST, 1, Z14, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

	// The vertices (vx, vy, d), as texRowSep8 stores them; the lanes k
	// with k mod 3 = 0, 1, 2 are K2, K3, K4.
	VPERMPS   Z1, Z16, Z3
	VPERMPS   Z2, Z17, Z4
	VPERMPS   Z0, Z18, Z9
	VBLENDMPS Z4, Z3, K3, Z11
	VBLENDMPS Z9, Z11, K4, Z11
	VMOVUPS   Z11, (R10)
	VBLENDMPS Z4, Z3, K2, Z11
	VBLENDMPS Z9, Z11, K3, Z11
	VMOVUPS   Z11, 64(R10)
	VBLENDMPS Z4, Z3, K4, Z11
	VBLENDMPS Z9, Z11, K2, Z11
	VMOVUPS   Z11, 128(R10)
	ADDQ      $192, R10

	TESTB AL, AL
	JZ    project16
	RADIALV(VMULPS.BCST, VADDPS.BCST, 1, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z11, Z12)
	TESTB R9B, R9B
	JNZ   undist16
	VMOVAPS Z11, Z5
	VMOVAPS Z12, Z6

undist16:
	TEXTANGV(VMULPS.BCST, 1, Z0, Z1, Z2, Z3, Z5, Z6, Z11, Z12)
	VMOVAPS Z11, Z5
	VMOVAPS Z12, Z6

project16:
	// u = x*fx + ppx, v = y*fy + ppy; 0 where d is 0.
	VMULPS.BCST 192(BX), Z5, Z5
	VADDPS.BCST 224(BX), Z5, Z5
	VMULPS.BCST 208(BX), Z6, Z6
	VADDPS.BCST 240(BX), Z6, Z6
	VMOVAPS.Z   Z5, K1, Z11
	VMOVAPS.Z   Z6, K1, Z12
	TESTQ       R8, R8
	JZ          nopx16
	VMOVUPS     Z11, (R8)
	ADDQ        $64, R8

	// Z23 the columns, -inf where d is 0; Z24 their running maximum from
	// the first lane on, Z25 that of the lanes before each (and Z21).
	TESTQ     R12, R12
	JNZ       nopx16
	KORTESTW  K1, K1
	JCC       sparse16

	// Every d not 0: each column above the one before (Z21 for the first).
	VALIGND   $15, Z21, Z11, Z25
	VCMPPS    $0x1e, Z25, Z11, K6
	VPERMPS   Z11, Z26, Z21
	KORTESTW  K6, K6
	JCS       nopx16
	MOVQ      CX, R12
	JMP       nopx16

sparse16:
	VMOVAPS   Z22, Z23
	VMOVAPS   Z11, K1, Z23
	VALIGND   $15, Z22, Z23, Z25
	VMAXPS    Z25, Z23, Z24
	VALIGND   $14, Z22, Z24, Z25
	VMAXPS    Z25, Z24, Z24
	VALIGND   $12, Z22, Z24, Z25
	VMAXPS    Z25, Z24, Z24
	VALIGND   $8, Z22, Z24, Z25
	VMAXPS    Z25, Z24, Z24
	VALIGND   $15, Z21, Z24, Z25
	VMAXPS    Z21, Z25, Z25
	VCMPPS    $0x1e, Z25, Z23, K1, K6
	KXORW     K1, K6, K7
	VPERMPS   Z24, Z26, Z25
	VMAXPS    Z21, Z25, Z21
	KORTESTW  K7, K7
	JZ        nopx16
	MOVQ      CX, R12

nopx16:
	// texture coordinates u/width, v/height, interleaved.
	VDIVPS.BCST 384(BX), Z11, Z11
	VDIVPS.BCST 400(BX), Z12, Z12
	PAIRS16(Z11, Z12, Z13, Z19, Z20)
	NEXTV(16, loop16)

done16:
	SUBQ R12, R13
	SHLQ $4, R13
	MOVQ R13, clean+152(FP)
	VZEROUPPER
	RET
