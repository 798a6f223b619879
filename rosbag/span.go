package rosbag

import (
	"slices"
)

// Span returns the times of the first and the last message of the
// connections conns (all connections when conns is empty), and ok false when
// they have none. It reads the index data records of the chunks at both ends
// of the bag, and no chunk: opening a bag and asking its span reads a few
// kilobytes, even of a bag in object storage.
func (r *Reader) Span(conns []uint32) (first, last Time, ok bool, err error) {
	it := r.Messages(&Query{Connections: conns})
	defer it.Close()
	var cand []int
	for ci := range r.chunks {
		if it.wants(ci) {
			cand = append(cand, ci)
		}
	}
	if len(cand) == 0 {
		return 0, 0, false, nil
	}
	// first: by chunk start; a chunk starting after the best time found
	// cannot hold an earlier message.
	slices.SortStableFunc(cand, func(a, b int) int { return cmpTime(r.chunks[a].start, r.chunks[b].start) })
	var entries []indexEntry
	for _, ci := range cand {
		if ok && r.chunks[ci].start > first {
			break
		}
		if entries, err = r.chunkEntries(it, ci, entries[:0]); err != nil {
			return 0, 0, false, err
		}
		for _, e := range entries {
			if !ok || e.t < first {
				first, ok = e.t, true
			}
		}
	}
	// last: by chunk end, from the latest.
	slices.SortStableFunc(cand, func(a, b int) int { return cmpTime(r.chunks[b].end, r.chunks[a].end) })
	found := false
	for _, ci := range cand {
		if found && r.chunks[ci].end < last {
			break
		}
		if entries, err = r.chunkEntries(it, ci, entries[:0]); err != nil {
			return 0, 0, false, err
		}
		for _, e := range entries {
			if !found || e.t > last {
				last, found = e.t, true
			}
		}
	}
	return first, last, ok, nil
}

// chunkEntries appends the selected index entries of chunk ci.
func (r *Reader) chunkEntries(it *Iterator, ci int, dst []indexEntry) ([]indexEntry, error) {
	if c := &r.chunks[ci]; c.index != nil {
		for _, e := range c.index {
			if it.sel == nil || it.sel[e.conn] {
				dst = append(dst, e)
			}
		}
		return dst, nil
	}
	return it.readIndex(ci, dst)
}

func cmpTime(a, b Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
