#include "textflag.h"

// SMOOTHK loads the constants blendRows8 and smoothSteps8 share from the
// table at R (four times each: alpha, 1-alpha, 0.5 as float32 bits, 32768,
// 0x8000 in both halves, a delta in both halves) into X8 to X13, and 0
// into X15.
#define SMOOTHK(R) \
	MOVOU 0(R), X8; \
	MOVOU 16(R), X9; \
	MOVOU 32(R), X10; \
	MOVOU 48(R), X11; \
	MOVOU 64(R), X12; \
	MOVOU 80(R), X13; \
	PXOR  X15, X15

// ABSDIFFW sets D to |A-B| word by word (T is spoilt).
#define ABSDIFFW(A, B, D, T) \
	MOVO    A, D; \
	PSUBUSW B, D; \
	MOVO    B, T; \
	PSUBUSW A, T; \
	POR     T, D

// BLENDW sets OUT to uint16(float32(a*alpha) + float32(b*(1-alpha)) + 0.5)
// for the words a of A and b of B, with the constants of SMOOTHK (T1 and
// T2 are spoilt).
#define BLENDW(A, B, OUT, T1, T2) \
	MOVO      A, OUT; \
	PUNPCKLWL X15, OUT; \
	CVTPL2PS  OUT, OUT; \
	MULPS     X8, OUT; \
	MOVO      A, T1; \
	PUNPCKHWL X15, T1; \
	CVTPL2PS  T1, T1; \
	MULPS     X8, T1; \
	MOVO      B, T2; \
	PUNPCKLWL X15, T2; \
	CVTPL2PS  T2, T2; \
	MULPS     X9, T2; \
	ADDPS     T2, OUT; \
	ADDPS     X10, OUT; \
	MOVO      B, T2; \
	PUNPCKHWL X15, T2; \
	CVTPL2PS  T2, T2; \
	MULPS     X9, T2; \
	ADDPS     T2, T1; \
	ADDPS     X10, T1; \
	CVTTPS2PL OUT, OUT; \
	CVTTPS2PL T1, T1; \
	PSUBL     X11, OUT; \
	PSUBL     X11, T1; \
	PACKSSLW  T1, OUT; \
	PXOR      X12, OUT

// TRANSPOSEARGS loads the arguments of transpose4 and transpose8, whose
// values are 1<<SHIFT bytes: src in SI, dst in DI, blocks in CX (and the
// flags), the strides in bytes of a source row in R8 (three rows in R10),
// of the next source block in R12, of a destination row in R9 (three in
// R11), of the next destination block in R13.
#define TRANSPOSEARGS(SHIFT) \
	MOVQ  src_base+24(FP), SI; \
	MOVQ  dst_base+0(FP), DI; \
	MOVQ  blocks+48(FP), CX; \
	MOVQ  srcRow+56(FP), R8; \
	MOVQ  srcNext+64(FP), R12; \
	MOVQ  dstRow+72(FP), R9; \
	MOVQ  dstNext+80(FP), R13; \
	SHLQ  SHIFT, R8; \
	SHLQ  SHIFT, R12; \
	SHLQ  SHIFT, R9; \
	SHLQ  SHIFT, R13; \
	LEAQ  (R8)(R8*2), R10; \
	LEAQ  (R9)(R9*2), R11; \
	TESTQ CX, CX

// STEPSARGS sets up the loops of blendSteps4 and smoothSteps8 (t in DI,
// values of SIZE bytes, 1<<SHIFT): DI to pixel from of row 0, SI to the
// pixel before (from-1, or from+1 with back), R13 to what takes DI and SI
// from the end of a pixel's rows to the next pixel (0, or -2·lanes values
// with back), DX to the groups of 16 bytes of a pixel, CX to the steps
// (and the flags to whether there are none).
#define STEPSARGS(SHIFT, SIZE) \
	MOVQ    lanes+24(FP), DX; \
	MOVQ    from+32(FP), AX; \
	MOVBLZX back+48(FP), R11; \
	IMULQ   DX, AX; \
	LEAQ    (DI)(AX*SIZE), DI; \
	SHLQ    SHIFT, DX; \
	NEGQ    R11; \
	MOVQ    DX, R10; \
	XORQ    R11, R10; \
	SUBQ    R11, R10; \
	MOVQ    DI, SI; \
	SUBQ    R10, SI; \
	LEAQ    (DX)(DX*1), R13; \
	NEGQ    R13; \
	ANDQ    R11, R13; \
	SHRQ    $4, DX; \
	MOVQ    steps+40(FP), CX; \
	TESTQ   CX, CX

// func blendRows8(row, other []uint16, k *[6][4]uint32, valid bool)
// k holds, four times each: alpha, 1-alpha, 0.5 (float32 bits), 32768,
// 0x80008000 and delta-1 in both halves.
TEXT ·blendRows8(SB), NOSPLIT, $0-57
	MOVQ    row_base+0(FP), DI
	MOVQ    row_len+8(FP), CX
	MOVQ    other_base+24(FP), SI
	MOVQ    k+48(FP), BX
	MOVBLZX valid+56(FP), AX
	SMOOTHK(BX)
	SHRQ    $3, CX
	JZ      done

loop:
	MOVOU (DI), X0 // a: this row
	MOVOU (SI), X1 // b: the other row

	// mask (X2): |a-b| < delta, and with valid a != 0 and b != 0.
	ABSDIFFW(X0, X1, X2, X3)
	PSUBUSW X13, X2
	PCMPEQW X15, X2
	TESTB   AL, AL
	JZ      blend
	MOVO    X0, X3
	PCMPEQW X15, X3
	MOVO    X1, X4
	PCMPEQW X15, X4
	POR     X4, X3
	PANDN   X2, X3
	MOVO    X3, X2

blend:
	// X3: the blend
	BLENDW(X0, X1, X3, X4, X5)

	// row = mask ? new : a
	PAND  X2, X3
	PANDN X0, X2
	POR   X2, X3
	MOVOU X3, (DI)

	ADDQ $16, DI
	ADDQ $16, SI
	DECQ CX
	JNZ  loop

done:
	RET

// func u16Floats4(src []byte, dst []float32, k float32, divide bool)
TEXT ·u16Floats4(SB), NOSPLIT, $0-53
	MOVQ    src_base+0(FP), SI
	MOVQ    dst_base+24(FP), DI
	MOVQ    dst_len+32(FP), CX
	MOVSS   k+48(FP), X7
	SHUFPS  $0, X7, X7
	MOVBLZX divide+52(FP), AX
	PXOR    X6, X6
	SHRQ    $2, CX
	JZ      floatsdone
	TESTB   AL, AL
	JNZ     divide8

	// k * v, eight at a time while there are eight.
multiply8:
	CMPQ      CX, $2
	JB        floatsloop
	MOVOU     (SI), X0
	MOVO      X0, X1
	PUNPCKLWL X6, X0
	PUNPCKHWL X6, X1
	CVTPL2PS  X0, X0
	CVTPL2PS  X1, X1
	MULPS     X7, X0
	MULPS     X7, X1
	MOVUPS    X0, (DI)
	MOVUPS    X1, 16(DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $2, CX
	JNZ       multiply8
	RET

	// k / v (0 where v is 0), eight at a time while there are eight.
divide8:
	CMPQ      CX, $2
	JB        floatsloop
	MOVOU     (SI), X0
	MOVO      X0, X1
	PUNPCKLWL X6, X0
	PUNPCKHWL X6, X1
	MOVO      X0, X3
	PCMPEQL   X6, X3
	MOVO      X1, X4
	PCMPEQL   X6, X4
	CVTPL2PS  X0, X0
	CVTPL2PS  X1, X1
	MOVAPS    X7, X2
	DIVPS     X0, X2
	MOVAPS    X7, X5
	DIVPS     X1, X5
	ANDNPS    X2, X3
	ANDNPS    X5, X4
	MOVUPS    X3, (DI)
	MOVUPS    X4, 16(DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $2, CX
	JNZ       divide8
	RET

floatsloop:
	MOVQ      (SI), X0
	PUNPCKLWL X6, X0
	MOVO      X0, X1
	PCMPEQL   X6, X1
	CVTPL2PS  X0, X0
	TESTB     AL, AL
	JNZ       floatsdivide

	// k * v
	MULPS  X7, X0
	MOVUPS X0, (DI)
	JMP    floatsnext

floatsdivide:
	// k / v, 0 where v is 0.
	MOVAPS X7, X2
	DIVPS  X0, X2
	ANDNPS X2, X1
	MOVUPS X1, (DI)

floatsnext:
	ADDQ $8, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  floatsloop

floatsdone:
	RET

// func thresholdRow8(dst, src []byte, lo, span uint16)
// Eight values at a time: v - lo (wrapping) saturating-minus span is 0
// exactly where v lies in [lo, lo+span]; elsewhere v becomes 0.
TEXT ·thresholdRow8(SB), NOSPLIT, $0-52
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), CX
	MOVQ    src_base+24(FP), SI
	MOVWLZX lo+48(FP), AX
	MOVWLZX span+50(FP), BX
	MOVQ    AX, X6
	PSHUFLW $0, X6, X6
	PSHUFD  $0, X6, X6
	MOVQ    BX, X7
	PSHUFLW $0, X7, X7
	PSHUFD  $0, X7, X7
	PXOR    X5, X5
	SHRQ    $4, CX
	JZ      thresholddone

thresholdloop:
	MOVOU   (SI), X0
	MOVO    X0, X1
	PSUBW   X6, X1
	PSUBUSW X7, X1
	PCMPEQW X5, X1
	PAND    X1, X0
	MOVOU   X0, (DI)
	ADDQ    $16, SI
	ADDQ    $16, DI
	DECQ    CX
	JNZ     thresholdloop

thresholddone:
	RET

// PREP2 makes the values of R ready for decimate2Row8's signed word
// compares: 0 (no depth) becomes 0xffff, the largest, and the bias X13
// (0x8000) is added; Z gets the mask of the zeros.
#define PREP2(R, Z) \
	MOVO    R, Z; \
	PCMPEQW X15, Z; \
	POR     Z, R; \
	PXOR    X13, R

// func decimate2Row8(dst, top, bot []byte)
// Eight outputs at a time, each the lower median of the non-zero values
// of a 2×2 square (two of top's values and the two under them in bot):
// with the zeros made the largest values, the smallest value when at most
// two are not zero, else the second smallest; 0 when all four are zero.
TEXT ·decimate2Row8(SB), NOSPLIT, $0-72
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), CX
	MOVQ    top_base+24(FP), SI
	MOVQ    bot_base+48(FP), DX
	PXOR    X15, X15
	PCMPEQW X14, X14
	MOVO    X14, X13
	PSLLW   $15, X13
	MOVO    X14, X12
	PADDW   X14, X12
	MOVO    X14, X11
	PSRLW   $15, X11
	SHRQ    $4, CX
	JZ      decimatedone

decimateloop:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 0(DX), X2
	MOVOU 16(DX), X3
	PREP2(X0, X4)
	PREP2(X1, X5)
	PREP2(X2, X6)
	PREP2(X3, X7)

	// a, b: the even and odd values of top; c, d: of bot.
	MOVO     X0, X8
	PSLLL    $16, X8
	PSRAL    $16, X8
	MOVO     X1, X9
	PSLLL    $16, X9
	PSRAL    $16, X9
	PACKSSLW X9, X8
	PSRAL    $16, X0
	PSRAL    $16, X1
	PACKSSLW X1, X0
	MOVO     X2, X10
	PSLLL    $16, X10
	PSRAL    $16, X10
	MOVO     X3, X9
	PSLLL    $16, X9
	PSRAL    $16, X9
	PACKSSLW X9, X10
	PSRAL    $16, X2
	PSRAL    $16, X3
	PACKSSLW X3, X2

	// X4: minus the count of zeros of each square.
	PMADDWL  X11, X4
	PMADDWL  X11, X5
	PMADDWL  X11, X6
	PMADDWL  X11, X7
	PADDL    X6, X4
	PADDL    X7, X5
	PACKSSLW X5, X4

	// X5 the smallest, X1 the second smallest.
	MOVO   X8, X1
	PMINSW X0, X1
	PMAXSW X0, X8
	MOVO   X10, X3
	PMINSW X2, X3
	PMAXSW X2, X10
	MOVO   X1, X5
	PMINSW X3, X5
	PMAXSW X3, X1
	PMINSW X10, X8
	PMINSW X8, X1

	// the second smallest where at most one is zero, else the smallest
	MOVO    X4, X6
	PCMPGTW X12, X6
	PAND    X6, X1
	PANDN   X5, X6
	POR     X6, X1
	PXOR    X13, X1

	// 0 where all four are zero
	MOVO    X12, X7
	PADDW   X12, X7
	PCMPEQW X4, X7
	PANDN   X1, X7
	MOVOU   X7, (DI)

	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $16, DI
	DECQ CX
	JNZ  decimateloop

decimatedone:
	RET

// func temporal8(cur, last []uint16, hist []uint8, lut *[256]uint8, k *[5][4]uint32)
// k holds, four times each: alpha, 1-alpha (float32 bits), delta-1 in
// both halves, the frame's bit in every byte, and 32768. Eight pixels at
// a time as temporal does them: a pixel of cur (c) and its last value (p)
// agree when neither is 0 and |c-p| <= delta-1, and then both become
// trunc(c*alpha + p*(1-alpha)); another non-zero c becomes the last value;
// a zero c keeps the last value, and is filled with it (scalar, through
// the table) when the history makes it credible.
TEXT ·temporal8(SB), NOSPLIT, $0-88
	MOVQ    cur_base+0(FP), SI
	MOVQ    cur_len+8(FP), CX
	MOVQ    last_base+24(FP), DI
	MOVQ    hist_base+48(FP), BX
	MOVQ    lut+72(FP), R8
	MOVQ    k+80(FP), DX
	MOVOU   0(DX), X8
	MOVOU   16(DX), X9
	MOVOU   32(DX), X10
	MOVOU   48(DX), X11
	MOVBLZX 48(DX), R9
	PXOR    X15, X15
	PCMPEQW X14, X14
	MOVO    X14, X13
	PSLLW   $15, X13
	SHRQ    $3, CX
	JZ      temporaldone

temporalloop:
	MOVOU (SI), X0
	MOVOU (DI), X1
	MOVQ  (BX), X2

	// X3: c is 0; X4: p is 0; AX: a bit for each c that is 0 where p is not.
	MOVO     X0, X3
	PCMPEQW  X15, X3
	MOVO     X1, X4
	PCMPEQW  X15, X4
	MOVO     X4, X6
	PANDN    X3, X6
	PACKSSWB X6, X6
	PMOVMSKB X6, AX
	ANDL     $0xff, AX

	// X6: the pixels that agree.
	ABSDIFFW(X0, X1, X5, X6)
	PSUBUSW X10, X5
	PCMPEQW X15, X5
	MOVO    X4, X6
	POR     X3, X6
	PANDN   X5, X6

	// X5: the blends.
	MOVO      X0, X5
	PUNPCKLWL X15, X5
	CVTPL2PS  X5, X5
	MULPS     X8, X5
	MOVO      X1, X7
	PUNPCKLWL X15, X7
	CVTPL2PS  X7, X7
	MULPS     X9, X7
	ADDPS     X7, X5
	CVTTPS2PL X5, X5
	MOVO      X0, X7
	PUNPCKHWL X15, X7
	CVTPL2PS  X7, X7
	MULPS     X8, X7
	MOVO      X1, X12
	PUNPCKHWL X15, X12
	CVTPL2PS  X12, X12
	MULPS     X9, X12
	ADDPS     X12, X7
	CVTTPS2PL X7, X7
	MOVOU     64(DX), X12
	PSUBL     X12, X5
	PSUBL     X12, X7
	PACKSSLW  X7, X5
	PXOR      X13, X5

	// X5: the output, the blend where they agree, else c; X7: the new
	// last values, p where c is 0, else the output.
	PAND  X6, X5
	MOVO  X6, X7
	PANDN X0, X7
	POR   X7, X5
	MOVO  X3, X7
	PAND  X1, X7
	MOVO  X3, X12
	PANDN X5, X12
	POR   X12, X7
	MOVOU X5, (SI)

	// X0: the new history, h without the bit where c is 0, h with it
	// where they agree, else the bit alone.
	PACKSSWB X3, X3
	PACKSSWB X6, X6
	MOVO     X2, X12
	POR      X11, X12
	PAND     X6, X12
	MOVO     X6, X0
	PANDN    X11, X0
	POR      X0, X12
	MOVO     X11, X0
	PANDN    X2, X0
	PAND     X3, X0
	PANDN    X12, X3
	POR      X3, X0

	// The fills, from the history and last values still in memory.
	TESTL AX, AX
	JZ    temporalstore

temporalfill:
	BSFL    AX, R10
	BTRL    R10, AX
	MOVBLZX (BX)(R10*1), R11
	MOVBLZX (R8)(R11*1), R11
	TESTL   R9, R11
	JZ      temporalnofill
	MOVW    (DI)(R10*2), R11
	MOVW    R11, (SI)(R10*2)

temporalnofill:
	TESTL AX, AX
	JNZ   temporalfill

temporalstore:
	MOVOU X7, (DI)
	MOVQ  X0, (BX)
	ADDQ  $16, SI
	ADDQ  $16, DI
	ADDQ  $8, BX
	DECQ  CX
	JNZ   temporalloop

temporaldone:
	RET

// COLUMNK loads the constants of blendColumns4 and blendSteps4 from the
// table at R (four times each: alpha, 1-alpha and delta as float32 bits)
// into X8 to X10, 0 into X15 and 0x7fffffff into X14.
#define COLUMNK(R) \
	MOVOU   0(R), X8; \
	MOVOU   16(R), X9; \
	MOVOU   32(R), X10; \
	PXOR    X15, X15; \
	PCMPEQL X14, X14; \
	PSRLL   $1, X14

// COLUMNSTEP takes blendColumns's step on four values: c at (CUR) becomes
// c·alpha + s·(1-alpha), s at (DONE), when c and a, the original value
// before it at (ORIG), are positive (above 0 read as int32s) and |a-c| <
// delta, compared as the bits of non-negative floats (a NaN's above every
// delta); a becomes c. It uses X0 to X5 and the constants of COLUMNK.
#define COLUMNSTEP(CUR, DONE, ORIG) \
	MOVOU   (CUR), X0; \
	MOVOU   (ORIG), X1; \
	MOVOU   X0, (ORIG); \
	MOVO    X0, X2; \
	PCMPGTL X15, X2; \
	MOVO    X1, X3; \
	PCMPGTL X15, X3; \
	PAND    X3, X2; \
	SUBPS   X0, X1; \
	PAND    X14, X1; \
	MOVO    X10, X3; \
	PCMPGTL X1, X3; \
	PAND    X3, X2; \
	MOVOU   (DONE), X4; \
	MULPS   X9, X4; \
	MOVAPS  X0, X5; \
	MULPS   X8, X5; \
	ADDPS   X4, X5; \
	PAND    X2, X5; \
	PANDN   X0, X2; \
	POR     X2, X5; \
	MOVOU   X5, (CUR)

// func blendColumns4(cur, done, orig []float32, k *[3][4]uint32)
// k holds, four times each, alpha, 1-alpha and delta (float32 bits). Four
// columns at a time as blendColumns (COLUMNSTEP).
TEXT ·blendColumns4(SB), NOSPLIT, $0-80
	MOVQ cur_base+0(FP), DI
	MOVQ cur_len+8(FP), CX
	MOVQ done_base+24(FP), SI
	MOVQ orig_base+48(FP), DX
	MOVQ k+72(FP), BX
	COLUMNK(BX)
	SHRQ $2, CX
	JZ   columnsdone

columnsloop:
	COLUMNSTEP(DI, SI, DX)
	ADDQ $16, DI
	ADDQ $16, SI
	ADDQ $16, DX
	DECQ CX
	JNZ  columnsloop

columnsdone:
	RET

// func blendSteps4(t []float32, lanes, from, steps int, back bool, orig []float32, k *[3][4]uint32)
// Runs recursiveRow's pass on lanes rows laid out pixel by pixel: pixel
// x of row r is t[x*lanes+r]. It does pixels from, from±1, ... (steps of
// them, down with back), four rows at a time (COLUMNSTEP), each against
// the pixel before it as the pass left it and orig, the original values
// of the pixel before it; k holds the constants of blendColumns4.
TEXT ·blendSteps4(SB), NOSPLIT, $0-88
	MOVQ t_base+0(FP), DI
	MOVQ orig_base+56(FP), R12
	MOVQ k+80(FP), BX
	COLUMNK(BX)
	STEPSARGS($2, 4)
	JZ   blendstepsdone
	TESTQ DX, DX
	JZ   blendstepsdone

blendstepsloop:
	MOVQ R12, R8
	MOVQ DX, R9

blendstepsrows:
	COLUMNSTEP(DI, SI, R8)
	ADDQ $16, DI
	ADDQ $16, SI
	ADDQ $16, R8
	DECQ R9
	JNZ  blendstepsrows
	ADDQ R13, DI
	ADDQ R13, SI
	DECQ CX
	JNZ  blendstepsloop

blendstepsdone:
	RET

// func transpose4(dst, src []float32, blocks, srcRow, srcNext, dstRow, dstNext int)
// Transposes blocks 4×4 blocks of 32-bit values: block b has its rows r
// at src[b*srcNext + r*srcRow:][:4] and its columns c go to
// dst[b*dstNext + c*dstRow:][:4] (strides in values).
TEXT ·transpose4(SB), NOSPLIT, $0-88
	TRANSPOSEARGS($2)
	JZ transpose4done

transpose4loop:
	MOVOU      (SI), X0
	MOVOU      (SI)(R8*1), X1
	MOVOU      (SI)(R8*2), X2
	MOVOU      (SI)(R10*1), X3
	MOVO       X0, X4
	PUNPCKLLQ  X1, X4
	PUNPCKHLQ  X1, X0
	MOVO       X2, X5
	PUNPCKLLQ  X3, X5
	PUNPCKHLQ  X3, X2
	MOVO       X4, X6
	PUNPCKLQDQ X5, X6
	PUNPCKHQDQ X5, X4
	MOVO       X0, X7
	PUNPCKLQDQ X2, X7
	PUNPCKHQDQ X2, X0
	MOVOU      X6, (DI)
	MOVOU      X4, (DI)(R9*1)
	MOVOU      X7, (DI)(R9*2)
	MOVOU      X0, (DI)(R11*1)
	ADDQ       R12, SI
	ADDQ       R13, DI
	DECQ       CX
	JNZ        transpose4loop

transpose4done:
	RET

// func transpose8(dst, src []uint16, blocks, srcRow, srcNext, dstRow, dstNext int)
// Transposes blocks 8×8 blocks of words: block b has its rows r at
// src[b*srcNext + r*srcRow:][:8] and its columns c go to
// dst[b*dstNext + c*dstRow:][:8] (strides in words).
TEXT ·transpose8(SB), NOSPLIT, $0-88
	TRANSPOSEARGS($1)
	JZ transposedone

transposeloop:
	LEAQ  (SI)(R8*4), AX
	MOVOU (SI), X0
	MOVOU (SI)(R8*1), X1
	MOVOU (SI)(R8*2), X2
	MOVOU (SI)(R10*1), X3
	MOVOU (AX), X4
	MOVOU (AX)(R8*1), X5
	MOVOU (AX)(R8*2), X6
	MOVOU (AX)(R10*1), X7

	// words of rows 0 and 1, 2 and 3, ... interleaved
	MOVO      X0, X8
	PUNPCKLWL X1, X8
	PUNPCKHWL X1, X0
	MOVO      X2, X9
	PUNPCKLWL X3, X9
	PUNPCKHWL X3, X2
	MOVO      X4, X10
	PUNPCKLWL X5, X10
	PUNPCKHWL X5, X4
	MOVO      X6, X11
	PUNPCKLWL X7, X11
	PUNPCKHWL X7, X6

	// then their pairs, then their quadruples
	MOVO       X8, X12
	PUNPCKLLQ  X9, X12
	PUNPCKHLQ  X9, X8
	MOVO       X0, X13
	PUNPCKLLQ  X2, X13
	PUNPCKHLQ  X2, X0
	MOVO       X10, X14
	PUNPCKLLQ  X11, X14
	PUNPCKHLQ  X11, X10
	MOVO       X4, X15
	PUNPCKLLQ  X6, X15
	PUNPCKHLQ  X6, X4
	MOVO       X12, X1
	PUNPCKLQDQ X14, X1
	PUNPCKHQDQ X14, X12
	MOVO       X8, X2
	PUNPCKLQDQ X10, X2
	PUNPCKHQDQ X10, X8
	MOVO       X13, X3
	PUNPCKLQDQ X15, X3
	PUNPCKHQDQ X15, X13
	MOVO       X0, X5
	PUNPCKLQDQ X4, X5
	PUNPCKHQDQ X4, X0

	// columns 0 to 7: X1 X12 X2 X8 X3 X13 X5 X0
	LEAQ  (DI)(R9*4), BX
	MOVOU X1, (DI)
	MOVOU X12, (DI)(R9*1)
	MOVOU X2, (DI)(R9*2)
	MOVOU X8, (DI)(R11*1)
	MOVOU X3, (BX)
	MOVOU X13, (BX)(R9*1)
	MOVOU X5, (BX)(R9*2)
	MOVOU X0, (BX)(R11*1)

	ADDQ R12, SI
	ADDQ R13, DI
	DECQ CX
	JNZ  transposeloop

transposedone:
	RET

// func smoothSteps8(t []uint16, lanes, from, steps int, back bool, fill []uint16, k *[9][4]uint32)
// Runs smoothPass on lanes rows at once, laid out pixel by pixel: pixel
// x of row r is t[x*lanes+r]. It does pixels from, from±1, ... (steps of
// them, down with back), eight rows at a time, each against the pixel
// before it as the pass left it; fill holds each row's count of filled
// pixels. k holds, four times each: alpha, 1-alpha, 0.5 (float32 bits),
// 32768, 0x8000 in both halves, then in both halves delta, radius,
// minValid and minDiff.
TEXT ·smoothSteps8(SB), NOSPLIT, $0-88
	MOVQ t_base+0(FP), DI
	MOVQ fill_base+56(FP), R12
	MOVQ k+80(FP), BX
	SMOOTHK(BX)
	MOVOU 96(BX), X14
	STEPSARGS($1, 2)
	JZ   stepsdone
	TESTQ DX, DX
	JZ   stepsdone

stepsloop:
	MOVQ R12, R8
	MOVQ DX, R9

stepsrows:
	MOVOU (DI), X0 // c: this pixel
	MOVOU (SI), X1 // p: the one before, as filtered

	// X2: blend(c, p) + 0.5, truncated.
	BLENDW(X0, X1, X2, X3, X4)

	// X3: minDiff <= |c-p| <= delta
	ABSDIFFW(X0, X1, X3, X4)
	MOVOU   128(BX), X4
	PSUBUSW X3, X4
	PSUBUSW X13, X3
	POR     X4, X3
	PCMPEQW X15, X3

	// X4: c >= minValid; X5: p is 0; X6: both valid; X3: blend.
	MOVOU   112(BX), X4
	PSUBUSW X0, X4
	PCMPEQW X15, X4
	MOVO    X1, X5
	PCMPEQW X15, X5
	MOVO    X5, X6
	PANDN   X4, X6
	PAND    X6, X3

	// X4: p valid, c not: a hole to fill while the run (X6) is under
	// the radius (X5).
	POR     X5, X4
	PCMPEQW X5, X5
	PXOR    X5, X4
	MOVOU   (R8), X7
	PSUBSW  X4, X7
	PANDN   X7, X6
	MOVOU   X6, (R8)
	MOVO    X14, X5
	PCMPGTW X6, X5
	PAND    X4, X5

	// the blend, else p where filled, else c
	PXOR  X0, X1
	PAND  X5, X1
	PXOR  X0, X1
	PXOR  X1, X2
	PAND  X3, X2
	PXOR  X1, X2
	MOVOU X2, (DI)

	ADDQ $16, DI
	ADDQ $16, SI
	ADDQ $16, R8
	DECQ R9
	JNZ  stepsrows
	ADDQ R13, DI
	ADDQ R13, SI
	DECQ CX
	JNZ  stepsloop

stepsdone:
	RET
