#include "textflag.h"

// The placement of align to another stream (scatterNearest), SSE2: each
// depth d of a pixel goes into its rectangle of dst where dst holds 0 or
// a farther depth, computed as min(v-1, d-1)+1 on uint16 (0-1 wraps to the
// top, so no depth yet loses to any), min(a, b) as a - (a -sat b).
//
// Four pixels whose rectangles are two columns wide, side by side (the
// first columns X, X+1, ..., X+3), all on the rows Y0 to Y1 inside the
// picture, are placed at once: columns X to X+3 get the nearer of each
// pixel and its left neighbour, column X+4 the last pixel's depth, which
// is kept (the carry: its address, rows and depth) for the next four
// pixels' column X when they continue the run, and else placed on its own.
// Other pixels are placed one by one, four columns at a time (their
// columns past the rectangle given their own values back).

// MINPLACE places the four depths of c (d-1, or 0xffff for none) into the
// four uint16 at (addr): v = min(v-1, c)+1. X2 and X3 are overwritten;
// X10 is all ones.
#define MINPLACE(c, addr) \
	MOVQ    addr, X2; \
	PADDW   X10, X2; \
	MOVO    X2, X3; \
	PSUBUSW c, X3; \
	PSUBW   X3, X2; \
	PSUBW   X10, X2; \
	MOVQ    X2, addr


// func scatterNearestFast(dst, z []uint16, tl, br [][2]int32, w, h int) int
TEXT ·scatterNearestFast(SB), NOSPLIT, $0-120
	MOVQ dst_base+0(FP), DI
	MOVQ z_base+24(FP), SI
	MOVQ z_len+32(FP), R11
	MOVQ tl_base+48(FP), BX
	MOVQ br_base+72(FP), DX
	MOVQ w+96(FP), R12
	MOVQ h+104(FP), R13

	// X8 = (w-1, h-1) twice, X9 = 0, X10 all ones, X11 = (0xffff, 0, 0, 0)
	// as uint16, X13 = (0, 1, 2, 3) as uint16, X14 = (0, 0, 1, 0) and X15 =
	// (2, 0, 3, 0) as int32: the columns of four pixels side by side.
	LEAQ      -1(R12), AX
	MOVQ      AX, X8
	LEAQ      -1(R13), AX
	MOVQ      AX, X2
	PUNPCKLLQ X2, X8
	PSHUFD    $0x44, X8, X8
	PXOR      X9, X9
	PCMPEQW   X10, X10
	MOVQ      $0xffff, AX
	MOVQ      AX, X11
	MOVQ      $0x0003000200010000, AX
	MOVQ      AX, X13
	MOVQ      $1, AX
	MOVQ      AX, X14
	PSHUFD    $0x4f, X14, X14
	MOVQ      $2, AX
	MOVQ      AX, X15
	MOVQ      $3, AX
	MOVQ      AX, X2
	PSHUFD    $0x4f, X2, X2
	POR       X2, X15

	LEAQ -4(R12), R13 // the last first column of four columns in a row
	ADDQ R12, R12     // the row stride in bytes
	XORQ R8, R8       // no carry
	XORQ AX, AX       // the pixel

loop:
	LEAQ 4(AX), CX
	CMPQ CX, R11
	JGT  pixel

	// Four pixels with depth, ...
	MOVQ     (SI)(AX*2), X0
	MOVO     X0, X1
	PCMPEQW  X9, X1
	PMOVMSKB X1, CX
	TESTL    $0xff, CX
	JNZ      pixel

	// ... side by side on the same rows, ...
	MOVOU   (BX)(AX*8), X1
	MOVOU   16(BX)(AX*8), X2
	MOVOU   (DX)(AX*8), X3
	MOVOU   16(DX)(AX*8), X4
	PSUBL   X14, X1
	PSUBL   X15, X2
	PSUBL   X14, X3
	PSUBL   X15, X4
	PCMPEQL X1, X2
	PCMPEQL X3, X4
	PSHUFD  $0x44, X1, X5
	PCMPEQL X1, X5
	PSHUFD  $0x44, X3, X6
	PCMPEQL X3, X6
	PAND    X4, X2
	PAND    X6, X5
	PAND    X5, X2
	MOVMSKPS X2, CX
	CMPL    CX, $15
	JNE     pixel

	// ... two columns wide, inside the picture.
	MOVQ  X1, R9  // X, Y0
	MOVQ  X3, R10 // X+1, Y1
	LEAL  1(R9), CX
	CMPL  CX, R10
	JNE   pixel
	CMPL  R9, $0
	JLT   pixel
	CMPL  R9, R13
	JGE   pixel
	MOVL  R9, CX // X
	SHRQ  $32, R9
	SHRQ  $32, R10
	CMPL  R9, $0
	JLT   pixel
	CMPL  R10, R9
	JLT   pixel
	CMPQ  R10, h+104(FP)
	JGE   pixel
	SUBL  R9, R10
	INCL  R10 // the rows
	IMULQ R12, R9
	LEAQ  (R9)(CX*2), R9
	ADDQ  DI, R9 // the first column's address on the first row

	// The column left of X: the carry when it is this run's, else none.
	MOVO  X11, X5
	CMPQ  R8, R9
	JNE   nocarry
	CMPQ  R14, R10
	JNE   nocarry
	MOVO  X12, X5
	JMP   carried

nocarry:
	MOVQ $-1, ret+112(FP) // back to carried after the flush
	JMP  flush

carried:
	PADDW   X10, X0 // d-1
	MOVO    X0, X6
	PSLLQ   $16, X6
	POR     X5, X6 // each pixel's left neighbour
	MOVO    X0, X7
	PSUBUSW X6, X7
	MOVO    X0, X6
	PSUBW   X7, X6 // the nearer of the two
	PSRLQ   $48, X0
	MOVO    X0, X12 // the last pixel's, for column X+4
	LEAQ    8(R9), R8
	MOVQ    R10, R14

grow:
	MINPLACE(X6, (R9))
	ADDQ R12, R9
	DECQ R10
	JNZ  grow
	ADDQ $4, AX
	JMP  loop

pixel:
	CMPQ    AX, R11
	JGE     done
	MOVWLZX (SI)(AX*2), CX
	TESTL   CX, CX
	JZ      next
	MOVQ    (BX)(AX*8), X1
	MOVQ    (DX)(AX*8), X3
	MOVO    X1, X2
	PCMPGTL X9, X2
	PAND    X2, X1 // x0, y0: tl clipped to 0
	MOVO    X3, X4
	PCMPGTL X8, X4
	MOVO    X8, X5
	PAND    X4, X5
	PANDN   X3, X4
	POR     X5, X4 // x1, y1: br clipped to (w-1, h-1)
	PSUBL   X1, X4 // x1-x0, y1-y0
	MOVMSKPS X4, R10
	TESTL   $3, R10
	JNZ     next // nothing inside
	MOVQ    X4, R10
	CMPL    R10, $3
	JA      stop // wider than four columns
	MOVQ    X1, R9
	CMPL    R9, R13
	JGT     stop // four columns from x0 leave the row
	DECL    CX
	MOVQ    CX, X6
	PSHUFLW $0, X6, X6
	PSHUFLW $0, X4, X5
	MOVO    X13, X7
	PCMPGTW X5, X7
	POR     X7, X6 // d-1 on the rectangle's columns, 0xffff past them
	MOVQ    R9, CX
	SHRQ    $32, CX
	IMULQ   R12, CX
	MOVL    R9, R9
	LEAQ    (CX)(R9*2), CX
	ADDQ    DI, CX
	SHRQ    $32, R10
	INCL    R10

prow:
	MINPLACE(X6, (CX))
	ADDQ R12, CX
	DECL R10
	JNZ  prow

next:
	// Pixels one by one up to the next multiple of four: where four
	// pixels are not side by side, the next four seldom are.
	INCQ  AX
	TESTQ $3, AX
	JNZ   pixel
	JMP   loop

stop:
done:
	MOVQ AX, ret+112(FP)

flush:
	// The carry, if any, placed: the depth of X12's first lane on R14
	// rows from the address R8 (0 for none). Then the run goes on
	// (carried) when ret is -1, else this returns.
	TESTQ   R8, R8
	JZ      flushed

flushrow:
	PINSRW  $0, (R8), X2
	PADDW   X10, X2
	MOVO    X2, X3
	PSUBUSW X12, X3
	PSUBW   X3, X2
	PSUBW   X10, X2
	PEXTRW  $0, X2, CX
	MOVW    CX, (R8)
	ADDQ    R12, R8
	DECQ    R14
	JNZ     flushrow
	XORQ    R8, R8

flushed:
	CMPQ ret+112(FP), $0
	JLT  carried
	RET
