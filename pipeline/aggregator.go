package pipeline

import (
	"slices"

	"github.com/rsbag/rsbag/sensor"
)

// syncedStream reports whether a pipeline hands the frames of stream s to
// its syncer; the frames of the other streams (motion, pose ...) go
// straight to its aggregator (librealsense's pipeline syncs color, depth,
// infrared and fisheye: src/pipeline/pipeline.cpp).
func syncedStream(s sensor.Stream) bool {
	switch s {
	case sensor.StreamColor, sensor.StreamDepth, sensor.StreamInfrared, sensor.StreamFisheye:
		return true
	}
	return false
}

// aggregator completes a pipeline's framesets as librealsense's pipeline
// aggregator (src/pipeline/aggregator.cpp): it keeps the latest frame of
// every stream and, once every enabled stream has delivered a frame, hands
// out with each match of the syncer the latest frame of every stream, in
// ascending stream profile id. A frame repeated in later framesets is the
// same *sensor.Frame. It is not safe for concurrent use: the Syncer calls
// it under its lock.
type aggregator struct {
	latest   []latest // by ascending profile id
	missing  int      // enabled streams without a frame yet
	anySync  bool     // some enabled stream goes through the syncer
	callback bool     // framesets for a callback (see add)
}

// latest is the latest frame of one stream.
type latest struct {
	uid     int
	synced  bool // the stream goes through the syncer
	enabled bool // the stream is one the pipeline streams
	f       *sensor.Frame
}

// newAggregator returns the aggregator of a pipeline streaming the profiles
// enabled; callback selects the framesets of a pipeline started with a
// callback.
func newAggregator(enabled []*sensor.StreamProfile, callback bool) *aggregator {
	a := &aggregator{callback: callback}
	for _, p := range enabled {
		if l := a.slot(p); !l.enabled {
			l.enabled = true
			a.missing++
			a.anySync = a.anySync || l.synced
		}
	}
	return a
}

// slot returns the entry of profile p, adding it (in profile id order)
// when it has none: a frame of a stream not enabled is kept too, as
// librealsense does, but no frameset waits for it.
func (a *aggregator) slot(p *sensor.StreamProfile) *latest {
	i, found := slices.BinarySearchFunc(a.latest, p.UID, func(l latest, uid int) int { return l.uid - uid })
	if !found {
		a.latest = slices.Insert(a.latest, i, latest{uid: p.UID, synced: syncedStream(p.Stream)})
	}
	return &a.latest[i]
}

// add takes a frameset of the syncer (matched: one of its matches; else a
// frame that passed it alone) and returns the frameset to hand out, or
// nil. For WaitForFrames, a match yields the latest frame of every stream
// once every enabled stream has delivered one, and a frame alone yields
// them only when no enabled stream goes through the syncer; for a
// callback, a match yields the latest frames of the synced streams only,
// and a frame alone is handed out alone at once.
func (a *aggregator) add(fs *Frameset, matched bool) *Frameset {
	for _, f := range fs.frames {
		l := a.slot(f.Profile)
		if l.f == nil && l.enabled {
			a.missing--
		}
		l.f = f
	}
	if !matched && a.callback {
		return fs
	}
	if a.missing > 0 || (!matched && a.anySync) {
		return nil
	}
	// The syncer's frameset is not handed out: its list is reused when
	// it has room.
	out := fs
	if cap(out.frames) < len(a.latest) {
		out = &Frameset{frames: make([]*sensor.Frame, 0, len(a.latest))}
	}
	out.frames = out.frames[:0]
	for _, l := range a.latest {
		if l.f != nil && (!a.callback || l.synced) {
			out.frames = append(out.frames, l.f)
		}
	}
	return out
}
