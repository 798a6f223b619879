package viewer

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// helloStream describes a stream to the page.
type helloStream struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Stream  string  `json:"stream"`
	Index   int     `json:"index"`
	Kind    string  `json:"kind"`
	Format  string  `json:"format"`
	Width   int     `json:"width,omitempty"`
	Height  int     `json:"height,omitempty"`
	FPS     int     `json:"fps"`
	Sensor  int     `json:"sensor"`
	Primary bool    `json:"primary,omitempty"`
	Depth   bool    `json:"depth,omitempty"`
	Units   float32 `json:"depthUnits,omitempty"`
	// Profiles are a camera's profiles the stream may change to (the
	// "profile" command names one by its index), Profile the one shown.
	Profiles []helloProfile `json:"profiles,omitempty"`
	Profile  int            `json:"profile"`
}

// helloProfile is one profile a camera's stream may be switched to.
type helloProfile struct {
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	FPS    int    `json:"fps"`
}

type helloSensor struct {
	Index   int               `json:"index"`
	Name    string            `json:"name"`
	Info    map[string]string `json:"info"`
	Filters []string          `json:"recommendedFilters,omitempty"`
	Options []helloOption     `json:"options"`
}

// helloOption is a sensor's option: its range, and whether the page may
// set it (a camera's writable option).
type helloOption struct {
	helloRange
	Settable bool `json:"settable,omitempty"`
}

type helloMsg struct {
	Type       string            `json:"type"`
	File       string            `json:"file,omitempty"`
	Playback   bool              `json:"playback"`
	DurationNs int64             `json:"durationNs"`
	Device     map[string]string `json:"device"`
	Sensors    []helloSensor     `json:"sensors"`
	Streams    []helloStream     `json:"streams"`
	Schemes    []string          `json:"schemes"`
	Recovery   string            `json:"recovery,omitempty"`
	Filters    []helloFilter     `json:"filters"`           // the depth filters of the primary depth stream
	Colorizer  []helloRange      `json:"colorizer"`         // the colorizer's options but the scheme
	Cameras    bool              `json:"cameras,omitempty"` // the page may switch to another camera
	Outputs    []helloOutput     `json:"outputs,omitempty"` // the unit output topics recorded in the bag
}

func infoMap(in sensor.Info) map[string]string {
	m := make(map[string]string, len(in))
	for k, v := range in {
		m[k.String()] = v
	}
	return m
}

func (s *Server) helloMessage() ([]byte, error) {
	h := helloMsg{Type: "hello", Device: infoMap(s.dev.Info()), Schemes: processing.ColorSchemes()}
	h.Filters, h.Colorizer = s.filtersState()
	h.Cameras = s.cams != nil
	if s.pb != nil {
		h.Playback = true
		h.File = s.pb.Filename()
		h.DurationNs = int64(s.pb.Duration())
		h.Outputs = s.helloOutputs()
		if rec := s.pb.Recovery(); rec != nil {
			h.Recovery = recoveryText(rec)
		}
	}
	for i, sn := range s.dev.Sensors() {
		hs := helloSensor{Index: i, Name: sensorName(sn), Info: infoMap(sn.Info()), Options: []helloOption{}}
		if rf, ok := sn.(extensions.RecommendedFilters); ok {
			hs.Filters = rf.RecommendedFilters()
		}
		if o, ok := sn.(extensions.Options); ok {
			for _, id := range o.SupportedOptions() {
				hr, ok := describeOption(o, id)
				hs.Options = append(hs.Options, helloOption{hr, ok && s.pb == nil && !o.OptionReadOnly(id)})
			}
		}
		h.Sensors = append(h.Sensors, hs)
	}
	for _, st := range s.streams {
		p := st.profile()
		hs := helloStream{
			ID: st.id, Name: st.name, Stream: p.Stream.String(), Index: p.Index, Kind: st.kind.String(),
			Format: p.Format.String(), Width: p.Width, Height: p.Height, FPS: p.FPS, Sensor: st.sensor,
			Primary: st == s.primary, Depth: isDepthFormat(p.Format),
		}
		if s.pb == nil && st.kind == kindVideo {
			for i, q := range s.profileChoices(st) {
				hs.Profiles = append(hs.Profiles, helloProfile{Format: q.Format.String(), Width: q.Width, Height: q.Height, FPS: q.FPS})
				if q == p {
					hs.Profile = i
				}
			}
		}
		h.Streams = append(h.Streams, hs)
	}
	return json.Marshal(h)
}

// makeHello makes the hello message every page is sent.
func (s *Server) makeHello() error {
	b, err := s.helloMessage()
	if err != nil {
		return err
	}
	s.hello.Store(&b)
	return nil
}

// stateMsg is one state message, shared by every client.
type stateMsg struct {
	seq uint64
	msg []byte
}

type stateStream struct {
	ID        int          `json:"id"`
	Delivered uint64       `json:"delivered"`
	Dropped   uint64       `json:"dropped"`
	Lost      uint64       `json:"lost"`
	FPS       float64      `json:"fps"`
	Samples   [][4]float64 `json:"samples,omitempty"` // t (ms), x, y, z
	Skipped   uint64       `json:"skippedSamples,omitempty"`
	Pose      *sensor.Pose `json:"pose,omitempty"`
	Number    uint64       `json:"number"`
	Off       bool         `json:"off,omitempty"` // stopped from the page
}

type stateOption struct {
	Sensor int     `json:"sensor"`
	ID     int32   `json:"id"`
	Value  float32 `json:"value"`
}

type stateJSON struct {
	Type       string          `json:"type"`
	Seq        uint64          `json:"seq"`
	Status     string          `json:"status"`
	PositionNs int64           `json:"positionNs"`
	Speed      float64         `json:"speed"`
	Loop       bool            `json:"loop"`
	Ended      bool            `json:"ended"`
	Scheme     int32           `json:"scheme"`
	CloudFull  bool            `json:"cloudFull"`
	Error      string          `json:"error,omitempty"`
	Streams    []stateStream   `json:"streams"`
	Options    []stateOption   `json:"options"`
	Filters    []stateFilter   `json:"filters"`
	Colorizer  []float32       `json:"colorizer"`
	Recording  *stateRecording `json:"recording,omitempty"`
	CanRecord  bool            `json:"canRecord"`
	Outputs    []stateOutput   `json:"outputs,omitempty"` // the latest unit output per topic at or before the position
}

// stateLoop publishes the state every period.
func (s *Server) stateLoop() {
	t := time.NewTicker(s.period)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			s.pubMu.Lock()
			dt := now.Sub(last).Seconds()
			last = now
			for _, st := range s.streams {
				n := st.delivered.Load()
				if dt > 0 {
					inst := float64(n-st.fpsPrev) / dt
					// Smooth over about one second.
					a := dt / (dt + 1)
					if st.fpsPrev == 0 {
						a = 1
					}
					st.fpsValue += a * (inst - st.fpsValue)
				}
				st.fpsPrev = n
			}
			s.pubMu.Unlock()
			s.publishState()
		}
	}
}

// publishState builds the state message and wakes the clients.
func (s *Server) publishState() {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	var seq uint64 = 1
	if old := s.state.Load(); old != nil {
		seq = old.seq + 1
	}
	js := stateJSON{Type: "state", Seq: seq, Status: "Streaming", Loop: s.loop.Load(), Scheme: s.scheme.Load(), Error: s.lastErr(), Speed: 1, CloudFull: s.cloudFull.Load()}
	var stats map[int]playbackStats
	if s.pb != nil {
		js.Ended = s.ended.Load()
		js.Status = s.pb.Status().String()
		js.PositionNs = int64(s.pb.Position())
		if js.Ended {
			// The stopped device has rewound; the last frame, still on
			// view, is at the end.
			js.PositionNs = int64(s.pb.Duration())
		}
		js.Speed = s.speed()
		js.Outputs = s.outputsAt(js.PositionNs)
		stats = map[int]playbackStats{}
		for _, ps := range s.pb.Stats() {
			stats[ps.Profile.UID] = playbackStats{ps.Dropped, ps.Lost}
		}
	}
	for _, st := range s.streams {
		ss := stateStream{ID: st.id, Delivered: st.delivered.Load(), FPS: round2(st.fpsValue), Off: st.off.Load()}
		if ps, ok := stats[st.profile().UID]; ok {
			ss.Dropped, ss.Lost = ps.dropped, ps.lost
		} else {
			ss.Dropped = st.frameGaps()
		}
		if f := st.latest.Load(); f != nil {
			ss.Number = f.Number
			if st.kind == kindPose {
				p := f.Pose
				ss.Pose = &p
			}
		}
		if st.kind == kindMotion {
			for _, smp := range st.takeSamples() {
				ss.Samples = append(ss.Samples, [4]float64{smp.T, float64(smp.X), float64(smp.Y), float64(smp.Z)})
			}
			st.smu.Lock()
			ss.Skipped = st.skipped
			st.smu.Unlock()
		}
		js.Streams = append(js.Streams, ss)
	}
	js.Options = s.optionValues()
	js.Filters, js.Colorizer = s.filterValues()
	js.Recording, js.CanRecord = s.recordingState(), s.pb == nil && s.recordDir != ""
	b, err := json.Marshal(js)
	if err != nil {
		// A NaN in a recorded pose or option: drop the values, keep the rest.
		for i := range js.Streams {
			js.Streams[i].Pose, js.Streams[i].Samples = nil, nil
		}
		js.Options = nil
		b, _ = json.Marshal(js)
	}
	s.state.Store(&stateMsg{seq: seq, msg: b})
	s.wakeClients()
}

type playbackStats struct{ dropped, lost uint64 }

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// optionValues reads every option of every sensor: a playback sensor returns
// the value in effect at the current position.
func (s *Server) optionValues() []stateOption {
	out := []stateOption{}
	for i, sn := range s.dev.Sensors() {
		o, ok := sn.(extensions.Options)
		if !ok {
			continue
		}
		ids := o.SupportedOptions()
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		for _, id := range ids {
			v, err := o.Option(id)
			if err != nil || v != v { // unreadable or NaN
				continue
			}
			out = append(out, stateOption{Sensor: i, ID: int32(id), Value: v})
		}
	}
	return out
}
