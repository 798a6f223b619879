package rosbag

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Chunk cache and read-ahead of an Iterator.
//
// An iterator keeps cacheSlots decompressed chunks. While the caller consumes
// the messages of one chunk (from the second message after a start or a
// seek on), up to readAhead of the chunks it will need next
// (the active chunks of the merge heap, then the next selected chunks by
// start time) are loaded, decompressed and checked by loader goroutines. A
// slot that is loading belongs to the loader until its result is received
// from the loader's result channel; everything else belongs to the iterator.
// Read-ahead never evicts the chunk of the current message, a chunk that is
// active in the heap or one that was loaded ahead and is still to be used.
const (
	cacheSlots = 5
	// readAhead is 3 so that, with one loader per core, a loader that
	// finishes a chunk finds the next one queued instead of waiting for the
	// iterator to move on (about 10% more throughput on 2 cores than 2).
	readAhead = 3
	// aheadScan bounds how many positions past the activation point one
	// read-ahead round looks at (a narrow topic filter skips chunks).
	aheadScan = 64
)

// loader runs the read-ahead goroutines of one iterator. It holds no
// reference to the iterator, so an abandoned iterator can be collected and
// its cleanup stops the loader.
type loader struct {
	r    *Reader
	keep bool
	req  chan *chunkBuf
	res  chan *chunkBuf
	quit chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

func newLoader(r *Reader, keep bool) *loader {
	l := &loader{
		r: r, keep: keep,
		req:  make(chan *chunkBuf, cacheSlots),
		res:  make(chan *chunkBuf, cacheSlots),
		quit: make(chan struct{}),
	}
	n := min(readAhead, runtime.GOMAXPROCS(0))
	l.wg.Add(n)
	for range n {
		go l.run()
	}
	return l
}

func (l *loader) run() {
	defer l.wg.Done()
	for {
		select {
		case <-l.quit:
			return
		case cb := <-l.req:
			l.r.fillChunk(cb, cb.want, l.keep)
			l.res <- cb // never blocks: capacity is the number of slots
		}
	}
}

// halt asks the goroutines to end without waiting for them.
func (l *loader) halt() { l.once.Do(func() { close(l.quit) }) }

// loaderBox lets the cleanup of an abandoned iterator find its current loader.
type loaderBox struct{ l atomic.Pointer[loader] }

// fillChunk loads chunk ci into cb and checks the record framing of its
// payload. With keep, the payload goes into a new buffer that is never
// reused. It sets cb.chunk to ci and cb.err to the error, if any.
func (r *Reader) fillChunk(cb *chunkBuf, ci int, keep bool) {
	if keep {
		cb.data = nil
	}
	cb.chunk, cb.err = ci, nil
	pos := r.chunks[ci].pos
	var err error
	if c := &r.chunks[ci]; c.cut > 0 {
		err = r.loadCut(c, cb)
	} else {
		_, _, err = r.loadChunk(pos, cb)
	}
	if err != nil {
		cb.chunk, cb.err = ci, fmt.Errorf("chunk %d: %w", ci, err)
		return
	}
	cb.chunk = ci
	// Check the record framing of the whole payload once per load, so a
	// corrupt chunk is reported even where the index skips over it, and
	// note where each message is: the index is checked against it.
	cb.recs = cb.recs[:0]
	if off, bad := walkChunk(cb.data, noConn, func(off int, id uint32, t Time) string {
		if _, ok := r.connByID[id]; !ok {
			return fmt.Sprintf("message record of unknown connection %d", id)
		}
		cb.recs = append(cb.recs, indexEntry{t: t, off: uint32(off), conn: id})
		return ""
	}); bad != "" {
		cb.err = r.ferr(pos, fmt.Sprintf("chunk %d payload offset %d", ci, off), bad)
	}
}

// chunk returns the decompressed chunk ci, from the cache, from the loader
// (waiting for it) or loaded now, and schedules read-ahead when the iterator
// moves to another chunk.
func (it *Iterator) chunk(ci int) (*chunkBuf, error) {
	it.tick++
	it.collect(false)
	if err, ok := it.bad[ci]; ok {
		return nil, err
	}
	var cb *chunkBuf
	for _, s := range it.slots {
		if s.loading && s.want == ci {
			for s.loading {
				it.collect(true)
			}
		}
		if !s.loading && s.chunk == ci {
			cb = s
			break
		}
	}
	if cb == nil {
		cb = it.victim(ci, false)
		it.r.fillChunk(cb, ci, it.q.KeepData)
	}
	if cb.err != nil {
		err := cb.err
		cb.chunk, cb.err = -1, nil
		if it.q.SkipCorrupt && payloadErr(err) {
			// remembered so that a later pass does not load it again
			if it.bad == nil {
				it.bad = make(map[int]error)
			}
			it.bad[ci] = err
		}
		return nil, err
	}
	cb.used = it.tick
	// Read-ahead starts with the second message after a start or a seek:
	// a seek that reads one message (a viewer's picture, a lookup in a bag
	// in object storage) loads only the chunk it needs.
	if ci != it.cur || it.aheadPending {
		it.cur = ci
		it.aheadPending = it.fresh
		if !it.fresh {
			it.readAhead(ci)
		}
	}
	return cb, nil
}

// collect marks the slots returned by the loader as ready; with wait it
// blocks for at least one.
func (it *Iterator) collect(wait bool) {
	if it.inflight == 0 {
		return
	}
	l := it.box.l.Load()
	if wait {
		cb := <-l.res
		cb.loading = false
		it.inflight--
	}
	for it.inflight > 0 {
		select {
		case cb := <-l.res:
			cb.loading = false
			it.inflight--
		default:
			return
		}
	}
}

// planned reports whether chunk ci is among the chunks read-ahead wants.
func (it *Iterator) planned(ci int) bool {
	for _, p := range it.plan {
		if p == ci {
			return true
		}
	}
	return false
}

// victim returns a slot that is not loading and does not hold chunk cur,
// preferring slots whose chunk is neither active in the heap nor planned,
// least recently used first. With strict it returns nil rather than one of
// those.
func (it *Iterator) victim(cur int, strict bool) *chunkBuf {
	var best, fallback *chunkBuf
	for _, s := range it.slots {
		if s.loading || s.chunk == cur && s.chunk >= 0 {
			continue
		}
		if s.chunk < 0 || !it.planned(s.chunk) && !it.active(s.chunk) {
			if best == nil || s.chunk < 0 && best.chunk >= 0 || (s.chunk < 0) == (best.chunk < 0) && s.used < best.used {
				best = s
			}
		} else if fallback == nil || s.used < fallback.used {
			fallback = s
		}
	}
	if best != nil || strict {
		return best
	}
	if fallback != nil {
		return fallback
	}
	// Every other slot is loading (cannot happen with readAhead <
	// cacheSlots-1); wait for one.
	it.collect(true)
	return it.victim(cur, false)
}

// active reports whether chunk ci has a cursor on the heap.
func (it *Iterator) active(ci int) bool {
	for _, c := range it.heap {
		if c.chunk == ci {
			return true
		}
	}
	return false
}

// cached reports whether chunk ci is in a slot or on its way there.
func (it *Iterator) cached(ci int) bool {
	for _, s := range it.slots {
		if s.loading && s.want == ci || !s.loading && s.chunk == ci {
			return true
		}
	}
	return false
}

// readAhead hands up to readAhead chunks the iterator will need after cur to
// the loader.
func (it *Iterator) readAhead(cur int) {
	r := it.r
	it.plan = it.plan[:0]
	for _, c := range it.heap {
		if c.chunk != cur && !it.planned(c.chunk) && len(it.plan) < readAhead {
			it.plan = append(it.plan, c.chunk)
		}
	}
	for p := it.pend; p < len(r.byStart) && p < it.pend+aheadScan && len(it.plan) < readAhead; p++ {
		ci := int(r.byStart[p])
		if it.q.End != 0 && r.chunks[ci].start >= it.q.End {
			break
		}
		if ci != cur && it.wants(ci) && !it.planned(ci) {
			it.plan = append(it.plan, ci)
		}
	}
	for _, ci := range it.plan {
		if it.inflight >= readAhead {
			return
		}
		if _, bad := it.bad[ci]; bad || it.cached(ci) {
			continue
		}
		s := it.victim(cur, true)
		if s == nil {
			return
		}
		l := it.startLoader()
		s.loading, s.want, s.used = true, ci, it.tick
		it.inflight++
		l.req <- s // never blocks: capacity is the number of slots
	}
}

// startLoader returns the running loader, starting one if needed.
func (it *Iterator) startLoader() *loader {
	if it.box == nil {
		it.box = &loaderBox{}
		runtime.AddCleanup(it, func(b *loaderBox) {
			if l := b.l.Load(); l != nil {
				l.halt()
			}
		}, it.box)
	}
	l := it.box.l.Load()
	if l == nil {
		l = newLoader(it.r, it.q.KeepData)
		it.box.l.Store(l)
	}
	return l
}

// stopLoader ends the read-ahead goroutines and waits for them. Slots whose
// request was never taken become empty.
func (it *Iterator) stopLoader() {
	if it.box == nil {
		return
	}
	l := it.box.l.Load()
	if l == nil {
		return
	}
	l.halt()
	l.wg.Wait()
	it.collect(false)
	for _, s := range it.slots {
		if s.loading {
			s.loading, s.chunk = false, -1
		}
	}
	it.inflight = 0
	it.box.l.Store(nil)
}

// Close ends the iterator's read-ahead goroutines and releases its buffers.
// Afterwards Next returns false and Err returns ErrClosed. Calling Close is
// optional: the goroutines also end when Next returns false and when the
// iterator becomes unreachable; closing twice is a no-op.
func (it *Iterator) Close() error {
	if it.closed {
		return nil
	}
	it.stopLoader()
	it.closed = true
	it.err = ErrClosed
	for i := range it.slots {
		it.slots[i] = &chunkBuf{chunk: -1}
	}
	it.heap = it.heap[:0]
	return nil
}
