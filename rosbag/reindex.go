package rosbag

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// Reindex turns the unindexed, truncated or index-corrupt bag at path into
// an indexed one in place, the way `rosbag reindex` does but without
// dropping recoverable data: it truncates the file after the last complete
// chunk (and its index data), writes the index data of that chunk when it is
// missing, appends the connection and chunk info records and patches the bag
// header last. Chunks the recovery scan skipped (Recovery.Skipped) before
// that point stay in place and are listed with no messages. It returns nil,
// nil for a bag that is already indexed, and the Recovery report otherwise.
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
	end := rc.DataEnd
	if end < firstRecordPos {
		end = firstRecordPos
	}
	var b []byte
	if rc.needIndex && len(r.chunks) > 0 {
		b = appendIndexData(b, r.chunks[len(r.chunks)-1].index)
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
	for i := range r.chunks {
		for ; k < len(rc.Skipped) && rc.Skipped[k].Offset < r.chunks[i].pos; k++ {
			infos = append(infos, skippedInfo(rc.Skipped[k], infos))
		}
		infos = append(infos, r.chunks[i])
	}
	for ; k < len(rc.Skipped) && rc.Skipped[k].Offset+rc.Skipped[k].Bytes <= end; k++ {
		infos = append(infos, skippedInfo(rc.Skipped[k], infos))
	}
	for i := range infos {
		b = appendChunkInfo(b, &infos[i])
	}
	if err := f.Truncate(end); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: truncate at %d: %w", path, end, err)
	}
	if _, err := f.WriteAt(b, end); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: write index at %d: %w", path, end, err)
	}
	if err := f.Sync(); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: sync: %w", path, err)
	}
	hdr := appendBagHeader(nil, uint32(len(infos)), uint32(len(r.conns)), uint64(indexPos))
	if _, err := f.WriteAt(hdr, bagHeaderPos); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: patch bag header: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return rc, fmt.Errorf("rosbag: reindex %s: sync: %w", path, err)
	}
	return rc, nil
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
