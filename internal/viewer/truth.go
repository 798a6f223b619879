package viewer

import (
	"errors"
	"fmt"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
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
// own bag times are read from the bag once.
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

// indexTruth reads the bag times of the frames of streams, by frame number
// (the Image header's seq, as playback numbers them).
func (s *Server) indexTruth(streams []*stream) (map[int]map[uint64]int64, error) {
	byTopic := map[string]*stream{}
	var topics []string
	for _, st := range streams {
		topic, err := layout.FrameDataTopic(st.sensor, st.profile().Stream, st.profile().Index)
		if err != nil {
			continue
		}
		byTopic[topic] = st
		topics = append(topics, topic)
	}
	r, err := rosbag.Open(s.pb.Filename(), nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	times := map[int]map[uint64]int64{}
	it := r.Messages(&rosbag.Query{Topics: topics, SkipCorrupt: true})
	defer it.Close()
	var im msgs.Image
	for it.Next() {
		select {
		case <-s.done:
			return times, nil
		default:
		}
		m := it.Message()
		if err := im.Unmarshal(m.Data); err != nil {
			continue // playback reports the frames it cannot decode
		}
		st := byTopic[m.Conn.Topic]
		byNumber := times[st.id]
		if byNumber == nil {
			byNumber = map[uint64]int64{}
			times[st.id] = byNumber
		}
		if _, dup := byNumber[uint64(im.Header.Seq)]; !dup {
			byNumber[uint64(im.Header.Seq)] = int64(m.Time)
		}
	}
	return times, it.Err()
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
// frame f of stream st, from the ground truth of the frame on view; ok is
// false when there is none for f or its pixels are not those of the
// ground truth (a decimated frame).
func exactDepth(st *stream, f *sensor.Frame, x, y int) (float64, bool) {
	ft := st.truth.Load()
	if ft == nil || ft.number != f.Number || len(ft.gt.Depth) != f.Width*f.Height {
		return 0, false
	}
	return float64(ft.gt.Depth[y*f.Width+x]), true
}
