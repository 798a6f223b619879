package rosbag

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/rsbag/rsbag/internal/lz4frame"
)

// recover rebuilds connections, chunk infos and index entries by a linear
// scan from off, stopping at the first truncated or corrupt record.
func (r *Reader) recover(off int64, reason string, cause error) {
	rc := &Recovery{Reason: reason, DataEnd: off}
	if cause != nil {
		rc.Reason += ": " + cause.Error()
	}
	r.recovery = rc
	var buf []byte
	var cb chunkBuf
	needIdx, seenIdx := 0, 0
	afterChunk := false
	var stopErr error
scan:
	for off < r.size {
		var rec record
		var err error
		rec, buf, err = r.readRecord(off, "record", buf)
		if err != nil {
			stopErr = err
			if rec.hdr != nil {
				if op, bad := rec.hdr.op(); bad == "" && op == opChunk {
					r.cutChunk(off, rc)
				}
			}
			break
		}
		op, bad := rec.hdr.op()
		if bad != "" {
			stopErr = r.ferr(off, "record", bad)
			break
		}
		switch op {
		case opChunk:
			_, comp, err := r.loadChunk(off, &cb)
			if err != nil {
				if !payloadErr(err) {
					stopErr = err
					r.cutChunk(off, rc)
					break scan
				}
				r.skipChunk(rec, err, rc)
				afterChunk = false
				break
			}
			ci := chunkInfo{pos: off}
			pos := off
			var conns []*Connection
			orphans := 0
			_, bad := walkChunk(cb.data,
				func(_ int, c *Connection) string {
					conns = append(conns, c)
					return ""
				},
				func(o int, id uint32, t Time) string {
					if _, ok := r.connByID[id]; !ok && !slices.ContainsFunc(conns, func(c *Connection) bool { return c.ID == id }) {
						orphans++ // its connection record was lost
						return ""
					}
					ci.index = append(ci.index, indexEntry{t: t, off: uint32(o), conn: id})
					return ""
				})
			if bad != "" {
				r.skipChunk(rec, r.ferr(pos, "chunk", "payload: "+bad), rc)
				afterChunk = false
				break
			}
			for _, c := range conns {
				if _, ok := r.connByID[c.ID]; !ok {
					r.addConn(c)
				}
			}
			rc.Orphans += orphans
			r.addRecovered(ci, comp, rc)
			rc.DataEnd = rec.end()
			rc.needIndex = len(r.chunks[len(r.chunks)-1].counts) > 0
			needIdx, seenIdx, afterChunk = len(r.chunks[len(r.chunks)-1].counts), 0, true
		case opIndexData:
			if afterChunk && seenIdx < needIdx {
				seenIdx++
				if seenIdx == needIdx {
					rc.DataEnd = rec.end()
					rc.needIndex = false
				}
			}
		case opConnection:
			afterChunk = false
			data := make([]byte, rec.dataLen)
			if err := r.readAt(data, rec.dataOff, "connection record data"); err != nil {
				stopErr = err
				break scan
			}
			c, bad := parseConnection(rec.hdr, data)
			if bad != "" {
				stopErr = r.ferr(off, "connection record", bad)
				break scan
			}
			if _, ok := r.connByID[c.ID]; !ok {
				r.addConn(c)
			}
		case opChunkInfo:
			afterChunk = false
		default:
			stopErr = r.ferr(off, opName(op), "unexpected record at top level")
			break scan
		}
		off = rec.end()
	}
	if stopErr != nil {
		rc.Err = stopErr
		rc.LostFrom = off
		rc.LostBytes = r.size - off
	} else {
		rc.LostFrom = r.size
	}
}

// payloadErr reports whether a chunk load failed on the chunk's contents
// (its record framing being intact) rather than on truncation or I/O.
func payloadErr(err error) bool {
	var fe *FormatError
	var ue *UnsupportedError
	return !errors.Is(err, io.ErrUnexpectedEOF) && (errors.As(err, &fe) || errors.As(err, &ue))
}

// skipChunk notes a chunk whose payload is corrupt in rc.Skipped.
func (r *Reader) skipChunk(rec record, err error, rc *Recovery) {
	sk := SkippedChunk{Offset: rec.off, Bytes: rec.end() - rec.off, Err: err}
	r.peekChunk(rec.off, func(id uint32, t Time) {
		if sk.Messages == 0 || t < sk.Start {
			sk.Start = t
		}
		if t > sk.End {
			sk.End = t
		}
		sk.Messages++
		if sk.ByConnection == nil {
			sk.ByConnection = map[uint32]int{}
		}
		sk.ByConnection[id]++
	})
	rc.Skipped = append(rc.Skipped, sk)
}

// addRecovered completes the chunk info of a chunk the scan read (counts
// and times from its index entries) and adds it to the recovered chunks.
func (r *Reader) addRecovered(ci chunkInfo, comp string, rc *Recovery) {
	slices.SortStableFunc(ci.index, cmpIndexEntry)
	counts := map[uint32]uint32{}
	for i, e := range ci.index {
		counts[e.conn]++
		if i == 0 || e.t < ci.start {
			ci.start = e.t
		}
		if e.t > ci.end {
			ci.end = e.t
		}
	}
	for id, n := range counts {
		ci.counts = append(ci.counts, connCount{id, n})
	}
	slices.SortFunc(ci.counts, func(a, b connCount) int { return int(int64(a.conn) - int64(b.conn)) })
	if !slices.Contains(r.compression, comp) {
		r.compression = append(r.compression, comp)
	}
	r.chunks = append(r.chunks, ci)
	rc.Chunks++
	rc.Messages += uint64(len(ci.index))
}

// cutChunk salvages the chunk at off, which could not be read in full (the
// file ends inside it): the complete records at the start of its readable
// part — up to the cut in an uncompressed chunk, the complete blocks of an
// LZ4 frame — are recovered as a chunk of their own (chunkInfo.cut), their
// messages counted in rc.Salvaged. Messages seen there whose connection is
// unknown are noted lost.
func (r *Reader) cutChunk(off int64, rc *Recovery) {
	p, comp := r.readableChunk(off)
	ci := chunkInfo{pos: off}
	var conns []*Connection
	known := func(id uint32) bool {
		_, ok := r.connByID[id]
		return ok || slices.ContainsFunc(conns, func(c *Connection) bool { return c.ID == id })
	}
	end, _ := walkChunk(p,
		func(_ int, c *Connection) string {
			conns = append(conns, c)
			return ""
		},
		func(o int, id uint32, t Time) string {
			if !known(id) {
				rc.lost(id, t)
				return ""
			}
			ci.index = append(ci.index, indexEntry{t: t, off: uint32(o), conn: id})
			return ""
		})
	if len(ci.index) == 0 {
		return
	}
	for _, c := range conns {
		if _, ok := r.connByID[c.ID]; !ok {
			r.addConn(c)
		}
	}
	ci.cut, ci.cutComp = int64(end), comp
	rc.Salvaged = len(ci.index)
	r.addRecovered(ci, comp, rc)
}

// lost notes a message seen in the lost part of the file.
func (rc *Recovery) lost(id uint32, t Time) {
	if rc.LostByConnection == nil {
		rc.LostByConnection = map[uint32]int{}
	}
	rc.LostByConnection[id]++
	if rc.LostMessages == 0 || t < rc.LostStart {
		rc.LostStart = t
	}
	if t > rc.LostEnd {
		rc.LostEnd = t
	}
	rc.LostMessages++
}

// readableChunk returns what can be read of the payload of the chunk at
// off, which may be cut short or corrupt, and its compression: the bytes
// present of an uncompressed chunk, the complete blocks of an LZ4 frame
// (best effort: nil when nothing can be read).
func (r *Reader) readableChunk(off int64) ([]byte, string) {
	var hb []byte
	rec, _, err := r.readRecord(off, "chunk", hb)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) || rec.hdr == nil {
		return nil, ""
	}
	comp, ok, _ := rec.hdr.lookup("compression")
	sz, bad := rec.hdr.u32("size")
	if !ok || bad != "" || int64(sz) > r.maxRec {
		return nil, ""
	}
	avail := min(rec.dataLen, r.size-rec.dataOff, r.maxRec)
	if avail <= 0 {
		return nil, ""
	}
	raw := make([]byte, avail)
	if r.readAt(raw, rec.dataOff, "chunk data") != nil {
		return nil, ""
	}
	switch string(comp) {
	case "none":
		return raw[:min(avail, int64(sz))], "none"
	case "lz4":
		if int64(sz) > avail*256+64 {
			return nil, ""
		}
		p := make([]byte, sz)
		n, _ := lz4frame.Decode(p, raw)
		return p[:n], "lz4"
	}
	return nil, ""
}

// peekChunk calls msg with the connection and time of each message record
// found in the readable part of the chunk at off (best effort: corrupt or cut
// chunks).
func (r *Reader) peekChunk(off int64, msg func(id uint32, t Time)) {
	p, _ := r.readableChunk(off)
	walkChunk(p, func(int, *Connection) string { return "" }, func(_ int, id uint32, t Time) string {
		msg(id, t)
		return ""
	})
}

// loadCut loads the salvaged start of the cut chunk c into cb.
func (r *Reader) loadCut(c *chunkInfo, cb *chunkBuf) error {
	p, _ := r.readableChunk(c.pos)
	if int64(len(p)) < c.cut {
		return r.ferr(c.pos, "chunk", fmt.Sprintf("cut short: %d payload bytes readable, the recovery scan salvaged %d (the file changed)", len(p), c.cut))
	}
	cb.data = grow(cb.data, int(c.cut))
	copy(cb.data, p)
	return nil
}

func cmpIndexEntry(a, b indexEntry) int {
	return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.off, b.off))
}
