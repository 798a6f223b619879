package viewer

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// truthHeader is the ground truth of a frame in its binary message's header
// (a bag recorded with rs-record record --ground-truth): the pose of the
// frame's stream in the scene, translation in meters and rotation as a unit
// quaternion (x, y, z, w), as playback.Device.GroundTruth returns it.
type truthHeader struct {
	T [3]float64 `json:"t"`
	Q [4]float64 `json:"q"`
}

// frameTruth is the ground truth of one frame, kept by its stream for the
// hover readout's exact depth.
type frameTruth struct {
	number uint64
	gt     playback.GroundTruth
}

// truthIndex gives, for each stream of a bag with ground truth, the bag
// time of each of its frames by frame number: in real time, Position in a
// handler is where the reader is, not the frame's bag time, so the frames'
// own bag times are learned once, from a lossless playback of the bag.
type truthIndex struct {
	ready chan struct{}            // closed once times is set
	times map[int]map[uint64]int64 // stream id → frame number → bag time
}

// startTruth indexes, in the background, the frames of the streams that the
// bag holds ground truth for; s.truth stays nil for a bag without any.
func (s *Server) startTruth() {
	streams := s.truthStreams()
	if len(streams) == 0 {
		return
	}
	s.truth = &truthIndex{ready: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.truth.ready)
		times, err := s.indexTruth(streams)
		if err != nil {
			s.setErr(fmt.Errorf("ground truth: %w", err))
		}
		s.truth.times = times
	}()
}

// truthStreams returns the video streams shown whose ground-truth pose the
// bag holds.
func (s *Server) truthStreams() []*stream {
	r, err := rosbag.Open(s.pb.Filename(), nil)
	if err != nil {
		return nil // playback opened it: a reader error here shows elsewhere
	}
	defer r.Close()
	var out []*stream
	for _, st := range s.streams {
		if st.kind != kindVideo {
			continue
		}
		for _, c := range r.Connections() {
			if sn, i, what, ok := layout.ParseGroundTruthTopic(c.Topic); ok && what == "pose" && sn == st.profile().Stream && i == st.profile().Index {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// indexTruth plays the bag once more, losslessly and at full speed, to
// learn the bag time of every frame of streams: in a non-real-time
// device's handler, Position is the bag time of the handler's frame.
func (s *Server) indexTruth(streams []*stream) (map[int]map[uint64]int64, error) {
	dev, err := playback.Open(s.pb.Filename(), &playback.Options{NonRealTime: true})
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	type key struct {
		s     sensor.Stream
		index int
	}
	ids := map[key]int{}
	times := map[int]map[uint64]int64{}
	for _, st := range streams {
		p := st.profile()
		ids[key{p.Stream, p.Index}] = st.id
		times[st.id] = map[uint64]int64{}
	}
	var mu sync.Mutex // the handler runs on one goroutine per stream
	stopped, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
		id, ok := ids[key{f.Profile.Stream, f.Profile.Index}]
		if !ok {
			return
		}
		at := int64(dev.Position())
		mu.Lock()
		if _, dup := times[id][f.Number]; !dup {
			times[id][f.Number] = at
		}
		mu.Unlock()
	}))
	if err != nil {
		return nil, err
	}
	select {
	case <-stopped:
	case <-s.done:
	}
	dev.Close() // the handlers have returned
	return times, nil
}

// groundTruth returns the ground truth of frame f of stream st, nil when
// the bag holds none for it. f may be the primary stream's frame after the
// filters: the ground truth is that of the frame played, of the stream's
// profile and size, with f's number. It waits for the index of the bag's
// frames.
func (s *Server) groundTruth(st *stream, f *sensor.Frame) *truthHeader {
	if s.truth == nil {
		return nil
	}
	select {
	case <-s.truth.ready:
	case <-s.done:
		return nil
	}
	if ft := st.truth.Load(); ft != nil && ft.number == f.Number {
		return &truthHeader{T: ft.gt.Translation, Q: ft.gt.Rotation} // the same frame again (another scheme, filter)
	}
	at, ok := s.truth.times[st.id][f.Number]
	if !ok {
		return nil
	}
	p := st.profile()
	played := &sensor.Frame{Profile: p, Number: f.Number, Width: p.Width, Height: p.Height}
	gt, err := s.pb.GroundTruth(played, time.Duration(at))
	if err != nil {
		if !errors.Is(err, playback.ErrNoGroundTruth) {
			s.setErr(err)
		}
		return nil
	}
	if gt.Depth != nil {
		st.truth.Store(&frameTruth{number: f.Number, gt: gt})
	}
	return &truthHeader{T: gt.Translation, Q: gt.Rotation}
}

// exactDepth returns the exact depth (meters) at pixel (x, y) of depth
// frame f of stream st, the frame on view; ok is false when the bag holds
// none for f or f's pixels are not those of the ground truth (a decimated
// frame).
func (s *Server) exactDepth(st *stream, f *sensor.Frame, x, y int) (float64, bool) {
	ft := st.truth.Load()
	if ft == nil || ft.number != f.Number {
		if s.groundTruth(st, f) == nil { // not encoded yet: read it now
			return 0, false
		}
		ft = st.truth.Load()
	}
	if ft == nil || ft.number != f.Number || len(ft.gt.Depth) != f.Width*f.Height {
		return 0, false
	}
	return float64(ft.gt.Depth[y*f.Width+x]), true
}
