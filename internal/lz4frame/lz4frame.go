// Package lz4frame writes and reads single LZ4 frames as ROS bag chunks and
// MCAP chunks hold them (the LZ4 frame format: independent blocks of 1 MiB,
// content checksum), without the per-frame allocations and the slower hash
// of a general-purpose LZ4 stream.
package lz4frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/pierrec/lz4/v4"
)

// LZ4 frame constants (spec §1.5).
const (
	lz4Magic      = 0x184D2204
	lz4FLG        = 0x64 // version 01, independent blocks, content checksum
	flgContentSum = 0x04
	lz4BD         = 0x60 // block max size 1 MiB
	BlockSize     = 1 << 20
)

// Encoder compresses chunk payloads into single LZ4 frames. It is reused
// and not safe for concurrent use.
type Encoder struct {
	c      compressor
	pieces [][]byte // a block's pieces (AppendFrameFrom)
	pend   []byte   // literals between a block's pieces
}

// Bound returns the largest frame for n payload bytes.
func Bound(n int) int {
	blocks := (n + BlockSize - 1) / BlockSize
	return 7 + blocks*4 + n + 4 + 4
}

// AppendFrame appends an LZ4 frame of src to dst, with the content
// checksum.
func (e *Encoder) AppendFrame(dst, src []byte) []byte { return e.AppendFrameSum(dst, src, true) }

// AppendFrameSum is AppendFrame that writes the content checksum only when
// sum is true: a container that checks the uncompressed bytes itself (an
// MCAP chunk's CRC) need not pay for the hash.
func (e *Encoder) AppendFrameSum(dst, src []byte, sum bool) []byte {
	return e.appendFrame(dst, len(src), sum, src, nil)
}

// A BlockSource gives the payload of a frame block by block, for a payload
// whose bytes do not lie in one slice.
type BlockSource interface {
	// Pieces appends to ps the payload's bytes [off, end), a block of at
	// most BlockSize bytes, as the slices that hold them in order, and
	// returns the result; the frame's blocks are asked for in order. The
	// slices need stay valid only until the next call.
	Pieces(ps [][]byte, off, end int) [][]byte
}

// AppendFrameFrom is AppendFrame of the n payload bytes that src gives,
// so that a block is compressed straight from the pieces that hold it,
// without a copy into one buffer first: a block of one piece is the block
// AppendFrame writes; in a block of several, each piece of minPiece bytes
// or more is compressed on its own (its matches lie within it), the
// others' bytes are literals.
func (e *Encoder) AppendFrameFrom(dst []byte, n int, src BlockSource) []byte {
	return e.appendFrame(dst, n, true, nil, src)
}

// minPiece is the shortest piece of a block that AppendFrameFrom
// compresses: a stripe, so that it completes the checksum's stripe that
// the bytes before it began (and longer than mfLimit, so that it can hold
// a match).
const minPiece = 16

// stream is the content checksum of a frame whose bytes come in pieces of
// any length: the XXH32 lanes over the whole stripes so far and the bytes
// after them.
type stream struct {
	v    [4]uint32
	tail [16]byte
	nt   int
}

// write runs b through the checksum.
func (h *stream) write(b []byte) {
	if h.nt > 0 {
		k := copy(h.tail[h.nt:], b)
		h.nt += k
		b = b[k:]
		if h.nt < 16 {
			return
		}
		xxhLanes(&h.v, h.tail[:])
		h.nt = 0
	}
	k := xxhLanes(&h.v, b)
	h.nt = copy(h.tail[:], b[k:])
}

// appendFrame appends the frame of the n bytes of src, or of bs when not
// nil.
func (e *Encoder) appendFrame(dst []byte, n int, sum bool, src []byte, bs BlockSource) []byte {
	var hd = [7]byte{0x04, 0x22, 0x4D, 0x18, lz4FLG, lz4BD, 0}
	if !sum {
		hd[4] &^= flgContentSum
	}
	hd[6] = byte(XXH32(hd[4:6], 0) >> 8)
	dst = append(dst, hd[:]...)
	need := len(dst) + Bound(n)
	if cap(dst) < need {
		nd := make([]byte, len(dst), need)
		copy(nd, dst)
		dst = nd
	}
	h := stream{v: xxhStart(0)}
	v := &h.v
	if !sum {
		v = nil
	}
	ps := e.pieces[:0]
	for off, size := 0, 0; off < n; off += size {
		end := min(off+BlockSize, n)
		size = end - off
		if bs != nil {
			ps = bs.Pieces(ps[:0], off, end)
		} else {
			ps = append(ps[:0], src[off:end])
		}
		pos := len(dst)
		out := dst[pos+4 : pos+4+size-1 : pos+4+size-1]
		var c int
		if len(ps) == 1 {
			// Every block but the last is BlockSize long, a whole number
			// of stripes, so the checksum has no bytes left over when a
			// block starts.
			blk := ps[0]
			c = e.c.compressBlock(out, blk, v)
			h.nt = copy(h.tail[:], blk[len(blk)&^15:])
		} else {
			c = e.compressPieces(out, ps, &h, sum)
		}
		if c == 0 {
			binary.LittleEndian.PutUint32(dst[pos:pos+4], uint32(size)|1<<31)
			dst = dst[:pos+4]
			for _, p := range ps {
				dst = append(dst, p...)
			}
			continue
		}
		binary.LittleEndian.PutUint32(dst[pos:pos+4], uint32(c))
		dst = dst[:pos+4+c]
	}
	clear(ps[:cap(ps)]) // hold no piece after the frame
	e.pieces = ps[:0]
	dst = binary.LittleEndian.AppendUint32(dst, 0)
	if !sum {
		return dst
	}
	return binary.LittleEndian.AppendUint32(dst, xxhFinish(&h.v, h.tail[:h.nt], n, 0))
}

// compressPieces is compressBlock of the block made of the pieces ps,
// running them through the checksum h when sum is true.
func (e *Encoder) compressPieces(dst []byte, ps [][]byte, h *stream, sum bool) int {
	pend := e.pend[:0]
	di := 0
	for _, p := range ps {
		if len(p) < minPiece || di < 0 {
			if sum {
				h.write(p)
			}
			if di >= 0 {
				pend = append(pend, p...)
			}
			continue
		}
		var v *[4]uint32
		hp := 0
		if sum {
			// The stripe the bytes before p began ends in p.
			if h.nt > 0 {
				hp = 16 - h.nt
				h.write(p[:hp])
			}
			v = &h.v
		}
		var anchor int
		di, anchor, hp = e.c.sequences(dst, di, pend, p, v, hp)
		if sum {
			h.nt = copy(h.tail[:], p[hp:])
		}
		if anchor > 0 {
			pend = pend[:0]
		}
		pend = append(pend, p[anchor:]...)
	}
	e.pend = pend[:0]
	if di < 0 {
		return 0
	}
	return putLast(dst, di, pend)
}

// ErrFrame is wrapped by the errors of a frame that does not decode.
var ErrFrame = errors.New("lz4 frame")

// Decode decompresses one LZ4 frame from src into dst[:size], which
// must have length size. It checks every length against the input and the
// declared size and verifies the content checksum when present.
func Decode(dst, src []byte) (int, error) { return DecodeSum(dst, src, true) }

// DecodeSum is Decode that verifies the content checksum
// only when sum is true (the header and block checksums are always checked).
func DecodeSum(dst, src []byte, sum bool) (int, error) {
	out := 0
	size := len(dst)
	if len(src) < 7 {
		return out, fmt.Errorf("%w: header cut short (%d bytes)", ErrFrame, len(src))
	}
	if binary.LittleEndian.Uint32(src) != lz4Magic {
		return out, fmt.Errorf("%w: magic %08x, want %08x", ErrFrame, binary.LittleEndian.Uint32(src), lz4Magic)
	}
	flg, bd := src[4], src[5]
	if flg>>6 != 1 {
		return out, fmt.Errorf("%w: version %d, want 1", ErrFrame, flg>>6)
	}
	if flg&0x02 != 0 || bd&0x8F != 0 {
		return out, fmt.Errorf("%w: reserved bits set (FLG %02x BD %02x)", ErrFrame, flg, bd)
	}
	indep := flg&0x20 != 0
	blockSum := flg&0x10 != 0
	hasSize := flg&0x08 != 0
	contentSum := flg&flgContentSum != 0
	hasDict := flg&0x01 != 0
	maxBlock := 0
	switch bd >> 4 {
	case 4:
		maxBlock = 64 << 10
	case 5:
		maxBlock = 256 << 10
	case 6:
		maxBlock = 1 << 20
	case 7:
		maxBlock = 4 << 20
	default:
		return out, fmt.Errorf("%w: block size id %d, want 4..7", ErrFrame, bd>>4)
	}
	p := 6
	if hasSize {
		if len(src) < p+8 {
			return out, fmt.Errorf("%w: content size cut short", ErrFrame)
		}
		if cs := binary.LittleEndian.Uint64(src[p:]); cs != uint64(size) {
			return out, fmt.Errorf("%w: content size %d, want %d (chunk size)", ErrFrame, cs, size)
		}
		p += 8
	}
	if hasDict {
		return out, fmt.Errorf("%w: dictionary id not supported", ErrFrame)
	}
	if len(src) < p+1 {
		return out, fmt.Errorf("%w: header checksum cut short", ErrFrame)
	}
	if hc := byte(XXH32(src[4:p], 0) >> 8); hc != src[p] {
		return out, fmt.Errorf("%w: header checksum %02x, want %02x", ErrFrame, src[p], hc)
	}
	p++
	// The content checksum is computed block by block, right after each
	// block is decoded, while its bytes are still in the core's cache.
	check := contentSum && sum
	lanes, hashed := xxhStart(0), 0
	for {
		if check {
			hashed += xxhLanes(&lanes, dst[hashed:out])
		}
		if len(src) < p+4 {
			return out, fmt.Errorf("%w: block size at frame offset %d cut short", ErrFrame, p)
		}
		bs := binary.LittleEndian.Uint32(src[p:])
		p += 4
		if bs == 0 {
			break
		}
		raw := bs&(1<<31) != 0
		n := int(bs &^ (1 << 31))
		if n > maxBlock || n > len(src)-p {
			return out, fmt.Errorf("%w: block of %d bytes at frame offset %d exceeds the frame or the maximum block size", ErrFrame, n, p-4)
		}
		blk := src[p : p+n]
		p += n
		if blockSum {
			if len(src) < p+4 {
				return out, fmt.Errorf("%w: block checksum cut short", ErrFrame)
			}
			if got, want := binary.LittleEndian.Uint32(src[p:]), XXH32(blk, 0); got != want {
				return out, fmt.Errorf("%w: block checksum %08x, want %08x", ErrFrame, got, want)
			}
			p += 4
		}
		room := dst[out:]
		if len(room) > maxBlock {
			room = room[:maxBlock]
		}
		if raw {
			if n > len(room) {
				return out, fmt.Errorf("%w: data exceeds the chunk size %d", ErrFrame, size)
			}
			out += copy(room, blk)
			continue
		}
		var m int
		var err error
		if indep || out == 0 {
			m, err = lz4.UncompressBlock(blk, room)
		} else {
			d := dst[max(0, out-64<<10):out]
			m, err = lz4.UncompressBlockWithDict(blk, room, d)
		}
		if err != nil {
			return out, fmt.Errorf("%w: block at frame offset %d: %v (or data exceeds the chunk size %d)", ErrFrame, p-n-4, err, size)
		}
		out += m
	}
	if out != size {
		return out, fmt.Errorf("%w: decompressed %d bytes, want %d (chunk size)", ErrFrame, out, size)
	}
	if contentSum {
		if len(src) < p+4 {
			return out, fmt.Errorf("%w: content checksum cut short", ErrFrame)
		}
		if check {
			if got, want := binary.LittleEndian.Uint32(src[p:]), xxhFinish(&lanes, dst[hashed:out], out, 0); got != want {
				return out, fmt.Errorf("%w: content checksum %08x, want %08x", ErrFrame, got, want)
			}
		}
		p += 4
	}
	if p != len(src) {
		return out, fmt.Errorf("%w: %d bytes after the frame", ErrFrame, len(src)-p)
	}
	return out, nil
}

const (
	prime32_1 = 2654435761
	prime32_2 = 2246822519
	prime32_3 = 3266489917
	prime32_4 = 668265263
	prime32_5 = 374761393
)

// XXH32 returns the XXH32 hash of b (the algorithm of the xxHash
// specification).
func XXH32(b []byte, seed uint32) uint32 {
	v := xxhStart(seed)
	return xxhFinish(&v, b[xxhLanes(&v, b):], len(b), seed)
}

// xxhStart returns the four lanes' initial state for seed.
func xxhStart(seed uint32) [4]uint32 {
	return [4]uint32{seed + prime32_1 + prime32_2, seed + prime32_2, seed, seed - prime32_1}
}

// xxhFinish returns the hash of n bytes whose whole 16-byte stripes went
// through the lanes v and whose rest (fewer than 16 bytes) is tail.
func xxhFinish(v *[4]uint32, tail []byte, n int, seed uint32) uint32 {
	var h uint32
	if n >= 16 {
		h = bits.RotateLeft32(v[0], 1) + bits.RotateLeft32(v[1], 7) + bits.RotateLeft32(v[2], 12) + bits.RotateLeft32(v[3], 18)
	} else {
		h = seed + prime32_5
	}
	h += uint32(n)
	b := tail
	for len(b) >= 4 {
		h = bits.RotateLeft32(h+binary.LittleEndian.Uint32(b)*prime32_3, 17) * prime32_4
		b = b[4:]
	}
	for _, c := range b {
		h = bits.RotateLeft32(h+uint32(c)*prime32_5, 11) * prime32_1
	}
	h ^= h >> 15
	h *= prime32_2
	h ^= h >> 13
	h *= prime32_3
	h ^= h >> 16
	return h
}

// xxhLanes runs the four lanes of XXH32 over the whole 16-byte stripes of
// b and returns how many bytes they cover. Whole little-endian words from a
// fixed-size array compile to one load each with no bounds check, and in a
// function of its own the lanes stay in registers.
func xxhLanes(v *[4]uint32, b []byte) int {
	v1, v2, v3, v4 := v[0], v[1], v[2], v[3]
	n := len(b) &^ 15
	for i := 0; i < n; i += 16 {
		s := (*[16]byte)(b[i : i+16])
		v1 = xxhRound(v1, binary.LittleEndian.Uint32(s[0:]))
		v2 = xxhRound(v2, binary.LittleEndian.Uint32(s[4:]))
		v3 = xxhRound(v3, binary.LittleEndian.Uint32(s[8:]))
		v4 = xxhRound(v4, binary.LittleEndian.Uint32(s[12:]))
	}
	v[0], v[1], v[2], v[3] = v1, v2, v3, v4
	return n
}

// xxhRound is one lane's step of XXH32.
func xxhRound(v, x uint32) uint32 { return bits.RotateLeft32(v+x*prime32_2, 13) * prime32_1 }

// UncompressBlock decompresses one LZ4 block of src into dst.
func UncompressBlock(src, dst []byte) (int, error) { return lz4.UncompressBlock(src, dst) }
