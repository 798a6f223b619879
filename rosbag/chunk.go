package rosbag

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rsbag/rsbag/internal/lz4frame"
)

// chunkBuf holds one chunk's payload; buffers are reused.
type chunkBuf struct {
	chunk int // index into r.chunks, -1 when empty
	data  []byte
	raw   []byte
	hdr   []byte
	used  uint64
	err   error // of the load of chunk
	// recs locates every message record of the payload, in file order:
	// what the chunk holds, against which its index is checked.
	recs    []indexEntry
	want    int  // chunk being loaded by the read-ahead loader
	loading bool // owned by the loader until its result is received
}

// chunkRecord reads the header of the chunk record at pos.
func (r *Reader) chunkRecord(pos int64, buf []byte) (rec record, compression string, size int64, _ []byte, err error) {
	rec, buf, err = r.readRecord(pos, "chunk", buf)
	if err = r.inChunk(pos, rec, err, "chunk"); err != nil {
		return rec, "", 0, buf, err
	}
	f := fields{h: rec.hdr}
	f.op(opChunk, "chunk")
	sz := f.u32("size")
	var comp []byte
	if f.bad == "" {
		var ok bool
		comp, ok, f.bad = rec.hdr.lookup("compression")
		if f.bad == "" && !ok {
			f.bad = "missing field compression"
		}
	}
	if f.bad != "" {
		return rec, "", 0, buf, r.ferr(pos, "chunk", f.bad)
	}
	size = int64(sz)
	if size > r.maxRec {
		return rec, "", 0, buf, r.ferr(pos, "chunk", fmt.Sprintf("uncompressed size %d exceeds the limit %d", size, r.maxRec))
	}
	switch string(comp) {
	case "none":
		compression = "none"
		if size != rec.dataLen {
			return rec, "", 0, buf, r.ferr(pos, "chunk", fmt.Sprintf("uncompressed chunk: size %d, want data length %d", size, rec.dataLen))
		}
	case "lz4":
		compression = "lz4"
		if size > rec.dataLen*256+64 {
			return rec, "", 0, buf, r.ferr(pos, "chunk", fmt.Sprintf("lz4 chunk: size %d impossible for %d compressed bytes", size, rec.dataLen))
		}
	case "bz2":
		compression = "bz2"
	default:
		return rec, "", 0, buf, &UnsupportedError{Path: r.path, Offset: pos, What: fmt.Sprintf("chunk compression %q", truncStr(comp))}
	}
	return rec, compression, size, buf, nil
}

// loadChunk reads and decompresses the chunk at pos into cb. It returns the
// chunk record (for the data end) and the compression.
func (r *Reader) loadChunk(pos int64, cb *chunkBuf) (record, string, error) {
	rec, comp, size, hb, err := r.chunkRecord(pos, cb.hdr)
	cb.hdr = hb
	if err != nil {
		return rec, comp, err
	}
	cb.chunk = -1
	switch comp {
	case "none":
		cb.data = grow(cb.data, int(size))
		if err := r.readAt(cb.data, rec.dataOff, "chunk data"); err != nil {
			return rec, comp, err
		}
	case "lz4":
		cb.raw = grow(cb.raw, int(rec.dataLen))
		if err := r.readAt(cb.raw, rec.dataOff, "chunk data"); err != nil {
			return rec, comp, err
		}
		cb.data = grow(cb.data, int(size))
		if _, err := lz4frame.DecodeSum(cb.data, cb.raw, !r.noSum); err != nil {
			return rec, comp, &FormatError{Path: r.path, Offset: pos, Record: "lz4 chunk", Reason: "decompression failed", Err: err}
		}
	case "bz2":
		cb.raw = grow(cb.raw, int(rec.dataLen))
		if err := r.readAt(cb.raw, rec.dataOff, "chunk data"); err != nil {
			return rec, comp, err
		}
		d, err := readBz2(cb.data[:0], cb.raw, size)
		cb.data = d
		if err != nil {
			return rec, comp, &FormatError{Path: r.path, Offset: pos, Record: "bz2 chunk", Reason: "decompression failed", Err: err}
		}
	}
	return rec, comp, nil
}

// readBz2 decompresses src, which must hold exactly size bytes, growing dst
// only as output is produced.
func readBz2(dst, src []byte, size int64) ([]byte, error) {
	zr := bzip2.NewReader(bytes.NewReader(src))
	for {
		if int64(len(dst)) > size {
			return dst, fmt.Errorf("more than %d bytes (chunk size)", size)
		}
		if len(dst) == cap(dst) {
			n := min(max(2*cap(dst), 64<<10), int(size)+1)
			nd := make([]byte, len(dst), n)
			copy(nd, dst)
			dst = nd
		}
		n, err := zr.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, err
		}
	}
	if int64(len(dst)) != size {
		return dst, fmt.Errorf("decompressed %d bytes, want %d (chunk size)", len(dst), size)
	}
	return dst, nil
}

// walkChunk parses the records of a chunk payload, calling conn for each
// connection record and msg for each message record. It stops at the first
// malformed record and returns its offset and what is wrong.
func walkChunk(p []byte, conn func(off int, c *Connection) string, msg func(off int, id uint32, t Time) string) (int, string) {
	off := 0
	for off < len(p) {
		rest := p[off:]
		if len(rest) < 8 {
			return off, "record cut short"
		}
		hl := int(binary.LittleEndian.Uint32(rest))
		if uint64(hl) > uint64(len(rest)-8) {
			return off, fmt.Sprintf("header length %d exceeds the chunk", hl)
		}
		h := rest[4 : 4+hl]
		dl := int(binary.LittleEndian.Uint32(rest[4+hl:]))
		if uint64(dl) > uint64(len(rest)-8-hl) {
			return off, fmt.Sprintf("data length %d exceeds the chunk", dl)
		}
		d := rest[8+hl : 8+hl+dl]
		op, id, t, bad := parseMsgHeader(h)
		if bad != "" {
			return off, bad
		}
		switch op {
		case opMsgData:
			if bad := msg(off, id, t); bad != "" {
				return off, bad
			}
		case opConnection:
			c, bad := parseConnection(header(h), d)
			if bad != "" {
				return off, bad
			}
			if bad := conn(off, c); bad != "" {
				return off, bad
			}
		default:
			return off, fmt.Sprintf("unexpected %s record in a chunk", opName(op))
		}
		off += 8 + hl + dl
	}
	return off, ""
}
