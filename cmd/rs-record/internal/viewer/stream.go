package viewer

import (
	"sync"
	"sync/atomic"

	"github.com/rsbag/rsbag/sensor"
)

type streamKind int

const (
	kindVideo streamKind = iota
	kindMotion
	kindPose
)

func (k streamKind) String() string {
	switch k {
	case kindMotion:
		return "motion"
	case kindPose:
		return "pose"
	default:
		return "video"
	}
}

// maxSamples bounds the motion samples a stream keeps between two state
// messages (a 1 kHz IMU at the default period needs 100).
const maxSamples = 1024

// sample is one motion sample for the plots.
type sample struct {
	T       float64 // frame timestamp, ms
	X, Y, Z float32
}

// stream is one shown stream.
type stream struct {
	id     int
	sensor int                                  // index of its sensor in the device
	prof   atomic.Pointer[sensor.StreamProfile] // changed from the page only while the sensors are stopped
	kind   streamKind
	name   string

	off       atomic.Bool // a camera's stream stopped from the page
	latest    atomic.Pointer[sensor.Frame]
	bagTime   atomic.Int64  // bag time of the latest frame (primary stream of a bag)
	delivered atomic.Uint64 // frames handed to the viewer
	lastSeq   atomic.Uint64 // server-wide sequence number of the latest frame
	wake      chan struct{} // wakes the encoder (video)

	// Frame-number gaps of a camera (a bag's drops come from playback).
	gapMu      sync.Mutex
	lastNumber uint64
	gaps       uint64

	// The newest encoded pictures (video).
	jpeg atomic.Pointer[picture]
	png  atomic.Pointer[picture]
	// The primary depth stream: the frame on view after the filters, its
	// sequence number and the newest point cloud message.
	shown    atomic.Pointer[sensor.Frame]
	shownSeq atomic.Uint64
	shownGen atomic.Uint64 // counts the frames filtered into shown
	encWake  chan struct{} // wakes the encoder of the primary stream once its frame is filtered
	cloud    atomic.Pointer[picture]
	// The ground truth of the newest depth frame encoded (a bag recorded
	// with --ground-truth), for the hover readout.
	truth atomic.Pointer[frameTruth]

	// Motion samples since the last state message.
	smu     sync.Mutex
	samples []sample
	skipped uint64 // samples beyond maxSamples in one period

	// Bag times of every frame (primary stream of a bag), for stepping
	// back; nil until indexed.
	times atomic.Pointer[[]int64]

	// fps, computed by the state loop.
	fpsPrev  uint64
	fpsValue float64
}

func newStream(id, sensorIndex int, p *sensor.StreamProfile) *stream {
	st := &stream{id: id, sensor: sensorIndex, name: p.Name(), wake: make(chan struct{}, 1), encWake: make(chan struct{}, 1)}
	st.prof.Store(p)
	switch p.Kind {
	case sensor.KindMotion:
		st.kind = kindMotion
	case sensor.KindPose:
		st.kind = kindPose
	}
	return st
}

// profile is the stream's profile: the one shown, which a camera's page
// may change.
func (st *stream) profile() *sensor.StreamProfile { return st.prof.Load() }

// put records a delivered frame.
func (st *stream) put(f *sensor.Frame, bagTime int64, seq uint64) {
	st.delivered.Add(1)
	st.gapMu.Lock()
	if st.lastNumber != 0 && f.Number > st.lastNumber+1 {
		st.gaps += f.Number - st.lastNumber - 1
	}
	st.lastNumber = f.Number
	st.gapMu.Unlock()
	if bagTime >= 0 {
		st.bagTime.Store(bagTime)
	}
	st.latest.Store(f)
	st.lastSeq.Store(seq)
	switch st.kind {
	case kindVideo:
		st.poke()
	case kindMotion:
		st.smu.Lock()
		if len(st.samples) < maxSamples {
			st.samples = append(st.samples, sample{f.TimestampMs, f.Motion[0], f.Motion[1], f.Motion[2]})
		} else {
			st.skipped++
		}
		st.smu.Unlock()
	}
}

// poke wakes the encoder of a video stream.
func (st *stream) poke() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// takeSamples returns the motion samples since the last call.
func (st *stream) takeSamples() []sample {
	st.smu.Lock()
	defer st.smu.Unlock()
	out := st.samples
	st.samples = make([]sample, 0, len(out))
	return out
}

func (st *stream) frameGaps() uint64 {
	st.gapMu.Lock()
	defer st.gapMu.Unlock()
	return st.gaps
}
