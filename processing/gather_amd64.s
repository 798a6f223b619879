#include "textflag.h"

// func gatherRGBFast(dst, src []byte, z []uint16, px [][2]int32, w, h int)
// For each pixel i of the depth row z, dst's three bytes at 3i become
// src's three bytes of the pixel px[i] of a w×h picture where z[i] is not
// 0 and px[i] is inside the picture, else 0. len(dst) is 3*len(z), px is
// as long as z, len(src) is 3*w*h.
TEXT ·gatherRGBFast(SB), NOSPLIT, $0-112
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ z_base+48(FP), DX
	MOVQ z_len+56(FP), CX
	MOVQ px_base+72(FP), BX
	MOVQ w+96(FP), R12
	MOVQ h+104(FP), R13
	TESTQ CX, CX
	JZ   done

loop:
	MOVWLZX (DX), AX
	TESTL   AX, AX
	JZ      none
	MOVL    (BX), R8 // x
	MOVL    4(BX), R9 // y
	CMPQ    R8, R12
	JAE     none
	CMPQ    R9, R13
	JAE     none
	IMULQ   R12, R9
	ADDQ    R8, R9
	LEAQ    (R9)(R9*2), R9
	MOVWLZX (SI)(R9*1), R10
	MOVBLZX 2(SI)(R9*1), R11
	MOVW    R10, (DI)
	MOVB    R11, 2(DI)
	JMP     next

none:
	MOVW $0, (DI)
	MOVB $0, 2(DI)

next:
	ADDQ $2, DX
	ADDQ $8, BX
	ADDQ $3, DI
	DECQ CX
	JNZ  loop

done:
	RET
