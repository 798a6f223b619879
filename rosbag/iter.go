package rosbag

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

// Messages returns an iterator over the messages selected by q (nil: all).
// Several iterators may run at once on one Reader.
func (r *Reader) Messages(q *Query) *Iterator {
	it := &Iterator{r: r, cur: -1}
	for i := range it.slots {
		it.slots[i] = &chunkBuf{chunk: -1}
	}
	if q != nil {
		it.q = *q
		if len(q.Topics) > 0 || len(q.Connections) > 0 {
			it.sel = make(map[uint32]bool)
			for _, id := range q.Connections {
				it.sel[id] = true
			}
			if len(q.Topics) > 0 {
				for _, c := range r.conns {
					if slices.Contains(q.Topics, c.Topic) {
						it.sel[c.ID] = true
					}
				}
			}
		}
	}
	it.from = it.q.Start
	return it
}

// An Iterator yields messages in time order; equal times keep file order. It
// is not safe for concurrent use; use one Iterator per goroutine.
type Iterator struct {
	r       *Reader
	q       Query
	sel     map[uint32]bool // nil: all connections
	started bool
	from    Time // lower bound after Seek
	pend    int  // next position in r.byStart to activate
	heap    []*cursor
	free    []*cursor
	slots   [cacheSlots]*chunkBuf // decompressed chunks (see readahead.go)
	cur     int                   // chunk of the current message, -1 before the first
	plan    []int                 // chunks read-ahead wants
	fresh   bool                  // no message returned since the start or the last seek
	// aheadPending: the read-ahead of chunk cur is still to plan (its
	// first message was the first after a seek).
	aheadPending bool
	inflight     int        // slots being loaded by the loader
	box          *loaderBox // read-ahead goroutines, started on demand
	closed       bool
	tick         uint64
	hb           []byte
	ib           []byte
	msg          Message
	err          error
	done         bool
	skipped      []SkippedChunk // Query.SkipCorrupt
	repaired     []RepairedChunk
	vb           []indexEntry      // check's buffer
	per          map[uint32]uint32 // check's count per connection
	bad          map[int]error     // chunks known corrupt (Query.SkipCorrupt)
}

// cursor walks the selected index entries of one chunk.
type cursor struct {
	chunk   int
	entries []indexEntry
	pos     int
	// all is every index entry of the chunk, sorted; checked says whether
	// they were compared with the chunk's records (see check).
	all     []indexEntry
	checked bool
}

func (c *cursor) less(d *cursor) bool {
	a, b := &c.entries[c.pos], &d.entries[d.pos]
	if a.t != b.t {
		return a.t < b.t
	}
	if c.chunk != d.chunk {
		return c.chunk < d.chunk
	}
	return a.off < b.off
}

// Skipped returns, in the order they were met, the chunks that an iterator
// with Query.SkipCorrupt skipped because they were corrupt. Each pass over a
// corrupt chunk adds one entry: a Seek back before it and a new pass over it
// report it again. The slice must not be modified; it is nil when nothing
// was skipped.
func (it *Iterator) Skipped() []SkippedChunk { return it.skipped }

// skip records that the selected messages of chunk ci from entries are lost
// because of err (Query.SkipCorrupt). With entries nil, the count comes from
// the chunk info (the index data itself could not be read).
func (it *Iterator) skip(ci int, entries []indexEntry, err error) {
	r := it.r
	c := &r.chunks[ci]
	sk := SkippedChunk{Offset: c.pos, Start: c.start, End: c.end, Err: err, ByConnection: map[uint32]int{}}
	if rec, _, _, _, rerr := r.chunkRecord(c.pos, nil); rerr == nil {
		sk.Bytes = rec.end() - c.pos
	} else if end, ok := r.chunkEnd[c.pos]; ok {
		sk.Bytes = end - c.pos // its record cannot say: up to the next chunk
	}
	if entries != nil {
		for _, e := range entries {
			if it.q.End != 0 && e.t >= it.q.End {
				break
			}
			sk.ByConnection[e.conn]++
			sk.Messages++
		}
	} else {
		for _, cc := range c.counts {
			if cc.count > 0 && (it.sel == nil || it.sel[cc.conn]) {
				sk.ByConnection[cc.conn] += int(cc.count)
				sk.Messages += int(cc.count)
			}
		}
	}
	it.skipped = append(it.skipped, sk)
}

// Repaired returns, in the order they were met, the chunks whose index
// disagreed with their message records and whose messages were therefore
// taken from the records (see RepairedChunk). Each pass over such a chunk
// adds one entry. The slice must not be modified; it is nil when every
// index agreed.
func (it *Iterator) Repaired() []RepairedChunk { return it.repaired }

// Err returns the error that stopped the iteration, if any.
func (it *Iterator) Err() error { return it.err }

// Message returns the current message; Data is valid until the next call to
// Next or Seek, or for good with Query.KeepData.
func (it *Iterator) Message() Message { return it.msg }

// Seek positions the iterator so that Next returns the first selected message
// with time ≥ t (and ≥ Query.Start). It reads no chunk before t: it costs
// O(log chunks) plus the index data of the chunks that span t.
func (it *Iterator) Seek(t Time) error {
	if it.closed {
		return ErrClosed
	}
	if it.r.closed.Load() {
		it.err = ErrClosed
		return ErrClosed
	}
	it.from = max(t, it.q.Start)
	it.err, it.done = nil, false
	it.reset()
	return it.err
}

func (it *Iterator) reset() {
	it.free = append(it.free, it.heap...)
	it.heap = it.heap[:0]
	it.started = true
	it.cur = -1 // plan read-ahead again at the first chunk
	it.fresh = true
	r := it.r
	t := it.from
	// first chunk (by start) that starts at or after t
	p := sort.Search(len(r.byStart), func(m int) bool { return r.chunks[r.byStart[m]].start >= t })
	it.pend = p
	r.overlapping(p, t, func(q int) {
		if it.err == nil {
			it.activate(int(r.byStart[q]))
		}
	})
}

// wants reports whether chunk ci may hold selected messages.
func (it *Iterator) wants(ci int) bool {
	c := &it.r.chunks[ci]
	if c.end < it.from {
		return false
	}
	for _, cc := range c.counts {
		if cc.count > 0 && (it.sel == nil || it.sel[cc.conn] || it.q.AllChunks) {
			return true
		}
	}
	return false
}

// activate loads the index entries of chunk ci into a cursor on the heap.
func (it *Iterator) activate(ci int) {
	if !it.wants(ci) {
		return
	}
	var cur *cursor
	if n := len(it.free); n > 0 {
		cur = it.free[n-1]
		it.free = it.free[:n-1]
	} else {
		cur = &cursor{}
	}
	cur.chunk, cur.pos, cur.entries, cur.all, cur.checked = ci, 0, cur.entries[:0], cur.all[:0], false
	c := &it.r.chunks[ci]
	if c.index != nil {
		cur.all = append(cur.all, c.index...)
	} else {
		var err error
		cur.all, err = it.readIndex(ci, cur.all)
		if err != nil {
			if !payloadErr(err) {
				it.free = append(it.free, cur)
				it.err = err
				return
			}
			// Index data that cannot be parsed: the chunk's records say
			// where its messages are.
			cb, cerr := it.chunk(ci)
			if cerr != nil {
				it.free = append(it.free, cur)
				if it.q.SkipCorrupt && payloadErr(cerr) {
					it.skip(ci, nil, cerr)
					return
				}
				it.err = cerr
				return
			}
			it.repair(ci, cb, cur, err.Error())
		}
	}
	if !cur.checked {
		slices.SortFunc(cur.all, cmpIndexEntry)
		cur.entries = it.selected(cur.entries, cur.all)
	}
	if len(cur.entries) == 0 && it.q.AllChunks && !cur.checked {
		// No selected message: the chunk is loaded and checked now.
		cb, err := it.chunk(ci)
		if err != nil {
			it.free = append(it.free, cur)
			if it.q.SkipCorrupt && payloadErr(err) {
				it.skip(ci, cur.entries, err)
				return
			}
			it.err = err
			return
		}
		if bad := it.check(ci, cb, cur.all); bad != "" {
			it.repair(ci, cb, cur, bad)
		}
	}
	if len(cur.entries) == 0 {
		it.free = append(it.free, cur)
		return
	}
	it.push(cur)
}

// readIndex reads the index data records after chunk ci: every entry, of
// every connection (the check of the index against the chunk's records
// covers them all, so that every selection sees the same chunk).
func (it *Iterator) readIndex(ci int, dst []indexEntry) ([]indexEntry, error) {
	r := it.r
	c := &r.chunks[ci]
	rec, _, _, hb, err := r.chunkRecord(c.pos, it.hb)
	it.hb = hb
	if err != nil {
		return dst, err
	}
	off := rec.end()
	for range c.counts {
		var ir record
		ir, it.hb, err = r.readRecord(off, "index data", it.hb)
		if ir.off == 0 {
			ir.off = off
		}
		if err = r.inChunk(c.pos, ir, err, "index data"); err != nil {
			return dst, fmt.Errorf("chunk %d at offset %d: %w", ci, c.pos, err)
		}
		f := fields{h: ir.hdr}
		f.op(opIndexData, "index data")
		f.version1()
		conn, count := f.u32("conn"), f.u32("count")
		if int64(count)*12 != ir.dataLen {
			f.failf("count %d needs %d data bytes, data length is %d", count, 12*int64(count), ir.dataLen)
		}
		if _, known := r.connByID[conn]; !known {
			f.failf("unknown connection %d", conn)
		}
		if f.bad != "" {
			return dst, r.ferr(off, "index data", f.bad)
		}
		it.ib = grow(it.ib, int(ir.dataLen))
		if err := r.readAt(it.ib, ir.dataOff, "index data entries"); err != nil {
			return dst, err
		}
		for j := 0; j+12 <= len(it.ib); j += 12 {
			d := it.ib[j:]
			t := NewTime(binary.LittleEndian.Uint32(d), binary.LittleEndian.Uint32(d[4:]))
			dst = append(dst, indexEntry{t: t, off: binary.LittleEndian.Uint32(d[8:]), conn: conn})
		}
		off = ir.end()
	}
	return dst, nil
}

func (it *Iterator) push(c *cursor) {
	it.heap = append(it.heap, c)
	it.up(len(it.heap) - 1)
}

func (it *Iterator) up(j int) {
	h := it.heap
	for j > 0 {
		i := (j - 1) / 2
		if !h[j].less(h[i]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (it *Iterator) down(i int) {
	h := it.heap
	n := len(h)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if j+1 < n && h[j+1].less(h[j]) {
			j++
		}
		if !h[j].less(h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// Next advances to the next message and reports whether there is one. When
// it returns false the iterator's read-ahead goroutines have ended; a Seek
// starts them again.
func (it *Iterator) Next() bool {
	if it.err != nil || it.done {
		return false
	}
	if it.next() {
		it.fresh = false
		return true
	}
	it.stopLoader()
	return false
}

func (it *Iterator) next() bool {
	r := it.r
	if r.closed.Load() {
		it.err = ErrClosed
		return false
	}
	if !it.started {
		it.reset()
		if it.err != nil {
			return false
		}
	}
	for {
		ok, again := it.step()
		if !again {
			return ok
		}
	}
}

// step advances to the next message; again reports that a corrupt chunk was
// skipped and step must be called again.
func (it *Iterator) step() (ok, again bool) {
	r := it.r
	for it.pend < len(r.byStart) {
		ci := int(r.byStart[it.pend])
		st := r.chunks[ci].start
		if it.q.End != 0 && st >= it.q.End {
			it.pend = len(r.byStart)
			break
		}
		if len(it.heap) > 0 {
			top := it.heap[0]
			if st > top.entries[top.pos].t {
				break
			}
		}
		it.pend++
		it.activate(ci)
		if it.err != nil {
			return false, false
		}
	}
	if len(it.heap) == 0 {
		it.done = true
		return false, false
	}
	top := it.heap[0]
	e := top.entries[top.pos]
	if it.q.End != 0 && e.t >= it.q.End {
		it.done = true
		return false, false
	}
	cb, err := it.chunk(top.chunk)
	if err == nil && !top.checked {
		top.checked = true
		if bad := it.check(top.chunk, cb, top.all); bad != "" {
			it.repair(top.chunk, cb, top, bad)
			if len(top.entries) == 0 {
				it.popTop()
			} else {
				it.down(0)
			}
			return false, true
		}
	}
	if err == nil {
		err = it.decode(cb, top.chunk, e)
	}
	if err != nil {
		if !it.q.SkipCorrupt || !payloadErr(err) {
			it.err = err
			return false, false
		}
		// Drop the rest of the chunk and go on with the next message.
		it.skip(top.chunk, top.entries[top.pos:], err)
		it.popTop()
		return false, true
	}
	top.pos++
	if top.pos == len(top.entries) {
		it.popTop()
	} else {
		it.down(0)
	}
	return true, false
}

// popTop removes the cursor at the top of the heap.
func (it *Iterator) popTop() {
	top := it.heap[0]
	n := len(it.heap) - 1
	it.heap[0] = it.heap[n]
	it.heap = it.heap[:n]
	it.free = append(it.free, top)
	if n > 0 {
		it.down(0)
	}
}

// decode sets it.msg to the message of e in chunk ci.
func (it *Iterator) decode(cb *chunkBuf, ci int, e indexEntry) error {
	r := it.r
	p := cb.data
	bad := ""
	if uint64(e.off)+8 > uint64(len(p)) {
		bad = fmt.Sprintf("index offset %d outside the %d-byte chunk", e.off, len(p))
	} else {
		rest := p[e.off:]
		hl := int(binary.LittleEndian.Uint32(rest))
		if uint64(hl) > uint64(len(rest)-8) {
			bad = fmt.Sprintf("message header length %d exceeds the chunk", hl)
		} else {
			dl := int(binary.LittleEndian.Uint32(rest[4+hl:]))
			if uint64(dl) > uint64(len(rest)-8-hl) {
				bad = fmt.Sprintf("message data length %d exceeds the chunk", dl)
			} else {
				op, id, t, b := parseMsgHeader(rest[4 : 4+hl])
				switch {
				case b != "":
					bad = "message header: " + b
				case op != opMsgData:
					bad = fmt.Sprintf("index points at a %s record, want message data", opName(op))
				case id != e.conn:
					bad = fmt.Sprintf("index says connection %d, message record says %d", e.conn, id)
				default:
					it.msg = Message{Conn: r.connByID[id], Time: t, Data: rest[8+hl : 8+hl+dl : 8+hl+dl], Chunk: ci, Offset: e.off}
					return nil
				}
			}
		}
	}
	return r.ferr(r.chunks[ci].pos, fmt.Sprintf("chunk %d message at payload offset %d", ci, e.off), bad)
}

func noConn(int, *Connection) string { return "" }

// selected appends the entries of all (sorted) that the query selects.
func (it *Iterator) selected(dst, all []indexEntry) []indexEntry {
	for _, e := range all {
		if e.t >= it.from && (it.sel == nil || it.sel[e.conn]) {
			dst = append(dst, e)
		}
	}
	return dst
}

// check compares a chunk's index with its message records (cb.recs): the
// chunk info's count per connection, and every index entry (all, sorted)
// with the record it points at. It returns what disagrees, "" when all
// agree. The rule every reader of a chunk follows: the records are what
// the chunk holds; an index that disagrees only locates them wrongly.
func (it *Iterator) check(ci int, cb *chunkBuf, all []indexEntry) string {
	it.vb = append(it.vb[:0], cb.recs...)
	slices.SortFunc(it.vb, cmpIndexEntry)
	if len(all) != len(it.vb) {
		return fmt.Sprintf("the index lists %d messages, the chunk holds %d", len(all), len(it.vb))
	}
	for i, e := range all {
		if r := it.vb[i]; r != e {
			return fmt.Sprintf("index entry (connection %d, time %s, offset %d) has no record; the record there is of connection %d at %s",
				e.conn, e.t, e.off, r.conn, r.t)
		}
	}
	if it.per == nil {
		it.per = map[uint32]uint32{}
	}
	clear(it.per)
	for _, r := range it.vb {
		it.per[r.conn]++
	}
	var total uint32
	for _, cc := range it.r.chunks[ci].counts {
		if n := it.per[cc.conn]; n != cc.count {
			return fmt.Sprintf("the chunk info counts %d messages of connection %d, the chunk holds %d", cc.count, cc.conn, n)
		}
		total += cc.count
	}
	if int(total) != len(it.vb) {
		return fmt.Sprintf("the chunk info counts %d messages, the chunk holds %d", total, len(it.vb))
	}
	return ""
}

// repair makes cursor c walk the selected message records of chunk ci
// (loaded in cb) instead of its index, and notes why in Repaired.
func (it *Iterator) repair(ci int, cb *chunkBuf, c *cursor, why string) {
	c.checked = true
	c.all = append(c.all[:0], cb.recs...)
	slices.SortFunc(c.all, cmpIndexEntry)
	c.entries = it.selected(c.entries[:0], c.all)
	c.pos = 0
	it.repaired = append(it.repaired, RepairedChunk{Offset: it.r.chunks[ci].pos, Messages: len(c.all),
		Reason: it.r.ferr(it.r.chunks[ci].pos, fmt.Sprintf("chunk %d index", ci), why).Error()})
}
