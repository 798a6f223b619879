package main

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/rsbag/rsbag/sensor"
)

// profilesOf returns the profiles named by n handles at p.
func profilesOf(p **C.rs2_stream_profile, n int) []*sensor.StreamProfile {
	if p == nil {
		failNull("profiles")
	}
	hs := unsafe.Slice(p, n)
	out := make([]*sensor.StreamProfile, n)
	for i, h := range hs {
		out[i] = lookup[*profileEntry](unsafe.Pointer(h), "profiles").p
	}
	return out
}

//export rs2_open
func rs2_open(s *C.rs2_sensor, p *C.rs2_stream_profile, e **C.rs2_error) {
	defer catch(e, "rs2_open", func() string {
		return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "profile", profileArg(unsafe.Pointer(p)))
	})
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	sp := lookup[*profileEntry](unsafe.Pointer(p), "profile").p
	check(h.s.Open(sp))
	h.o.setActive(h.s, []*sensor.StreamProfile{sp})
}

//export rs2_open_multiple
func rs2_open_multiple(s *C.rs2_sensor, p **C.rs2_stream_profile, n C.int, e **C.rs2_error) {
	defer catch(e, "rs2_open_multiple", func() string {
		return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "profiles", ptrPtrArg(unsafe.Pointer(p)), "count", n)
	})
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	if p == nil {
		failNull("profiles")
	}
	if n <= 0 {
		// librealsense's playback sensor opens no stream for no profile,
		// without error (count is not checked): the sensor then starts,
		// streams nothing and stops, as one not open does here.
		return
	}
	ps := profilesOf(p, int(n))
	check(h.s.Open(ps...))
	h.o.setActive(h.s, ps)
}

// start starts the sensor with a handler that hands each frame, as a new
// reference, to deliver. Nothing recovers a panic there: one would have
// unwound the program's callback (and left its locks held), and ends the
// program with Go's report instead of a hang.
//
// librealsense's playback sensor starts without being open and then
// streams nothing (src/media/playback/playback_sensor.cpp checks no open
// profile), and its stop does nothing when it is not started: so do these.
//
// start reports whether the sensor took deliver (false: it was started
// already).
//
// A frame of a bag played with real time off is blocking, as librealsense's
// playback marks it (playback_device.cpp: set_blocking(!m_real_time)): a
// full frame queue holds it, and so the playback, until there is room
// (see frameQueue.enqueue), or until the sensor is stopped.
func (h *sensorHandle) start(deliver func(*C.rs2_frame)) (started bool) {
	o := h.o
	halt := make(chan struct{})
	err := h.s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		r := newFrame(f, nil, o)
		if o.pb != nil && !o.pb.RealTime() {
			frameOf(r, "frame").halt = halt
		}
		deliver(r)
	}))
	if err == nil || errors.Is(err, sensor.ErrNotOpen) {
		o.setHalt(h.s, halt)
	}
	if errors.Is(err, sensor.ErrNotOpen) {
		return true // started, streaming nothing, until stopped
	}
	if errors.Is(err, sensor.ErrAlreadyStarted) {
		// As librealsense's playback sensor (playback_sensor::start):
		// a started sensor keeps its callback, and the new one is
		// dropped.
		return false
	}
	check(err)
	return true
}

//export rs2_start
func rs2_start(s *C.rs2_sensor, cb C.rs2_frame_callback_ptr, user unsafe.Pointer, e **C.rs2_error) {
	defer catch(e, "rs2_start", func() string {
		return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "on_frame", funcArg(unsafe.Pointer(cb)), "user", ptrArg(user))
	})
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	if cb == nil {
		failNull("on_frame")
	}
	h.start(func(f *C.rs2_frame) { C.rsbag_call_frame(cb, f, user) })
}

//export rs2_start_cpp
func rs2_start_cpp(s *C.rs2_sensor, cb *C.rs2_frame_callback, e **C.rs2_error) {
	defer catch(e, "rs2_start_cpp", func() string {
		return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "callback", ptrArg(unsafe.Pointer(cb)))
	})
	checkCallback(unsafe.Pointer(cb))
	defer releaseOnFailure(func() { C.rsbag_cpp_release_frame_callback(cb) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	if !h.start(func(f *C.rs2_frame) { C.rsbag_cpp_on_frame(cb, f) }) {
		C.rsbag_cpp_release_frame_callback(cb) // as librealsense, which holds it no longer
		return
	}
	h.mu.Lock()
	old := h.cppCB
	h.cppCB = unsafe.Pointer(cb)
	h.mu.Unlock()
	if old != nil {
		C.rsbag_cpp_release_frame_callback((*C.rs2_frame_callback)(old))
	}
}

//export rs2_start_queue
func rs2_start_queue(s *C.rs2_sensor, q *C.rs2_frame_queue, e **C.rs2_error) {
	defer catch(e, "rs2_start_queue", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "queue", ptrArg(unsafe.Pointer(q))) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	fq := lookup[*frameQueue](unsafe.Pointer(q), "queue")
	h.start(func(f *C.rs2_frame) { fq.enqueue(frameOf(f, "frame")) })
}

//export rs2_stop
func rs2_stop(s *C.rs2_sensor, e **C.rs2_error) {
	defer catch(e, "rs2_stop", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	h.o.halt(h.s)
	err := h.s.Stop()
	if errors.Is(err, sensor.ErrNotStarted) {
		err = nil // as librealsense's playback sensor: nothing to stop
	}
	check(err)
	swapFrameCallback(&h.mu, &h.cppCB, nil)
}

//export rs2_close
func rs2_close(s *C.rs2_sensor, e **C.rs2_error) {
	defer catch(e, "rs2_close", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	h.o.halt(h.s)
	err := h.s.Close()
	if errors.Is(err, sensor.ErrNotOpen) {
		err = nil // as librealsense's playback sensor: nothing to close
	}
	check(err)
	h.o.setActive(h.s, nil)
}

// frameQueue is an rs2_frame_queue of at most cap frames, as librealsense's
// single_consumer_frame_queue: a new frame drops (and releases) the oldest
// when the queue is full, but a blocking frame (one with a halt channel)
// waits for room instead, until its halt channel is closed or the queue is
// deleted, and is then released without being queued.
type frameQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond // a frame came, or the queue was deleted
	room    *sync.Cond // a frame left, or the queue was deleted
	frames  []*frameRef
	cap     int
	deleted bool
}

func newFrameQueue(n int) *frameQueue {
	q := &frameQueue{cap: max(n, 1)}
	q.cond = sync.NewCond(&q.mu)
	q.room = sync.NewCond(&q.mu)
	return q
}

func (q *frameQueue) enqueue(r *frameRef) {
	q.mu.Lock()
	if r.halt != nil && len(q.frames) >= q.cap && !q.deleted {
		q.waitRoom(r.halt)
	}
	var drop *frameRef
	switch {
	case q.deleted || (r.halt != nil && len(q.frames) >= q.cap):
		drop = r // halted while waiting, or nobody will read it
	default:
		if len(q.frames) >= q.cap {
			drop = q.frames[0]
			q.frames[0] = nil
			q.frames = q.frames[1:]
		}
		q.frames = append(q.frames, r)
	}
	q.mu.Unlock()
	q.cond.Signal()
	if drop != nil {
		drop.release()
	}
}

// waitRoom waits, with q.mu held, until the queue has room, is deleted, or
// halt is closed.
func (q *frameQueue) waitRoom(halt <-chan struct{}) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-halt:
			q.mu.Lock()
			q.room.Broadcast()
			q.mu.Unlock()
		case <-done:
		}
	}()
	for len(q.frames) >= q.cap && !q.deleted {
		select {
		case <-halt:
			return
		default:
		}
		q.room.Wait()
	}
}

// dequeue returns the oldest frame, waiting up to timeout (none: <= 0).
func (q *frameQueue) dequeue(timeout time.Duration) *frameRef {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.frames) == 0 && timeout > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		stop := context.AfterFunc(ctx, func() {
			q.mu.Lock()
			q.cond.Broadcast()
			q.mu.Unlock()
		})
		defer stop()
		for len(q.frames) == 0 && ctx.Err() == nil && !q.deleted {
			q.cond.Wait()
		}
	}
	if len(q.frames) == 0 {
		return nil
	}
	r := q.frames[0]
	q.frames[0] = nil
	q.frames = q.frames[1:]
	q.room.Broadcast()
	return r
}

// remove marks the queue deleted: frames waiting for room are released,
// and so is every frame queued later; the frames it holds are released.
func (q *frameQueue) remove() {
	q.mu.Lock()
	q.deleted = true
	q.room.Broadcast()
	q.cond.Broadcast()
	q.mu.Unlock()
	q.drain()
}

func (q *frameQueue) drain() {
	for r := q.dequeue(0); r != nil; r = q.dequeue(0) {
		r.release()
	}
}

//export rs2_create_frame_queue
func rs2_create_frame_queue(capacity C.int, e **C.rs2_error) (r *C.rs2_frame_queue) {
	defer catch(e, "rs2_create_frame_queue", func() string { return fmtArgs("capacity", capacity) })
	return (*C.rs2_frame_queue)(newHandle(newFrameQueue(int(capacity))))
}

//export rs2_delete_frame_queue
func rs2_delete_frame_queue(q *C.rs2_frame_queue) {
	defer catch(nil, "rs2_delete_frame_queue", nil)
	fq := lookup[*frameQueue](unsafe.Pointer(q), "queue")
	freeHandle(unsafe.Pointer(q))
	fq.remove()
}

//export rs2_frame_queue_size
func rs2_frame_queue_size(q *C.rs2_frame_queue, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_frame_queue_size", func() string { return fmtArgs("queue", ptrArg(unsafe.Pointer(q))) })
	fq := lookup[*frameQueue](unsafe.Pointer(q), "queue")
	fq.mu.Lock()
	defer fq.mu.Unlock()
	return C.int(len(fq.frames))
}

//export rs2_wait_for_frame
func rs2_wait_for_frame(q *C.rs2_frame_queue, timeoutMs C.uint, e **C.rs2_error) (r *C.rs2_frame) {
	defer catch(e, "rs2_wait_for_frame", func() string { return fmtArgs("queue", ptrArg(unsafe.Pointer(q))) })
	fr := lookup[*frameQueue](unsafe.Pointer(q), "queue").dequeue(time.Duration(timeoutMs) * time.Millisecond)
	if fr == nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Frame did not arrive in time!")
	}
	return (*C.rs2_frame)(fr.handle)
}

//export rs2_poll_for_frame
func rs2_poll_for_frame(q *C.rs2_frame_queue, out **C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_poll_for_frame", func() string {
		return fmtArgs("queue", ptrArg(unsafe.Pointer(q)), "output_frame", ptrPtrArg(unsafe.Pointer(out)))
	})
	fq := lookup[*frameQueue](unsafe.Pointer(q), "queue")
	if out == nil {
		failNull("output_frame")
	}
	if fr := fq.dequeue(0); fr != nil {
		*out = (*C.rs2_frame)(fr.handle)
		return 1
	}
	return 0
}

//export rs2_try_wait_for_frame
func rs2_try_wait_for_frame(q *C.rs2_frame_queue, timeoutMs C.uint, out **C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_try_wait_for_frame", func() string {
		return fmtArgs("queue", ptrArg(unsafe.Pointer(q)), "output_frame", ptrPtrArg(unsafe.Pointer(out)))
	})
	fq := lookup[*frameQueue](unsafe.Pointer(q), "queue")
	if out == nil {
		failNull("output_frame")
	}
	if fr := fq.dequeue(time.Duration(timeoutMs) * time.Millisecond); fr != nil {
		*out = (*C.rs2_frame)(fr.handle)
		return 1
	}
	return 0
}

//export rs2_enqueue_frame
func rs2_enqueue_frame(f *C.rs2_frame, q unsafe.Pointer) {
	defer catch(nil, "rs2_enqueue_frame", nil)
	lookup[*frameQueue](q, "queue").enqueue(frameOf(f, "frame"))
}

// setActive records the profiles s streams once opened (nil once closed),
// as librealsense's playback sensor does for rs2_get_active_streams.
func (o *owner) setActive(s sensor.Sensor, profiles []*sensor.StreamProfile) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.active == nil {
		o.active = map[sensor.Sensor][]*sensor.StreamProfile{}
	}
	if profiles == nil {
		delete(o.active, s)
		return
	}
	o.active[s] = profiles
}

//export rs2_get_active_streams
func rs2_get_active_streams(s *C.rs2_sensor, e **C.rs2_error) (r *C.rs2_stream_profile_list) {
	defer catch(e, "rs2_get_active_streams", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	h.o.mu.Lock()
	active := slices.Clone(h.o.active[h.s])
	h.o.mu.Unlock()
	return (*C.rs2_stream_profile_list)(newHandle(&profileList{h.o.acquire(), active}))
}

// cloneProfile returns a new profile handle, the program's to delete, of a
// copy of p with a new unique id, as librealsense's clone; formatArg is
// the name librealsense gives the format argument in its errors.
func cloneProfile(p *C.rs2_stream_profile, stream C.rs2_stream, index C.int, format C.rs2_format, formatArg string, edit func(*sensor.StreamProfile)) *C.rs2_stream_profile {
	if stream >= C.RS2_STREAM_COUNT {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "invalid enum value for argument \"stream\"")
	}
	if format >= C.RS2_FORMAT_COUNT {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "invalid enum value for argument \"%s\"", formatArg)
	}
	c := *lookup[*profileEntry](unsafe.Pointer(p), "mode").p
	c.UID = sensor.NextUID()
	c.Stream, c.Index, c.Format = sensor.Stream(stream), int(index), sensor.Format(format)
	c.Default = false
	if edit != nil {
		edit(&c)
	}
	return (*C.rs2_stream_profile)(newHandle(&profileEntry{p: &c, clone: true}))
}

//export rs2_clone_stream_profile
func rs2_clone_stream_profile(p *C.rs2_stream_profile, stream C.rs2_stream, index C.int, format C.rs2_format, e **C.rs2_error) (r *C.rs2_stream_profile) {
	defer catch(e, "rs2_clone_stream_profile", func() string {
		return fmtArgs("mode", profileArg(unsafe.Pointer(p)), "stream", stream, "stream_idx", index, "fmt", format)
	})
	return cloneProfile(p, stream, index, format, "fmt", nil)
}

//export rs2_clone_video_stream_profile
func rs2_clone_video_stream_profile(p *C.rs2_stream_profile, stream C.rs2_stream, index C.int, format C.rs2_format, width, height C.int, intr *C.rs2_intrinsics, e **C.rs2_error) (r *C.rs2_stream_profile) {
	defer catch(e, "rs2_clone_video_stream_profile", func() string {
		return fmtArgs("mode", profileArg(unsafe.Pointer(p)), "stream", stream, "index", index, "format", format, "width", width, "height", height, "intr", intrinsicsArg(intr))
	})
	if lookup[*profileEntry](unsafe.Pointer(p), "mode").p.Kind != sensor.KindVideo {
		failNull("vid")
	}
	if intr == nil {
		failNull("intr")
	}
	return cloneProfile(p, stream, index, format, "format", func(c *sensor.StreamProfile) {
		c.Width, c.Height = int(width), int(height)
		c.Intrinsics = goIntrinsics(intr)
	})
}

// goIntrinsics returns the intrinsics in.
func goIntrinsics(in *C.rs2_intrinsics) sensor.Intrinsics {
	out := sensor.Intrinsics{
		Width: int(in.width), Height: int(in.height),
		PPX: float32(in.ppx), PPY: float32(in.ppy), FX: float32(in.fx), FY: float32(in.fy),
		Model: sensor.Distortion(in.model),
	}
	for i := range out.Coeffs {
		out.Coeffs[i] = float32(in.coeffs[i])
	}
	return out
}
