#include "textflag.h"

// func blendRows8(row, other []uint16, k *[6][4]uint32, valid bool)
// k holds, four times each: alpha, 1-alpha, 0.5 (float32 bits), 32768,
// 0x80008000 and delta-1 in both halves.
TEXT ·blendRows8(SB), NOSPLIT, $0-57
	MOVQ    row_base+0(FP), DI
	MOVQ    row_len+8(FP), CX
	MOVQ    other_base+24(FP), SI
	MOVQ    k+48(FP), BX
	MOVBLZX valid+56(FP), AX
	MOVOU   0(BX), X8
	MOVOU   16(BX), X9
	MOVOU   32(BX), X10
	MOVOU   48(BX), X11
	MOVOU   64(BX), X12
	MOVOU   80(BX), X13
	PXOR    X15, X15
	SHRQ    $3, CX
	JZ      done

loop:
	MOVOU (DI), X0 // a: this row
	MOVOU (SI), X1 // b: the other row

	// mask (X2): |a-b| < delta, and with valid a != 0 and b != 0.
	MOVO    X0, X2
	PSUBUSW X1, X2
	MOVO    X1, X3
	PSUBUSW X0, X3
	POR     X3, X2
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
	// new = uint16(float32(a*alpha) + float32(b*(1-alpha)) + 0.5), low
	// four pixels in X3, high four in X4.
	MOVO      X0, X3
	PUNPCKLWL X15, X3
	MOVO      X0, X4
	PUNPCKHWL X15, X4
	MOVO      X1, X5
	PUNPCKLWL X15, X5
	MOVO      X1, X6
	PUNPCKHWL X15, X6
	CVTPL2PS  X3, X3
	CVTPL2PS  X4, X4
	CVTPL2PS  X5, X5
	CVTPL2PS  X6, X6
	MULPS     X8, X3
	MULPS     X8, X4
	MULPS     X9, X5
	MULPS     X9, X6
	ADDPS     X5, X3
	ADDPS     X6, X4
	ADDPS     X10, X3
	ADDPS     X10, X4
	CVTTPS2PL X3, X3
	CVTTPS2PL X4, X4
	PSUBL     X11, X3
	PSUBL     X11, X4
	PACKSSLW  X4, X3
	PXOR      X12, X3

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
