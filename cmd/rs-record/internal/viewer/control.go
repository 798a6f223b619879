package viewer

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// Speed limits of the page's speed control.
const (
	minSpeed = 0.25
	maxSpeed = 4
)

// maxStepReads bounds the playback steps one viewer step makes while looking
// for the next frame of the primary stream (other streams' frames between
// two primary frames are delivered on the way).
const maxStepReads = 1 << 16

var errNotPlayback = errors.New("a camera cannot be controlled; only a bag can")

// speed returns the speed set last.
func (s *Server) speed() float64 {
	if v := math.Float64frombits(s.speedBits.Load()); v > 0 {
		return v
	}
	return 1
}

// play resumes playback, or plays again from the start after the end.
func (s *Server) play() error {
	if s.pb == nil {
		return errNotPlayback
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	switch s.pb.Status() {
	case extensions.StatusStopped:
		s.ended.Store(false)
		return s.startSensors()
	case extensions.StatusPaused:
		return s.pb.Resume()
	}
	return nil
}

// pause pauses playback and shows exactly the frame of the primary stream
// that was under view: the frames queued when pausing are dropped, so the
// viewer seeks back to the primary frame's bag time and steps to it. That
// makes the next step forward or back exact.
func (s *Server) pause() error {
	if s.pb == nil {
		return errNotPlayback
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	return s.pauseLocked()
}

func (s *Server) pauseLocked() error {
	switch s.pb.Status() {
	case extensions.StatusPaused:
		return nil
	case extensions.StatusStopped:
		// After the end: pausing a stopped device makes the start wait.
		if err := s.pb.Pause(); err != nil {
			return err
		}
		s.ended.Store(false)
		if err := s.startSensors(); err != nil {
			return err
		}
		return s.stepToPrimary(s.primary.delivered.Load())
	}
	if err := s.pb.Pause(); err != nil {
		return err
	}
	if s.primary.delivered.Load() == 0 {
		return nil
	}
	return s.showAt(time.Duration(s.primary.bagTime.Load()))
}

// showFirst shows, while paused before the first play, the first picture
// of every video and motion stream: it seeks to the latest of their first
// frames' bag times, which delivers each stream's current picture there. A
// bag in which that fails (no frame of the primary stream) tells the page
// why.
func (s *Server) showFirst() {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	t, err := s.firstPictureTime()
	if err != nil {
		s.setErr(err)
		t, _ = s.pb.Span()
	}
	if err := s.showAt(t); err != nil {
		s.setErr(err)
	}
}

// firstPictureTime is the bag time by which every video and motion stream
// shown has its first frame, from the bag's index (a stream without frames
// does not count).
func (s *Server) firstPictureTime() (time.Duration, error) {
	r, err := rosbag.Open(s.pb.Filename(), nil)
	if err != nil {
		return 0, fmt.Errorf("first frames of %s: %w", s.pb.Filename(), err)
	}
	defer r.Close()
	conns := map[string][]uint32{}
	for _, c := range r.Connections() {
		conns[c.Topic] = append(conns[c.Topic], c.ID)
	}
	var t time.Duration
	for _, st := range s.streams {
		if st.kind != kindVideo && st.kind != kindMotion {
			continue
		}
		topic, err := layout.FrameDataTopic(st.sensor, st.profile().Stream, st.profile().Index)
		if err != nil || len(conns[topic]) == 0 {
			continue
		}
		first, _, ok, err := r.Span(conns[topic])
		if err != nil {
			return 0, fmt.Errorf("first frame of %s in %s: %w", st.name, s.pb.Filename(), err)
		}
		if ok {
			t = max(t, time.Duration(first))
		}
	}
	return t, nil
}

// showAt seeks (while paused) to bag time t, which delivers the current
// picture there, and steps on when the primary stream has no frame at or
// before t.
func (s *Server) showAt(t time.Duration) error {
	n0 := s.primary.delivered.Load()
	if err := s.pb.Seek(t); err != nil {
		return err
	}
	return s.stepToPrimary(n0)
}

// stepToPrimary steps until the primary stream has delivered a frame since
// it had delivered n0 (a seek while paused may already have delivered it).
func (s *Server) stepToPrimary(n0 uint64) error {
	for i := 0; i < maxStepReads && s.primary.delivered.Load() == n0; i++ {
		if err := s.pb.Step(); err != nil {
			if errors.Is(err, playback.ErrEOF) {
				return fmt.Errorf("end of the bag: no later %s frame", s.primary.name)
			}
			return err
		}
	}
	return nil
}

// step moves one frame of the primary stream forward (dir > 0) or back.
func (s *Server) step(dir int) error {
	if s.pb == nil {
		return errNotPlayback
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.pb.Status() != extensions.StatusPaused {
		if err := s.pauseLocked(); err != nil {
			return err
		}
		if dir > 0 && s.primary.delivered.Load() > 0 {
			// Pausing showed the current frame; step from it.
			return s.stepToPrimary(s.primary.delivered.Load())
		}
	}
	if dir > 0 {
		return s.stepToPrimary(s.primary.delivered.Load())
	}
	times := s.primary.times.Load()
	if times == nil {
		return errors.New("the frame index of the bag is still being read; try again")
	}
	cur := s.primary.bagTime.Load()
	i := sort.Search(len(*times), func(i int) bool { return (*times)[i] >= cur })
	if i == 0 {
		return nil // the first frame is under view
	}
	return s.showAt(time.Duration((*times)[i-1]))
}

// seek moves playback to t from the start of the bag. While paused (or after
// the end) the current picture at t is shown: each stream's last frame at
// or before t.
func (s *Server) seek(t time.Duration) error {
	if s.pb == nil {
		return errNotPlayback
	}
	if d := s.pb.Duration(); t < 0 || t > d {
		return fmt.Errorf("seek to %v: outside the bag's %v", t, d)
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	switch s.pb.Status() {
	case extensions.StatusPlaying:
		return s.pb.Seek(t)
	case extensions.StatusStopped:
		if err := s.pb.Seek(t); err != nil {
			return err
		}
		return s.pauseLocked()
	}
	return s.showAt(t)
}

func (s *Server) setSpeed(x float64) error {
	if s.pb == nil {
		return errNotPlayback
	}
	if !(x >= minSpeed && x <= maxSpeed) {
		return fmt.Errorf("speed %v: must be between %v and %v", x, minSpeed, maxSpeed)
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if err := s.pb.SetSpeed(x); err != nil {
		return err
	}
	s.speedBits.Store(math.Float64bits(x))
	return nil
}

func (s *Server) setLoop(on bool) error {
	if s.pb == nil {
		return errNotPlayback
	}
	s.loop.Store(on)
	return nil
}

// indexPrimary reads the bag times of every frame of the primary stream (for
// stepping back). It reads the bag once, in the background.
func (s *Server) indexPrimary() {
	st := s.primary
	topic, err := layout.FrameDataTopic(st.sensor, st.profile().Stream, st.profile().Index)
	if err != nil {
		return
	}
	r, err := rosbag.Open(s.pb.Filename(), nil)
	if err != nil {
		s.setErr(fmt.Errorf("index %s: %w", s.pb.Filename(), err))
		return
	}
	defer r.Close()
	it := r.Messages(&rosbag.Query{Topics: []string{topic}, Start: rosbag.Time(layout.SamplesStartNs), SkipCorrupt: true})
	defer it.Close()
	var times []int64
	for it.Next() {
		select {
		case <-s.done:
			return
		default:
		}
		times = append(times, int64(it.Message().Time))
	}
	st.times.Store(&times)
}

// recoveryText says what was lost from a bag opened by a linear scan.
func recoveryText(r *rosbag.Recovery) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the bag's index is unusable (%s); recovered %d chunks, %d messages by a scan", r.Reason, r.Chunks, r.Messages)
	if r.LostBytes > 0 {
		fmt.Fprintf(&b, "; lost %d bytes from offset %d", r.LostBytes, r.LostFrom)
		if r.LostMessages > 0 {
			fmt.Fprintf(&b, " (%d messages)", r.LostMessages)
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "; %d corrupt chunks skipped", len(r.Skipped))
	}
	if r.Err != nil {
		fmt.Fprintf(&b, ": %v", r.Err)
	}
	return b.String()
}

// hover returns the distance in meters at pixel (x, y) of the frame of
// stream id under view, its number and, from a bag with ground truth, the
// exact depth there (nil without).
func (s *Server) hover(id, x, y int) (float64, uint64, *float64, error) {
	if id < 0 || id >= len(s.streams) {
		return 0, 0, nil, fmt.Errorf("no stream %d", id)
	}
	if p := s.streams[id].profile(); p.Format != sensor.FormatZ16 {
		return 0, 0, nil, fmt.Errorf("stream %s is %s, not Z16 depth", p.Name(), p.Format)
	}
	f := s.streams[id].latest.Load()
	if sf := s.streams[id].shown.Load(); sf != nil {
		f = sf // the primary stream's picture on view, after the filters
	}
	if f == nil {
		return 0, 0, nil, fmt.Errorf("stream %s has no frame yet", s.streams[id].name)
	}
	m, err := distance(f, x, y)
	if err != nil {
		return m, f.Number, nil, err
	}
	var exact *float64
	if e, ok := s.exactDepth(s.streams[id], f, x, y); ok {
		exact = &e
	}
	return m, f.Number, exact, nil
}
