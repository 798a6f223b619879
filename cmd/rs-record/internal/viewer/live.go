package viewer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
)

// setOption sets an option of a camera's sensor.
func (s *Server) setOption(si, id int, v float64) error {
	if s.pb != nil {
		return errors.New("a bag's options are as recorded; only a camera's can be set")
	}
	sensors := s.dev.Sensors()
	if si < 0 || si >= len(sensors) {
		return fmt.Errorf("no sensor %d", si)
	}
	o, ok := sensors[si].(extensions.Options)
	opt := sensor.Option(id)
	if !ok || !slices.Contains(o.SupportedOptions(), opt) {
		return fmt.Errorf("sensor %d (%s) has no option %d", si, sensorName(sensors[si]), id)
	}
	if o.OptionReadOnly(opt) {
		return fmt.Errorf("%s: %s is read-only", sensorName(sensors[si]), opt)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s = %v: not a number", sensorName(sensors[si]), opt, v)
	}
	if err := o.SetOption(opt, float32(v)); err != nil {
		return fmt.Errorf("%s: %w", sensorName(sensors[si]), err)
	}
	return nil
}

// maxRecordName bounds the length of a recording's file name.
const maxRecordName = 200

// recording is a recording of the camera started from the page.
type recording struct {
	rec     *record.Device
	file    *outfile.File
	path    string
	started time.Time
	raw     []sensor.Sensor // the camera's sensors the viewer streams without recording
}

// stateRecording is the recording in the state message.
type stateRecording struct {
	File    string  `json:"file"`              // its name in the directory view was started in
	Active  bool    `json:"active"`            // still recording
	Bytes   int64   `json:"bytes"`             // written so far
	Seconds float64 `json:"seconds"`           // recorded so far (or in all, once stopped)
	Dropped uint64  `json:"dropped,omitempty"` // frames the recorder dropped
	Error   string  `json:"error,omitempty"`
}

// recordPath returns the path of a recording named name: a plain file name
// (".bag" added when missing) in the record directory, which it cannot
// leave, of a file that does not exist yet.
func (s *Server) recordPath(name string) (string, error) {
	if s.recordDir == "" {
		return "", errors.New("recording is off: rs-record view records only a camera, into the directory it was started in")
	}
	if !strings.HasSuffix(name, ".bag") {
		name += ".bag"
	}
	switch {
	case name == ".bag":
		return "", errors.New("record: give the recording a file name")
	case len(name) > maxRecordName:
		return "", fmt.Errorf("record: a file name of %d bytes; at most %d", len(name), maxRecordName)
	case strings.ContainsAny(name, `/\`+"\x00") || strings.HasPrefix(name, ".") || filepath.Base(name) != name || !filepath.IsLocal(name):
		return "", fmt.Errorf("record: %q is not a plain file name (no folder, not starting with a dot): the recording goes into the directory rs-record view was started in", name)
	}
	path := filepath.Join(s.recordDir, name)
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("record: %s exists; choose another name", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("record: %w", err)
	}
	return path, nil
}

// startRecording records the camera into name: the viewer's streams are
// restarted through the recorder (rs-record record's), which writes the bag
// under a temporary name until it is complete.
func (s *Server) startRecording(name string) error {
	if s.pb != nil {
		return errors.New("record: a bag is playing; only a camera is recorded")
	}
	path, err := s.recordPath(name)
	if err != nil {
		return err
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.recording() {
		return errors.New("record: already recording; stop first")
	}
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	rec, err := record.NewWriter(s.dev, f, s.recordOpts)
	if err != nil {
		f.Abort()
		return fmt.Errorf("record %s: %w", path, err)
	}
	raw := s.sensors
	s.closeSensors()
	wrapped := rec.Sensors()
	var recSensors []sensor.Sensor
	for _, sn := range raw {
		recSensors = append(recSensors, wrapped[slices.Index(s.dev.Sensors(), sn)])
	}
	s.sensors = recSensors
	if err := s.openSensors(); err == nil {
		err = s.startSensors()
		if err == nil {
			s.recMu.Lock()
			s.rec = &recording{rec: rec, file: f, path: path, started: time.Now(), raw: raw}
			s.recMu.Unlock()
			return nil
		}
		s.closeSensors()
	} else {
		s.closeSensors()
	}
	rec.Close()
	f.Abort()
	s.sensors = raw
	if rerr := s.openSensors(); rerr == nil {
		s.startSensors()
	}
	return fmt.Errorf("record %s: %w", path, err)
}

// shownProfiles are the profiles of the streams of sensor i of s.sensors
// that are not stopped.
func (s *Server) shownProfiles(i int) []*sensor.StreamProfile {
	var out []*sensor.StreamProfile
	for _, p := range s.bySensor[s.raw[i]] {
		for _, st := range s.streams {
			if st.profile() == p && !st.off.Load() {
				out = append(out, p)
			}
		}
	}
	return out
}

// openSensors opens s.sensors with the profiles of the viewer's streams
// that are not stopped.
func (s *Server) openSensors() error {
	for i, sn := range s.sensors {
		ps := s.shownProfiles(i)
		if len(ps) == 0 {
			continue
		}
		if err := sn.Open(ps...); err != nil {
			for _, t := range s.sensors[:i] {
				t.Close()
			}
			return fmt.Errorf("open %s: %w", sensorName(sn), err)
		}
	}
	return nil
}

// stopRecording ends the recording: the bag is finalized and given its
// name, and the viewer streams the camera again without recording.
func (s *Server) stopRecording() error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	return s.stopRecordingLocked(true)
}

func (s *Server) stopRecordingLocked(restart bool) error {
	s.recMu.Lock()
	r := s.rec
	s.recMu.Unlock()
	if r == nil || r.rec == nil {
		return errors.New("record: not recording")
	}
	s.closeSensors()
	elapsed := time.Since(r.started)
	stats := r.rec.Stats()
	err := r.rec.Close()
	if err == nil {
		err = r.file.Commit()
	} else {
		r.file.Abort()
	}
	final := stats
	if err == nil {
		if fi, serr := os.Stat(r.path); serr == nil {
			final.FileSize = fi.Size()
		}
	}
	s.recMu.Lock()
	s.rec = &recording{path: r.path, started: r.started}
	s.recDone = stateRecording{File: filepath.Base(r.path), Bytes: final.FileSize, Seconds: elapsed.Seconds(), Dropped: stats.Dropped}
	if err != nil {
		s.recDone.Error = err.Error()
	}
	s.recMu.Unlock()
	s.sensors = r.raw
	if restart {
		if oerr := s.openSensors(); oerr != nil {
			err = errors.Join(err, oerr)
		} else if serr := s.startSensors(); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	if err != nil {
		return fmt.Errorf("record %s: %w", r.path, err)
	}
	return nil
}

// recording reports whether a recording is under way.
func (s *Server) recording() bool {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	return s.rec != nil && s.rec.rec != nil
}

// recordingState is the recording for the state message, nil before the
// first.
func (s *Server) recordingState() *stateRecording {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.rec == nil {
		return nil
	}
	if s.rec.rec == nil {
		d := s.recDone
		return &d
	}
	st := s.rec.rec.Stats()
	out := &stateRecording{File: filepath.Base(s.rec.path), Active: true, Bytes: st.FileSize, Seconds: time.Since(s.rec.started).Seconds(), Dropped: st.Dropped}
	if st.Err != nil {
		out.Error = st.Err.Error()
	}
	return out
}

// player is a recording opened for playback, or another camera, from the
// page: a viewer of its own on another port of the address the first
// viewer listens on.
type player struct {
	srv    *Server
	dev    io.Closer
	cancel context.CancelFunc
	served chan struct{}
}

// openRecording serves the last recording for playback (paused at its
// first frames) on a free port of the address this viewer listens on, with
// the same token and host names, and returns the URLs of its page. The
// player stops when this viewer does.
func (s *Server) openRecording() ([]string, error) {
	s.recMu.Lock()
	r, failed := s.rec, s.recDone.Error != ""
	s.recMu.Unlock()
	if r == nil || r.rec != nil || failed {
		return nil, errors.New("play the recording: no finished recording yet")
	}
	dev, err := playback.Open(r.path, nil)
	if err != nil {
		return nil, fmt.Errorf("play the recording: %w", err)
	}
	urls, err := s.serveAside(Config{Device: dev}, dev)
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("play %s: %w", r.path, err)
	}
	return urls, nil
}

// serveAside starts a viewer of cfg (with this viewer's token and host
// names) on a free port of the address this viewer listens on and returns
// the URLs of its page. It and dev stop when this viewer does; dev is left
// open on error.
func (s *Server) serveAside(cfg Config, dev io.Closer) ([]string, error) {
	s.recMu.Lock()
	addr := s.addr
	s.recMu.Unlock()
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil, errors.New("the viewer is not served on TCP")
	}
	cfg.Token, cfg.Hosts, cfg.pool = s.token, s.hosts, s.cams // a camera's page switches cameras too
	srv, err := Start(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ta.IP.String(), "0"))
	if err != nil {
		srv.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &player{srv: srv, dev: dev, cancel: cancel, served: make(chan struct{})}
	go func() {
		defer close(p.served)
		if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
			s.setErr(err)
		}
	}()
	s.recMu.Lock()
	s.players = append(s.players, p)
	s.recMu.Unlock()
	return srv.PageURLs(ln.Addr()), nil
}

// Camera is an attached camera a page may switch to.
type Camera struct {
	Serial string `json:"serial"`
	Name   string `json:"name"`
}

// Cameras are the attached cameras a camera's page may switch to.
type Cameras interface {
	// List returns the cameras attached now.
	List(ctx context.Context) ([]Camera, error)
	// Open opens the camera with the serial number and returns the
	// Config that shows it: its Device (closed by the viewer that shows
	// it, when the first viewer closes), Profiles and, to record it,
	// RecordDir and RecordOptions.
	Open(ctx context.Context, serial string) (Config, error)
}

// cameraPool is shared by the viewer of the first camera and those of the
// cameras its pages switched to: each camera is shown by one viewer, on
// its own port, all of them stopped with the first.
type cameraPool struct {
	cams  Cameras
	first *Server
	mu    sync.Mutex          // serializes the opening of cameras
	urls  map[string][]string // serial → page URLs of the viewer showing it
}

// show registers the viewer s of the camera with serial, served at addr.
func (cp *cameraPool) show(s *Server, serial string, addr net.Addr) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if _, ok := cp.urls[serial]; !ok {
		cp.urls[serial] = s.PageURLs(addr)
	}
}

// cameraList lists the attached cameras, for the page's camera choice.
func (s *Server) cameraList() ([]Camera, error) {
	if s.cams == nil {
		return nil, errNoCameras
	}
	ctx, cancel := context.WithTimeout(context.Background(), cameraTimeout)
	defer cancel()
	cams, err := s.cams.cams.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the cameras: %w", err)
	}
	return cams, nil
}

var errNoCameras = errors.New("choosing a camera is for a camera's viewer (rs-record view without BAG)")

// cameraTimeout bounds listing and opening a camera from the page.
const cameraTimeout = 30 * time.Second

// openCamera returns the URLs of the page of the camera with serial: the
// viewer already showing it, or a new one, on another port, of that camera
// opened now.
func (s *Server) openCamera(serial string) ([]string, error) {
	cp := s.cams
	if cp == nil {
		return nil, errNoCameras
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if urls, ok := cp.urls[serial]; ok {
		return urls, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cameraTimeout)
	defer cancel()
	cams, err := cp.cams.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the cameras: %w", err)
	}
	if !slices.ContainsFunc(cams, func(c Camera) bool { return c.Serial == serial }) {
		var have []string
		for _, c := range cams {
			have = append(have, c.Serial)
		}
		return nil, fmt.Errorf("camera %q: none attached has that serial number (attached: %s)", serial, strings.Join(have, ", "))
	}
	cfg, err := cp.cams.Open(ctx, serial)
	if err != nil {
		return nil, fmt.Errorf("open camera %s: %w", serial, err)
	}
	cfg.StatePeriod = s.period
	urls, err := cp.first.serveAside(cfg, cfg.Device)
	if err != nil {
		cfg.Device.Close()
		return nil, fmt.Errorf("show camera %s: %w", serial, err)
	}
	cp.urls[serial] = urls
	return urls, nil
}

// closePlayers stops the players of recordings.
func (s *Server) closePlayers() {
	s.recMu.Lock()
	ps := s.players
	s.players = nil
	s.recMu.Unlock()
	for _, p := range ps {
		p.cancel()
		<-p.served
		p.srv.Close()
		p.dev.Close()
	}
}

// setStream starts or stops stream id of a camera: the sensors are stopped
// and opened again with the streams that stay on.
func (s *Server) setStream(id int, on bool) error {
	if s.pb != nil {
		return errors.New("a bag plays every recorded stream; only a camera's streams are started and stopped")
	}
	if id < 0 || id >= len(s.streams) {
		return fmt.Errorf("no stream %d", id)
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.recording() {
		return errors.New("stop recording before starting or stopping a stream")
	}
	st := s.streams[id]
	if st.off.Load() == !on {
		return nil
	}
	s.closeSensors()
	st.off.Store(!on)
	err := s.openSensors()
	if err == nil {
		err = s.startSensors()
	}
	if err != nil {
		return fmt.Errorf("restart the streams: %w", err)
	}
	return nil
}

// profileChoices are the profiles a camera's stream st may be switched to:
// its sensor's profiles of the same stream and index, and for the depth
// stream the point cloud and the filters follow, Z16 ones only.
func (s *Server) profileChoices(st *stream) []*sensor.StreamProfile {
	cur := st.profile()
	var out []*sensor.StreamProfile
	for _, q := range s.dev.Sensors()[st.sensor].Profiles() {
		if q.Kind != cur.Kind || q.Stream != cur.Stream || q.Index != cur.Index {
			continue
		}
		if st == s.primary && cur.Format == sensor.FormatZ16 && q.Format != sensor.FormatZ16 {
			continue
		}
		out = append(out, q)
	}
	return out
}

// setProfile switches a camera's stream id to the profile of index pi in
// its profileChoices: the sensors are stopped, opened again with it and
// started, and every page is sent the new hello. A profile the sensor
// refuses leaves the stream as it was.
func (s *Server) setProfile(id, pi int) error {
	if s.pb != nil {
		return errors.New("a bag plays its streams as recorded; only a camera's profiles are chosen")
	}
	if id < 0 || id >= len(s.streams) {
		return fmt.Errorf("no stream %d", id)
	}
	st := s.streams[id]
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.recording() {
		return errors.New("stop recording before choosing a profile")
	}
	choices := s.profileChoices(st)
	if pi < 0 || pi >= len(choices) {
		return fmt.Errorf("stream %s: no profile %d (%d to choose from)", st.name, pi, len(choices))
	}
	old, p := st.profile(), choices[pi]
	if p == old {
		return nil
	}
	sn := s.dev.Sensors()[st.sensor]
	s.closeSensors()
	swap := func(from, to *sensor.StreamProfile) {
		ps := s.bySensor[sn]
		ps[slices.Index(ps, from)] = to
		st.prof.Store(to)
	}
	swap(old, p)
	err := s.openSensors()
	if err == nil {
		err = s.startSensors()
		if err != nil {
			s.closeSensors()
		}
	}
	if err != nil {
		swap(p, old)
		if rerr := s.openSensors(); rerr == nil {
			s.startSensors()
		}
		return fmt.Errorf("stream %s: %v %dx%d@%d: %w", st.name, p.Format, p.Width, p.Height, p.FPS, err)
	}
	if err := s.makeHello(); err != nil {
		return err
	}
	s.wakeClients()
	return nil
}
