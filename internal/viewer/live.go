package viewer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	s.recMu.Lock()
	busy := s.rec != nil && s.rec.rec != nil
	s.recMu.Unlock()
	if busy {
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
			if st.profile == p && !st.off.Load() {
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

// player is a recording opened for playback from the page: a viewer of its
// own on another port of the address the camera's viewer listens on.
type player struct {
	srv    *Server
	dev    *playback.Device
	cancel context.CancelFunc
	served chan struct{}
}

// openRecording serves the last recording for playback (paused at its
// first frames) on a free port of the address this viewer listens on, with
// the same token and host names, and returns the URLs of its page. The
// player stops when this viewer does.
func (s *Server) openRecording() ([]string, error) {
	s.recMu.Lock()
	r, addr, failed := s.rec, s.addr, s.recDone.Error != ""
	s.recMu.Unlock()
	if r == nil || r.rec != nil || failed {
		return nil, errors.New("play the recording: no finished recording yet")
	}
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil, errors.New("play the recording: the viewer is not served on TCP")
	}
	dev, err := playback.Open(r.path, nil)
	if err != nil {
		return nil, fmt.Errorf("play the recording: %w", err)
	}
	srv, err := Start(Config{Device: dev, Token: s.token, Hosts: s.hosts})
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("play %s: %w", r.path, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ta.IP.String(), "0"))
	if err != nil {
		srv.Close()
		dev.Close()
		return nil, fmt.Errorf("play %s: %w", r.path, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &player{srv: srv, dev: dev, cancel: cancel, served: make(chan struct{})}
	go func() {
		defer close(p.served)
		if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
			s.setErr(fmt.Errorf("play %s: %w", r.path, err))
		}
	}()
	s.recMu.Lock()
	s.players = append(s.players, p)
	s.recMu.Unlock()
	return srv.PageURLs(ln.Addr()), nil
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
	s.recMu.Lock()
	recording := s.rec != nil && s.rec.rec != nil
	s.recMu.Unlock()
	if recording {
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
