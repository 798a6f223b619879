// The tables of align_amd64.s and pointcloud_amd64.s start alike, each
// value four times: the rotation r0..r8 (offset 0), the translation t0..t2
// (144), fx, fy, ppx, ppy (192), 0.5 (256), the distortion coefficients
// c0..c4 (272), 1 (352) and 2 (368).

// ROWARGS loads the arguments both row functions start with, (z, xs []T,
// y, units float32, k *table, out []U, distort bool, ...): SI the depth,
// DX the rays' x, X14 y and X15 units four times each, BX the table, DI
// out, CX the groups of four pixels out holds, AX distort.
#define ROWARGS \
	MOVQ    z_base+0(FP), SI; \
	MOVQ    xs_base+24(FP), DX; \
	MOVSS   y+48(FP), X14; \
	SHUFPS  $0, X14, X14; \
	MOVSS   units+52(FP), X15; \
	SHUFPS  $0, X15, X15; \
	MOVQ    k+56(FP), BX; \
	MOVQ    out_base+64(FP), DI; \
	MOVQ    out_len+72(FP), CX; \
	SHRQ    $2, CX; \
	MOVBLZX distort+88(FP), AX

// NEXT4 moves SI, DX and DI on by four pixels and loops to loop while CX,
// counted down, is not 0.
#define NEXT4 \
	ADDQ $8, SI; \
	ADDQ $16, DX; \
	ADDQ $32, DI; \
	DECQ CX; \
	JNZ  loop

// PROJROW sets dst to ra*vx + (rb*vy + (rc*d + t)), the table's values at
// the offsets ra, rb, rc and t, with d in X0, vx in X1 and vy in X2; X3, X4
// and X8 are overwritten.
#define PROJROW(ra, rb, rc, t, dst) \
	MOVUPS rc(BX), X3; \
	MULPS  X0, X3; \
	MOVUPS t(BX), X8; \
	ADDPS  X8, X3; \
	MOVUPS rb(BX), X4; \
	MULPS  X2, X4; \
	ADDPS  X3, X4; \
	MOVUPS ra(BX), dst; \
	MULPS  X1, dst; \
	ADDPS  X4, dst

// PROJECT4 is the projection of four depth pixels into another camera
// that align_amd64.s and pointcloud_amd64.s share, in librealsense's SSE
// operations and order. In: SI the four Z16 values, DX their rays' x, X14
// the rays' y (four times), X15 the depth units (four times), BX the
// table. Out: X0
// d = z*units, X10 all ones where d is 0 (+0 or -0), X5 px/pz and X6 py/pz
// with px = r0*vx + (r3*vy + (r6*d + t0)), py and pz alike, vx = d*x and
// vy = d*y. X1-X4, X7 and X8 are overwritten.
#define PROJECT4 \
	MOVQ      (SI), X0; \
	PXOR      X1, X1; \
	PUNPCKLWL X1, X0; \
	CVTPL2PS  X0, X0; \
	MULPS     X15, X0; \
	MOVO      X0, X10; \
	PSLLL     $1, X10; \
	PCMPEQL   X1, X10; \
	MOVUPS    (DX), X1; \
	MULPS     X0, X1; \
	MOVAPS    X14, X2; \
	MULPS     X0, X2; \
	PROJROW(0, 48, 96, 144, X5); \
	PROJROW(16, 64, 112, 160, X6); \
	PROJROW(32, 80, 128, 176, X7); \
	DIVPS     X7, X5; \
	DIVPS     X7, X6

// DISTORTF computes, from x in X5 and y in X6, r2 = x*x + y*y in X0 and
// f = 1 + (c0*r2 + (c1*(r2*r2) + c4*(r2*(r2*r2)))) in X4, the radial
// factor of the Brown-Conrady models; X1-X3 are overwritten.
#define DISTORTF \
	MOVAPS X5, X0; \
	MULPS  X5, X0; \
	MOVAPS X6, X1; \
	MULPS  X6, X1; \
	ADDPS  X1, X0; \
	MOVAPS X0, X1; \
	MULPS  X0, X1; \
	MOVUPS 288(BX), X2; \
	MULPS  X1, X2; \
	MULPS  X0, X1; \
	MOVUPS 336(BX), X3; \
	MULPS  X3, X1; \
	ADDPS  X1, X2; \
	MOVUPS 272(BX), X3; \
	MULPS  X0, X3; \
	ADDPS  X2, X3; \
	MOVUPS 352(BX), X4; \
	ADDPS  X3, X4

// The wide routines are alignRowSep4 and texRowSep4 on eight (AVX2) or
// sixteen (AVX-512) pixels: the same operations on the same values in the
// same order. Their macros take the instructions that read the table
// (MULK, ADDK: a product and a sum with the table's value), the table's
// scale s (its offsets s times those of the four-wide table) and the vector
// registers.

// ROWARGSV is ROWARGS with y in VY and units in VU, and in CX the groups
// of 2^shift pixels out holds.
#define ROWARGSV(VY, VU, shift) \
	MOVQ         z_base+0(FP), SI; \
	MOVQ         xs_base+24(FP), DX; \
	VBROADCASTSS y+48(FP), VY; \
	VBROADCASTSS units+52(FP), VU; \
	MOVQ         k+56(FP), BX; \
	MOVQ         out_base+64(FP), DI; \
	MOVQ         out_len+72(FP), CX; \
	SHRQ         $shift, CX; \
	MOVBLZX      distort+88(FP), AX

// PROJROWV is PROJROW: dst = ra*vx + (rb*vy + (rc*d + t)), with d in D, vx
// in VX and vy in VY; T3 and T4 are overwritten.
#define PROJROWV(MULK, ADDK, s, ra, rb, rc, t, dst, D, VX, VY, T3, T4) \
	MULK   (s*rc)(BX), D, T3; \
	ADDK   (s*t)(BX), T3, T3; \
	MULK   (s*rb)(BX), VY, T4; \
	VADDPS T3, T4, T4; \
	MULK   (s*ra)(BX), VX, dst; \
	VADDPS T4, dst, dst

// PROJECTV is PROJECT4 from d in V0, the rays' y in VY: x and y in V5 and
// V6, vx and vy in V1 and V2; V3, V4 and V7 are overwritten.
#define PROJECTV(MULK, ADDK, s, VY, V0, V1, V2, V3, V4, V5, V6, V7) \
	VMULPS (DX), V0, V1; \
	VMULPS VY, V0, V2; \
	PROJROWV(MULK, ADDK, s, 0, 48, 96, 144, V5, V0, V1, V2, V3, V4); \
	PROJROWV(MULK, ADDK, s, 16, 64, 112, 160, V6, V0, V1, V2, V3, V4); \
	PROJROWV(MULK, ADDK, s, 32, 80, 128, 176, V7, V0, V1, V2, V3, V4); \
	VDIVPS V7, V5, V5; \
	VDIVPS V7, V6, V6

// PAIRS8 stores the eight pairs (A[i], B[i]) of 32-bit values at DI, in
// the pixels' order; A, B and T are overwritten.
#define PAIRS8(A, B, T) \
	VPUNPCKLDQ B, A, T; \
	VPUNPCKHDQ B, A, A; \
	VPERM2I128 $0x20, A, T, B; \
	VPERM2I128 $0x31, A, T, A; \
	VMOVDQU    B, (DI); \
	VMOVDQU    A, 32(DI)

// PAIRS16 stores the sixteen pairs (A[i], B[i]) of 32-bit values at DI, in
// the pixels' order; L, H and T are overwritten.
#define PAIRS16(A, B, L, H, T) \
	VPUNPCKLDQ B, A, L; \
	VPUNPCKHDQ B, A, H; \
	VSHUFI64X2 $0x44, H, L, T; \
	VSHUFI64X2 $0xee, H, L, L; \
	VSHUFI64X2 $0xd8, T, T, T; \
	VSHUFI64X2 $0xd8, L, L, L; \
	VMOVDQU32  T, (DI); \
	VMOVDQU32  L, 64(DI)

// NEXTV moves SI, DX and DI on by n pixels and loops to lbl while CX,
// counted down, is not 0.
#define NEXTV(n, lbl) \
	ADDQ $(2*n), SI; \
	ADDQ $(4*n), DX; \
	ADDQ $(8*n), DI; \
	DECQ CX; \
	JNZ  lbl

// RADIALV is DISTORTF of x in X and y in Y, and the radial distortion:
// r2 in V0, f in V4, x*f and y*f in XF and YF; V1-V3 are overwritten.
#define RADIALV(MULK, ADDK, s, V0, V1, V2, V3, V4, X, Y, XF, YF) \
	VMULPS X, X, V0; \
	VMULPS Y, Y, V1; \
	VADDPS V1, V0, V0; \
	VMULPS V0, V0, V1; \
	MULK   (s*288)(BX), V1, V2; \
	VMULPS V0, V1, V1; \
	MULK   (s*336)(BX), V1, V1; \
	VADDPS V1, V2, V2; \
	MULK   (s*272)(BX), V0, V3; \
	VADDPS V2, V3, V3; \
	ADDK   (s*352)(BX), V3, V4; \
	VMULPS V4, X, XF; \
	VMULPS V4, Y, YF

// DEPTH8 sets Y0 to d = z*units of the eight Z16 values at SI (units in
// Y15), and Y10 to all ones where d is 0 (+0 or -0); Y1 is overwritten.
#define DEPTH8 \
	VPMOVZXWD (SI), Y0; \
	VCVTDQ2PS Y0, Y0; \
	VMULPS    Y15, Y0, Y0; \
	VPSLLD    $1, Y0, Y10; \
	VPXOR     Y1, Y1, Y1; \
	VPCMPEQD  Y1, Y10, Y10

// DEPTH16 sets Z0 to d = z*units of the sixteen Z16 values at SI (units
// in Z15), and K1 where d is not 0 (+0 or -0); Z10 is overwritten.
#define DEPTH16 \
	VPMOVZXWD (SI), Z0; \
	VCVTDQ2PS Z0, Z0; \
	VMULPS    Z15, Z0, Z0; \
	VPSLLD    $1, Z0, Z10; \
	VPTESTMD  Z10, Z10, K1

// TANGXV computes the tangential term of x of the Brown-Conrady models,
// from xd in X, yd in Y and r2 in V0: V3 = 2*(c2*(xd*yd)) +
// c3*(r2 + 2*(xd*xd)), with c3*(r2 + 2*(xd*xd)) in V1 and xd*yd in V2.
#define TANGXV(MULK, s, V0, V1, V2, V3, X, Y) \
	VMULPS X, X, V1; \
	MULK   (s*368)(BX), V1, V1; \
	VADDPS V0, V1, V1; \
	MULK   (s*320)(BX), V1, V1; \
	VMULPS Y, X, V2; \
	MULK   (s*304)(BX), V2, V3; \
	MULK   (s*368)(BX), V3, V3; \
	VADDPS V1, V3, V3
