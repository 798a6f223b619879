package pipeline

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"

	"github.com/rsbag/rsbag/sensor"
)

// matcherQueueCap is the number of frames a stream's matcher queue holds
// before dropping its oldest (librealsense's QUEUE_MAX_SIZE).
const matcherQueueCap = 10

// staleGaps is how many frame intervals past its next expected frame a
// stream may be silent before the syncer stops waiting for it
// (src/sync.cpp: 7, "really 7+1 because the next expected is already 1
// away").
const staleGaps = 7

// ErrStopped is returned by a stopped Syncer or Pipeline.
var ErrStopped = errors.New("pipeline: stopped")

// Syncer matches frames of different streams into framesets by time, as
// librealsense's rs2::syncer: frames of the video streams of a device are
// matched by timestamp (within half a frame interval at the slower
// stream's fps, from the ACTUAL_FPS metadata or the profile), a frameset
// is released once every stream that is expected has a frame for it or
// has been silent too long, and motion and pose frames pass through
// alone. Hand it frames with HandleFrame (it is a sensor.Handler) from
// any goroutine; take framesets with PollForFrames or WaitForFrames.
type Syncer struct {
	mu      sync.Mutex
	video   map[*sensor.StreamProfile]bool // profiles matched by timestamp; others pass through
	streams []*stream                      // video streams in device order
	byUID   map[int]*stream
	queue   *FrameQueue
	stopped bool
	agg     *aggregator // a pipeline's: completes the framesets before they are queued

	// Scratch lists of release, kept to not allocate per frame.
	arrived, missing, synced []*stream
}

// stream is the matcher state of one video stream.
type stream struct {
	uid      int
	active   bool
	queued   bool // has a queue (librealsense creates it with the first frame)
	frames   []*sensor.Frame
	next     float64 // next expected timestamp
	nextFPS  float64
	order    int
	hasNextE bool
}

// pop removes and returns the oldest frame of the stream's queue. The
// queue keeps its array (no allocation per frame) and holds no pointer to
// a frame it gave out, so a frame's memory is freed as soon as its reader
// drops it.
func (st *stream) pop() *sensor.Frame {
	f := st.frames[0]
	n := copy(st.frames, st.frames[1:])
	st.frames[n] = nil
	st.frames = st.frames[:n]
	return f
}

// NewSyncer returns a Syncer for the frames of profiles (every stream
// profile of the device the frames come from, as librealsense makes its
// matcher from the device) whose released framesets wait in a queue of
// capacity queueSize (at least 1; the oldest is dropped when it is full).
func NewSyncer(profiles []*sensor.StreamProfile, queueSize int) *Syncer {
	s := &Syncer{video: map[*sensor.StreamProfile]bool{}, byUID: map[int]*stream{}, queue: NewFrameQueue(max(queueSize, 1), false)}
	for _, p := range profiles {
		if p.Kind != sensor.KindVideo {
			continue
		}
		s.video[p] = true
		st := &stream{uid: p.UID, active: true, order: len(s.streams)}
		s.streams = append(s.streams, st)
		s.byUID[p.UID] = st
	}
	return s
}

// HandleFrame hands a frame to the syncer; the framesets it releases are
// queued. Frames of profiles the syncer was not made with pass through
// alone.
func (s *Syncer) HandleFrame(f *sensor.Frame) {
	if f == nil || f.Profile == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	st := s.byUID[f.Profile.UID]
	if st == nil {
		s.emit(&Frameset{frames: []*sensor.Frame{f}}, false)
		return
	}
	if !st.active {
		st.active = true
	}
	fps := frameFPS(f)
	st.next, st.nextFPS, st.hasNextE = f.TimestampMs+1000/fps, fps, true
	st.queued = true
	st.frames = append(st.frames, f)
	if len(st.frames) > matcherQueueCap {
		st.pop()
	}
	s.release(f)
}

// frameFPS is the frame rate the matcher uses for f: its ACTUAL_FPS
// metadata (in thousandths) when present and not zero, else its profile's.
func frameFPS(f *sensor.Frame) float64 {
	if v, ok := f.Metadata.Get(sensor.MetadataKeyActualFps); ok && v != 0 {
		return float64(v) / 1000
	}
	return float64(f.Profile.FPS)
}

// timestamps returns the times to compare a and b by: their timestamps in
// one domain, else their system times.
func timestamps(a, b *sensor.Frame) (float64, float64) {
	if a.Domain == b.Domain {
		return a.TimestampMs, b.TimestampMs
	}
	return a.SystemTimeMs, b.SystemTimeMs
}

func equivalent(a, b, fps float64) bool { return math.Abs(a-b) < 1000/fps/2 }

// release queues every frameset the arrival of last completes.
func (s *Syncer) release(last *sensor.Frame) {
	for {
		arrived, missing := s.arrived[:0], s.missing[:0]
		for _, st := range s.streams {
			if !st.queued {
				continue
			}
			if len(st.frames) > 0 {
				arrived = append(arrived, st)
			} else {
				missing = append(missing, st)
			}
		}
		if len(arrived) == 0 {
			return
		}
		s.arrived, s.missing = arrived, missing
		cur := arrived[0]
		synced := append(s.synced[:0], cur)
		unsynced := 0
		for _, st := range arrived[1:] {
			a, b := cur.frames[0], st.frames[0]
			ta, tb := timestamps(a, b)
			switch {
			case equivalent(ta, tb, min(frameFPS(a), frameFPS(b))):
				synced = append(synced, st)
			case func() bool { x, y := timestamps(b, a); return x < y }():
				unsynced += len(synced)
				synced = append(synced[:0], st)
				cur = st
			default:
				unsynced++
			}
		}
		if unsynced == 0 {
			ok := true
			for _, m := range missing {
				if !s.skipMissing(cur.frames[0], m, last) {
					ok = false
				}
			}
			if !ok {
				return
			}
		}
		s.synced = synced
		fs := &Frameset{frames: make([]*sensor.Frame, 0, len(synced))}
		for _, st := range synced {
			fs.frames = append(fs.frames, st.pop())
		}
		// librealsense orders a frameset's frames by descending profile id.
		slices.SortFunc(fs.frames, func(a, b *sensor.Frame) int { return b.Profile.UID - a.Profile.UID })
		s.emit(fs, true)
	}
}

// emit queues fs, a match (matched) or a frame that passed alone, through
// the pipeline's aggregator when there is one.
func (s *Syncer) emit(fs *Frameset, matched bool) {
	if s.agg != nil {
		if fs = s.agg.add(fs, matched); fs == nil {
			return
		}
	}
	s.queue.Enqueue(fs)
}

// skipMissing reports whether the frameset of waiting may be released
// without a frame of the missing stream m: m is inactive, silent for more
// than staleGaps intervals after its next expected frame (then it becomes
// inactive until its next frame), or its next frame is not expected at the
// time of waiting.
func (s *Syncer) skipMissing(waiting *sensor.Frame, m *stream, last *sensor.Frame) bool {
	if !m.active {
		return true
	}
	fps := frameFPS(waiting)
	now := last.TimestampMs
	if now > m.next {
		if now-m.next < staleGaps*(1000/fps) {
			return false
		}
		if len(m.frames) == 0 {
			m.queued = false
		}
		m.active = false
		return true
	}
	return !equivalent(waiting.TimestampMs, m.next, fps)
}

// PollForFrames returns the next released frameset, or false when there
// is none yet.
func (s *Syncer) PollForFrames() (*Frameset, bool) { return s.queue.Poll() }

// WaitForFrames returns the next released frameset, waiting for one until
// ctx is done or the syncer is stopped.
func (s *Syncer) WaitForFrames(ctx context.Context) (*Frameset, error) { return s.queue.Wait(ctx) }

// Stop makes the syncer drop further frames; framesets already released
// can still be taken, then WaitForFrames returns ErrStopped.
func (s *Syncer) Stop() {
	// Close first: a handler blocked in Enqueue of a full blocking queue
	// holds s.mu, and returns once the queue is closed.
	s.queue.Close()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

// FrameQueue is a bounded queue of framesets, as librealsense's
// rs2::frame_queue: when it is full, Enqueue drops the oldest frameset or,
// for a blocking queue, waits for room. It is safe for concurrent use.
type FrameQueue struct {
	mu       sync.Mutex
	notFull  *sync.Cond
	items    []*Frameset
	cap      int
	blocking bool
	closed   bool
	dropped  int
	wake     chan struct{} // made by a context-aware waiter, closed on the next change
}

// NewFrameQueue returns a queue holding up to capacity framesets
// (capacity < 1 is taken as 1).
func NewFrameQueue(capacity int, blocking bool) *FrameQueue {
	q := &FrameQueue{cap: max(capacity, 1), blocking: blocking}
	q.notFull = sync.NewCond(&q.mu)
	return q
}

func (q *FrameQueue) changed() {
	if q.wake != nil {
		close(q.wake)
		q.wake = nil
	}
	q.notFull.Broadcast()
}

// Enqueue adds fs; it reports false when the queue is closed.
func (q *FrameQueue) Enqueue(fs *Frameset) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.blocking && len(q.items) >= q.cap && !q.closed {
		q.notFull.Wait()
	}
	if q.closed {
		return false
	}
	q.items = append(q.items, fs)
	if len(q.items) > q.cap {
		q.items[0] = nil
		q.items = q.items[1:]
		q.dropped++
	}
	q.changed()
	return true
}

// Poll returns the oldest frameset, or false when the queue is empty.
func (q *FrameQueue) Poll() (*Frameset, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil, false
	}
	fs := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	q.changed()
	return fs, true
}

// Wait returns the oldest frameset, waiting until there is one, ctx is
// done (its error is returned) or the queue is closed and empty
// (ErrStopped).
func (q *FrameQueue) Wait(ctx context.Context) (*Frameset, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			fs := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.changed()
			q.mu.Unlock()
			return fs, nil
		}
		if q.closed {
			q.mu.Unlock()
			return nil, ErrStopped
		}
		if q.wake == nil {
			q.wake = make(chan struct{})
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Len returns the number of framesets waiting.
func (q *FrameQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Dropped returns the number of framesets dropped because the queue was
// full.
func (q *FrameQueue) Dropped() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// Close makes Enqueue refuse framesets and wakes every waiter; framesets
// already queued can still be taken.
func (q *FrameQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		q.changed()
	}
}

// Frameset is a set of frames, one per stream, in librealsense's order: a
// Syncer's are taken at the same time, in descending stream profile id; a
// Pipeline's add the latest frame of every other stream, in ascending
// stream profile id. It is immutable.
type Frameset struct {
	frames []*sensor.Frame
}

// NewFrameset returns a frameset of frames, in the given order.
func NewFrameset(frames ...*sensor.Frame) *Frameset {
	return &Frameset{frames: slices.Clone(frames)}
}

// Len returns the number of frames.
func (fs *Frameset) Len() int { return len(fs.frames) }

// At returns frame i.
func (fs *Frameset) At(i int) *sensor.Frame { return fs.frames[i] }

// Frames returns the frames in order (a copy of the list).
func (fs *Frameset) Frames() []*sensor.Frame { return slices.Clone(fs.frames) }

// First returns the first frame of stream s, or nil.
func (fs *Frameset) First(s sensor.Stream) *sensor.Frame {
	for _, f := range fs.frames {
		if f.Profile.Stream == s {
			return f
		}
	}
	return nil
}

// FirstFormat returns the first frame of stream s in format f, or nil.
func (fs *Frameset) FirstFormat(s sensor.Stream, f sensor.Format) *sensor.Frame {
	for _, fr := range fs.frames {
		if fr.Profile.Stream == s && fr.Profile.Format == f {
			return fr
		}
	}
	return nil
}

// Depth returns the first Z16 depth frame, or nil.
func (fs *Frameset) Depth() *sensor.Frame {
	return fs.FirstFormat(sensor.StreamDepth, sensor.FormatZ16)
}

// Color returns the first color frame, or nil.
func (fs *Frameset) Color() *sensor.Frame { return fs.First(sensor.StreamColor) }

// Infrared returns the infrared frame of index i (0: the first infrared
// frame of any index, as librealsense's get_infrared_frame), or nil.
func (fs *Frameset) Infrared(i int) *sensor.Frame {
	for _, f := range fs.frames {
		if f.Profile.Stream == sensor.StreamInfrared && (i == 0 || f.Profile.Index == i) {
			return f
		}
	}
	return nil
}

// String lists the frames, e.g. "[Depth/0 #12 Color/0 #12]".
func (fs *Frameset) String() string {
	out := "["
	for i, f := range fs.frames {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s #%d", f.Profile.Name(), f.Number)
	}
	return out + "]"
}

// All iterates over the frames in order, with their positions.
func (fs *Frameset) All() iter.Seq2[int, *sensor.Frame] {
	return func(yield func(int, *sensor.Frame) bool) {
		for i, f := range fs.frames {
			if !yield(i, f) {
				return
			}
		}
	}
}
