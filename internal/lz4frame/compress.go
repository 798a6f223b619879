package lz4frame

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// LZ4 block format constants, as librealsense's bundled lz4
// (third-party/realsense-file/lz4/lz4.c and lz4.h).
const (
	minMatch     = 4     // MINMATCH: the shortest match
	lastLiterals = 5     // LASTLITERALS: a block ends with at least 5 literals
	mfLimit      = 12    // MFLIMIT: no match starts in the last 12 bytes
	maxOffset    = 65535 // LZ4_DISTANCE_MAX
	runMask      = 15    // RUN_MASK and ML_MASK: the token's two 4-bit lengths
	skipTrigger  = 6     // LZ4_skipTrigger: after 64 misses the search steps 2 bytes, …
	// hashLog is LZ4_HASHLOG (LZ4_MEMORY_USAGE 14 - 2): librealsense's
	// table of 4096 positions, which fits the core's L1 cache.
	hashLog    = 12
	prime5Byte = 889523592379 // lz4.c's LZ4_hash5 multiplier (prime5bytes)
)

// compressor is an LZ4 block compressor (the greedy single-probe match
// finder of LZ4_compress_default, probing four positions per load) that
// also runs the frame's XXH32 content checksum over the block while its
// bytes are in the core's L1 cache: the stripes of a long match are hashed
// in the loop that compares them, and the literals when their sequence is
// written. The checksum's lanes are a latency chain that leaves most of the
// core idle, and the match compare waits on memory, so each runs in the
// other's shadow.
//
// table holds, for each hash of 5 bytes, base plus the latest position in
// the block that had it; entries below base are of earlier blocks, so the
// table is never cleared between blocks (only when base would wrap). v
// holds the checksum's lanes while a block is compressed.
type compressor struct {
	table [1 << hashLog]uint32
	base  uint32
	v     [4]uint32
}

// hash5 hashes the low 5 bytes of x (lz4.c's LZ4_hash5 on little-endian
// 64-bit machines).
func hash5(x uint64) uint32 { return uint32((x << 24) * prime5Byte >> (64 - hashLog)) }

// ld64 and ld32 load the little-endian word at p+i without a bounds check:
// the callers say why p[i:i+8] (p[i:i+4]) lies within the block.
func ld64(p *byte, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(p), i))[:])
}

func ld8(p *byte, i int) byte { return *(*byte)(unsafe.Add(unsafe.Pointer(p), i)) }

func ld32(p *byte, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(p), i))[:])
}

// compressBlock writes the LZ4 block of src into dst and returns its length,
// or 0 when it does not fit in dst (the caller then stores src raw). When
// v is not nil, the whole 16-byte stripes of src run through the XXH32
// lanes v (whatever the result), so a frame's checksum continues over
// blocks whose lengths are multiples of 16.
func (c *compressor) compressBlock(dst, src []byte, v *[4]uint32) int {
	di, anchor, _ := c.sequences(dst, 0, nil, src, v, 0)
	if di < 0 || anchor == 0 {
		return 0 // no room, or no match: store the block raw
	}
	return putLast(dst, di, src[anchor:])
}

// putLast writes the block's last sequence, of the literals lits only, at
// dst[di:] and returns the block's length, or 0 when it does not fit.
func putLast(dst []byte, di int, lits []byte) int {
	lit := len(lits)
	if di+1+lit+lit>>7+1 > len(dst) {
		return 0
	}
	tok := di
	di++
	if lit >= runMask {
		dst[tok] = runMask << 4
		di = putLen(dst, di, lit-runMask)
	} else {
		dst[tok] = byte(lit) << 4
	}
	return di + copy(dst[di:], lits)
}

// sequences writes the LZ4 sequences of src, a piece of a block, at
// dst[di:], the first of them beginning with the literals pend (the
// block's bytes before src that no sequence holds yet). It returns the
// position in dst after them, or -1 when they do not fit, and anchor, the
// position in src from which its bytes are literals that no sequence holds
// (0 when it wrote none: then pend is not written either). When v is not
// nil, the whole 16-byte stripes of src from hp on run through the XXH32
// lanes v (whatever the result), and it returns the position after them.
func (c *compressor) sequences(dst []byte, di int, pend, src []byte, v *[4]uint32, hp int) (int, int, int) {
	// base is more than maxOffset past every entry of an earlier block
	// (and past 0, an unused entry), so the offset check alone refuses
	// them.
	if uint64(c.base)+maxOffset+1+uint64(len(src)) >= 1<<32 {
		c.table = [1 << hashLog]uint32{}
		c.base = 0
	}
	base := c.base + maxOffset + 1
	c.base = base + uint32(len(src))
	// hp: the stripes of src before hp are hashed; with no checksum it
	// starts past the end, so no stripe is.
	if v != nil {
		c.v = *v
	} else {
		hp = len(src)
	}
	// anchor: the literals not yet written start at src[anchor], or,
	// while it is negative, with the last -anchor bytes of pend.
	anchor := -len(pend)
	if len(src) > mfLimit {
		p, d := &src[0], &dst[0]
		// ip is the position searched; a match starts before mfEnd and
		// ends by matchEnd. Every load below is of 8 bytes at a position
		// before mfEnd (so within src: mfEnd+8 < len(src)), of 4 bytes at
		// an earlier position, or of 8 bytes that end by matchEnd; the
		// short sequence's 16 literal bytes are copied from anchor only
		// when anchor+16 <= len(src).
		mfEnd, matchEnd := len(src)-mfLimit, len(src)-lastLiterals
		ip := 0
	search:
		for {
			var ref int
			if ip, ref, hp = c.probe(p, ip, mfEnd, base, hp, len(src)); ref < 0 {
				break search
			}
			for ip > anchor && ref > 0 && ld8(p, ip-1) == ld8(p, ref-1) {
				ip--
				ref--
			}
			// The literals: hash their stripes now, while they are hot.
			if hp+16 <= ip {
				hp += xxhLanes(&c.v, src[hp:ip])
			}
			off := ip - ref
			end := ip + minMatch
			// Most matches end within 32 bytes: those are found here,
			// without the two calls that reach the loop of the longer
			// ones (matchHash).
			if end+32 > matchEnd {
				end = matchLen(src, matchEnd, end, off)
			} else if x := ld64(p, end) ^ ld64(p, end-off); x != 0 {
				end += bits.TrailingZeros64(x) >> 3
			} else if x := ld64(p, end+8) ^ ld64(p, end+8-off); x != 0 {
				end += 8 + bits.TrailingZeros64(x)>>3
			} else if x := ld64(p, end+16) ^ ld64(p, end+16-off); x != 0 {
				end += 16 + bits.TrailingZeros64(x)>>3
			} else if x := ld64(p, end+24) ^ ld64(p, end+24-off); x != 0 {
				end += 24 + bits.TrailingZeros64(x)>>3
			} else {
				end, hp = c.matchHash(src, matchEnd, end+32, off, hp)
			}
			lit, ml := ip-anchor, end-ip-minMatch
			if lit < runMask && ml < runMask+255 && di+1+16+2+1 <= len(dst) && anchor >= 0 && anchor+16 <= len(src) {
				// The common short sequence: token, the literals copied as
				// 16 bytes (the bytes after them are overwritten next),
				// offset, at most one extra match length byte.
				q := unsafe.Add(unsafe.Pointer(d), di)
				*(*[16]byte)(unsafe.Add(q, 1)) = *(*[16]byte)(unsafe.Add(unsafe.Pointer(p), anchor))
				binary.LittleEndian.PutUint16((*[2]byte)(unsafe.Add(q, 1+lit))[:], uint16(off))
				if ml < runMask {
					*(*byte)(q) = byte(lit<<4 | ml)
					di += 1 + lit + 2
				} else {
					*(*byte)(q) = byte(lit<<4 | runMask)
					*(*byte)(unsafe.Add(q, 1+lit+2)) = byte(ml - runMask)
					di += 1 + lit + 2 + 1
				}
				ip, anchor = end, end
				if ip >= mfEnd {
					break
				}
				c.table[hash5(ld64(p, ip-2))] = base + uint32(ip-2)
				continue
			}
			// token, literal length, literals, offset, match length (an
			// extra length byte per 255, counted as one per 128)
			if di+1+lit+lit>>7+1+2+ml>>7+1 > len(dst) {
				di = -1
				break search
			}
			tok := di
			di++
			var t byte
			if lit >= runMask {
				t = runMask << 4
				di = putLen(dst, di, lit-runMask)
			} else {
				t = byte(lit) << 4
			}
			if anchor < 0 {
				di += copy(dst[di:], pend)
				lit += anchor
				anchor = 0
			}
			if lit <= 16 && di+16 <= len(dst) && anchor+16 <= len(src) {
				// A short run is copied as 16 bytes (the bytes after it are
				// overwritten next).
				*(*[16]byte)(dst[di : di+16]) = *(*[16]byte)(src[anchor : anchor+16])
				di += lit
			} else {
				di += copy(dst[di:], src[anchor:ip])
			}
			dst[di], dst[di+1] = byte(off), byte(off>>8)
			di += 2
			if ml >= runMask {
				t |= runMask
				di = putLen(dst, di, ml-runMask)
			} else {
				t |= byte(ml)
			}
			dst[tok] = t
			ip, anchor = end, end
			if ip >= mfEnd {
				break
			}
			c.table[hash5(ld64(p, ip-2))] = base + uint32(ip-2)
		}
	}
	if hp+16 <= len(src) {
		hp += xxhLanes(&c.v, src[hp:])
	}
	if v != nil {
		*v = c.v
	}
	return di, max(anchor, 0), hp
}

// probe searches src (at p) from ip for the next match that starts
// before mfEnd, inserting the positions it tries into the table (whose
// entries of this block are base plus their position), and returns its
// position and its earlier copy's, or ref -1 when there is none. It runs a
// stripe of the checksum lanes c.v per probe, from hp while hp+16 <= hend,
// in the shadow of the probe's loads and branches, and returns the new hp.
// A function of its own, so that its state stays in registers.
func (c *compressor) probe(p *byte, ip, mfEnd int, base uint32, hp, hend int) (int, int, int) {
	t := &c.table
	// Each probe tries the positions ip to ip+3 with one load, and moves
	// 4 bytes on, more after every 1<<skipTrigger misses.
	misses := 1 << skipTrigger
	for ip+3 < mfEnd {
		if hp+16 <= hend {
			c.v[0] = xxhRound(c.v[0], ld32(p, hp))
			c.v[1] = xxhRound(c.v[1], ld32(p, hp+4))
			c.v[2] = xxhRound(c.v[2], ld32(p, hp+8))
			c.v[3] = xxhRound(c.v[3], ld32(p, hp+12))
			hp += 16
		}
		seq := ld64(p, ip)
		h0, h1, h2, h3 := hash5(seq), hash5(seq>>8), hash5(seq>>16), hash5(seq>>24)
		e0 := t[h0]
		t[h0] = base + uint32(ip)
		e1 := t[h1]
		t[h1] = base + uint32(ip+1)
		e2 := t[h2]
		t[h2] = base + uint32(ip+2)
		e3 := t[h3]
		t[h3] = base + uint32(ip+3)
		// A live entry is of an earlier position of this block, at most
		// maxOffset before.
		if ref := int(e0) - int(base); uint(ip-ref-1) < maxOffset && uint32(seq) == ld32(p, ref) {
			return ip, ref, hp
		}
		if ref := int(e1) - int(base); uint(ip-ref) < maxOffset && uint32(seq>>8) == ld32(p, ref) {
			return ip + 1, ref, hp
		}
		if ref := int(e2) - int(base); uint(ip+1-ref) < maxOffset && uint32(seq>>16) == ld32(p, ref) {
			return ip + 2, ref, hp
		}
		if ref := int(e3) - int(base); uint(ip+2-ref) < maxOffset && uint32(seq>>24) == ld32(p, ref) {
			return ip + 3, ref, hp
		}
		ip += 3 + misses>>skipTrigger
		misses++
	}
	return ip, -1, hp
}

// putLen writes the extra bytes of a length of n beyond its token's 15
// (255s, then the rest) at dst[di:] and returns the position after them.
func putLen(dst []byte, di, n int) int {
	for n >= 255 {
		dst[di] = 255
		di++
		n -= 255
	}
	dst[di] = byte(n)
	return di + 1
}

// matchLen extends the match at end (whose earlier copy is off bytes
// before, off <= end) up to limit <= len(src) and returns where it ends.
func matchLen(src []byte, limit, end, off int) int {
	p := &src[0]
	for ; end+16 <= limit; end += 16 {
		x := ld64(p, end) ^ ld64(p, end-off)
		y := ld64(p, end+8) ^ ld64(p, end+8-off)
		if x != 0 {
			return end + bits.TrailingZeros64(x)>>3
		}
		if y != 0 {
			return end + 8 + bits.TrailingZeros64(y)>>3
		}
	}
	for end < limit && src[end] == src[end-off] {
		end++
	}
	return end
}

// matchHash extends the match at end (whose earlier copy is off bytes
// before) up to limit and returns where it ends. For each 16 bytes it
// compares, it runs the XXH32 lanes c.v over the stripe of src at hp (the
// next to hash, near end), so that both are read while in the L1 cache; it
// returns the position after the stripes hashed.
func (c *compressor) matchHash(src []byte, limit, end, off, hp int) (int, int) {
	// The match and the stripes move on together: i bytes from end, ref
	// (end-off) and hp, for as long as both stay within their limits, so
	// every load is within src.
	n := min(limit-end, len(src)-hp)
	if n < 16 {
		return matchLen(src, limit, end, off), hp
	}
	i := hashWhileEqual(&src[end], &src[end-off], &src[hp], n, &c.v)
	if i+16 > n {
		return matchLen(src, limit, end+i, off), hp + i
	}
	// The stripe at i holds the first difference, and was hashed.
	p := &src[0]
	if x := ld64(p, end+i) ^ ld64(p, end+i-off); x != 0 {
		return end + i + bits.TrailingZeros64(x)>>3, hp + i + 16
	}
	y := ld64(p, end+i+8) ^ ld64(p, end+i+8-off)
	return end + i + 8 + bits.TrailingZeros64(y)>>3, hp + i + 16
}

// hashWhileEqual compares the 16-byte stripes at cur and ref, n bytes at
// most, while running the XXH32 lanes v over the stripes at hs: it stops
// after the first stripe that differs, hashed, and returns its offset, or
// returns the end of the whole stripes (n rounded down to 16) when none
// differs. A function of its own with only these in its loop, so that the
// lanes, the pointers and the count stay in registers.
func hashWhileEqual(cur, ref, hs *byte, n int, v *[4]uint32) int {
	v1, v2, v3, v4 := v[0], v[1], v[2], v[3]
	i := 0
	for ; i+16 <= n; i += 16 {
		d := (ld64(cur, i) ^ ld64(ref, i)) | (ld64(cur, i+8) ^ ld64(ref, i+8))
		v1 = xxhRound(v1, ld32(hs, i))
		v2 = xxhRound(v2, ld32(hs, i+4))
		v3 = xxhRound(v3, ld32(hs, i+8))
		v4 = xxhRound(v4, ld32(hs, i+12))
		if d != 0 {
			break
		}
	}
	v[0], v[1], v[2], v[3] = v1, v2, v3, v4
	return i
}
