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
	all, err := it.readIndex(ci, it.vb[:0])
	it.vb = all
	if err != nil {
		return dst, err
	}
	return it.selected(dst, all), nil
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

// Latest returns, for every connection selected by q (Topics, Connections)
// that has a message in [q.Start, q.End), the time of its last message
// there (q.End 0: no limit). Like Span it reads index data records and no
// chunk, from the chunks ending latest and only until each connection's
// answer is settled: after a seek, a viewer learns which frame is each
// stream's current one without loading a chunk it will not show. With
// q.SkipCorrupt a chunk whose index data records are corrupt is read from
// its message records, and one whose payload is corrupt passed over, as
// Messages does.
func (r *Reader) Latest(q *Query) (map[uint32]Time, error) {
	if q == nil {
		q = &Query{}
	}
	it := r.Messages(q)
	defer it.Close()
	end := q.End
	if end == 0 {
		end = ^Time(0)
	}
	last := end - 1 // the latest time that counts
	// Candidates by the latest time they can answer with, latest first.
	reach := func(ci int) Time { return min(r.chunks[ci].end, last) }
	var cand []int
	for ci := range r.chunks {
		if r.chunks[ci].start <= last && it.wants(ci) {
			cand = append(cand, ci)
		}
	}
	slices.SortStableFunc(cand, func(a, b int) int { return cmpTime(reach(b), reach(a)) })
	best := map[uint32]Time{}
	var entries []indexEntry
	for _, ci := range cand {
		// A connection is settled once its best time is later than
		// anything this chunk (and every later candidate) can hold.
		open := false
		for _, cc := range r.chunks[ci].counts {
			if t, ok := best[cc.conn]; cc.count > 0 && (it.sel == nil || it.sel[cc.conn]) && (!ok || t < reach(ci)) {
				open = true
				break
			}
		}
		if !open {
			continue
		}
		var err error
		if entries, err = r.chunkEntries(it, ci, entries[:0]); err != nil {
			if !q.SkipCorrupt || !payloadErr(err) {
				return nil, err
			}
			// As Messages does: the chunk's records say where its
			// messages are; a chunk that does not load is passed over.
			cb, cerr := it.chunk(ci)
			if cerr != nil {
				if payloadErr(cerr) {
					continue
				}
				return nil, cerr
			}
			entries = it.selected(entries[:0], cb.recs)
		}
		for _, e := range entries {
			if e.t >= q.Start && e.t <= last {
				if t, ok := best[e.conn]; !ok || e.t > t {
					best[e.conn] = e.t
				}
			}
		}
	}
	return best, nil
}
