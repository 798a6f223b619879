package rosbag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/rsbag/rsbag/internal/lz4frame"
)

// ErrNothingToRecover is wrapped by the error Reindex returns for a file in
// which the recovery scan found no connection and no message (only the
// version line, or no readable bag header): there is nothing to index, and
// the file is left as it is.
var ErrNothingToRecover = errors.New("rosbag: nothing to recover")

// Reindex turns the unindexed, truncated or index-corrupt bag at path into
// an indexed one in place, the way `rosbag reindex` does but without
// dropping recoverable data: it truncates the file after the last complete
// chunk (and its index data), writes the index data of that chunk when it is
// missing, writes the messages salvaged from a chunk the file cuts short
// (Recovery.Salvaged) as a chunk of their own, appends the connection and
// chunk info records and patches the bag header last. Chunks the recovery
// scan skipped (Recovery.Skipped) before that point stay in place and are
// listed with no messages. It returns nil, nil for a bag that is already
// indexed, the Recovery report otherwise, and an error wrapping
// ErrNothingToRecover (the file unchanged) when the scan found nothing.
func Reindex(path string) (*Recovery, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("rosbag: reindex: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("rosbag: reindex %s: %w", path, err)
	}
	r, rerr := NewReader(f, st.Size(), &ReaderOptions{Path: path})
	if r == nil {
		return nil, rerr
	}
	if r.recovery == nil {
		return nil, nil // indexed
	}
	rc := r.recovery
	p, err := r.planReindex()
	if err != nil {
		return rc, err
	}
	if err := f.Truncate(p.end); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: truncate at %d: %w", path, p.end, err)
	}
	if _, err := f.WriteAt(p.tail, p.end); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: write index at %d: %w", path, p.end, err)
	}
	if err := f.Sync(); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: sync: %w", path, err)
	}
	if _, err := f.WriteAt(p.hdr, bagHeaderPos); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: patch bag header: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: sync: %w", path, err)
	}
	return rc, nil
}

// ReindexSize returns the size of the file Reindex makes of the bag r was
// opened from: r.Info().Size for an indexed bag, and an error wrapping
// ErrNothingToRecover when there is nothing to index.
func (r *Reader) ReindexSize() (int64, error) {
	if r.recovery == nil {
		return r.size, nil
	}
	p, err := r.planReindex()
	if err != nil {
		return 0, err
	}
	return p.end + int64(len(p.tail)), nil
}

// reindexPlan is what Reindex writes: the file is truncated at end, tail
// is written there, and hdr (the bag header) at bagHeaderPos.
type reindexPlan struct {
	end       int64
	tail, hdr []byte
}

// planReindex plans the reindexing of the bag r recovered by a scan.
func (r *Reader) planReindex() (*reindexPlan, error) {
	rc := r.recovery
	if len(r.conns) == 0 && len(r.chunks) == 0 {
		why := rc.Reason
		if rc.Err != nil {
			return nil, fmt.Errorf("rosbag: %sreindex: %w: no connection or message could be read (%s): %w", r.pfx(), bare(ErrNothingToRecover), why, rc.Err)
		}
		return nil, fmt.Errorf("rosbag: %sreindex: %w: the file holds no connection or message (%s)", r.pfx(), bare(ErrNothingToRecover), why)
	}
	end := rc.DataEnd
	if end < firstRecordPos {
		end = firstRecordPos
	}
	chunks := r.chunks
	var cut *chunkInfo
	if n := len(chunks); n > 0 && chunks[n-1].cut > 0 {
		c := chunks[n-1]
		cut, chunks = &c, chunks[:n-1]
	}
	var b []byte
	if rc.needIndex && len(chunks) > 0 {
		b = appendIndexData(b, chunks[len(chunks)-1].index)
	}
	if cut != nil {
		// The salvaged records, as they were, in a chunk of their own
		// after the kept data.
		p, _ := r.readableChunk(cut.pos)
		if int64(len(p)) < cut.cut {
			return nil, r.ferr(cut.pos, "chunk", fmt.Sprintf("cut short: %d payload bytes readable, the recovery scan salvaged %d (the file changed)", len(p), cut.cut))
		}
		cut.pos = end + int64(len(b))
		var enc lz4frame.Encoder
		b = appendChunk(b, cut.cutComp, p[:cut.cut], nil, &enc)
		b = appendIndexData(b, cut.index)
	}
	indexPos := end + int64(len(b))
	for _, c := range r.conns {
		b = appendConnectionRecord(b, c)
	}
	// Skipped chunks inside the kept data stay where they are, listed with
	// no messages, so that the chunk infos still cover the chunk section in
	// file order.
	infos := make([]chunkInfo, 0, len(r.chunks)+len(rc.Skipped))
	k := 0
	for i := range chunks {
		for ; k < len(rc.Skipped) && rc.Skipped[k].Offset < chunks[i].pos; k++ {
			infos = append(infos, skippedInfo(rc.Skipped[k], infos))
		}
		infos = append(infos, chunks[i])
	}
	for ; k < len(rc.Skipped) && rc.Skipped[k].Offset+rc.Skipped[k].Bytes <= end; k++ {
		infos = append(infos, skippedInfo(rc.Skipped[k], infos))
	}
	if cut != nil {
		infos = append(infos, *cut)
	}
	for i := range infos {
		b = appendChunkInfo(b, &infos[i])
	}
	hdr := appendBagHeader(nil, uint32(len(infos)), uint32(len(r.conns)), uint64(indexPos))
	return &reindexPlan{end: end, tail: b, hdr: hdr}, nil
}

// skippedInfo is the chunk info of a skipped chunk: no messages, and the
// times of what could be read of it (else the end of the chunk before).
func skippedInfo(sk SkippedChunk, before []chunkInfo) chunkInfo {
	ci := chunkInfo{pos: sk.Offset, start: sk.Start, end: sk.End}
	if sk.Messages == 0 && len(before) > 0 {
		ci.start, ci.end = before[len(before)-1].end, before[len(before)-1].end
	}
	return ci
}

// appendIndexData appends index data records (ascending connection id,
// entries in time order) for a chunk's entries sorted by (time, offset).
func appendIndexData(b []byte, entries []indexEntry) []byte {
	var ids []uint32
	for _, e := range entries {
		if !slices.Contains(ids, e.conn) {
			ids = append(ids, e.conn)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		n := 0
		for _, e := range entries {
			if e.conn == id {
				n++
			}
		}
		var h int
		b, h = beginLen(b)
		b = appendFieldU32(b, "conn", id)
		b = appendFieldU32(b, "count", uint32(n))
		b = appendFieldOp(b, opIndexData)
		b = appendFieldU32(b, "ver", 1)
		endLen(b, h)
		b = binary.LittleEndian.AppendUint32(b, uint32(12*n))
		for _, e := range entries {
			if e.conn == id {
				sec, nsec := e.t.ROS()
				b = binary.LittleEndian.AppendUint32(b, sec)
				b = binary.LittleEndian.AppendUint32(b, nsec)
				b = binary.LittleEndian.AppendUint32(b, e.off)
			}
		}
	}
	return b
}
