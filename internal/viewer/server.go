package viewer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

//go:embed assets
var assets embed.FS

// Config says what a Server shows.
type Config struct {
	// Device is the device to show: a *playback.Device plays a bag with
	// the timeline controls; any other device (a live or synthetic
	// camera) is shown as it streams. The Server opens and starts the
	// sensors that hold Profiles and stops and closes them in Close; it
	// does not close the device.
	Device device.Device
	// Profiles are the streams to show. Nil shows every recorded stream
	// of a playback device; it is required for other devices.
	Profiles []*sensor.StreamProfile
	// Loop plays the bag again from the start when it ends (also set
	// from the page).
	Loop bool
	// StatePeriod is how often the state message is sent (default 100 ms).
	StatePeriod time.Duration
}

// A Server plays a device for browsers. Create it with Start, serve it with
// Serve, stop it with Close.
type Server struct {
	dev     device.Device
	pb      *playback.Device // nil for a camera
	streams []*stream
	primary *stream // the stream that step and the timeline follow
	sensors []sensor.Sensor
	period  time.Duration

	hello []byte // the hello message, fixed at start

	ctl       sync.Mutex // serializes playback commands
	loop      atomic.Bool
	scheme    atomic.Int32
	closing   atomic.Bool
	ended     atomic.Bool // the bag ended and did not loop
	frameSeq  atomic.Uint64
	speedBits atomic.Uint64 // float64 bits of the speed set last

	clientsMu sync.Mutex
	clients   map[*client]struct{}
	pngUsers  atomic.Int32 // clients that want PNG pictures

	pubMu sync.Mutex // serializes publishState and the fps figures
	state atomic.Pointer[stateMsg]
	errMu sync.Mutex
	err   string // the last playback error, shown on the page

	done chan struct{}
	wg   sync.WaitGroup
}

// Start opens and starts the streams of cfg.Device and returns the Server
// showing them.
func Start(cfg Config) (*Server, error) {
	if cfg.Device == nil {
		return nil, errors.New("viewer: no device")
	}
	s := &Server{
		dev:     cfg.Device,
		period:  cfg.StatePeriod,
		clients: map[*client]struct{}{},
		done:    make(chan struct{}),
	}
	if s.period <= 0 {
		s.period = 100 * time.Millisecond
	}
	s.loop.Store(cfg.Loop)
	s.pb, _ = cfg.Device.(*playback.Device)
	profiles := cfg.Profiles
	if profiles == nil {
		if s.pb == nil {
			return nil, errors.New("viewer: the streams of a camera must be given")
		}
		for _, sn := range cfg.Device.Sensors() {
			profiles = append(profiles, sn.Profiles()...)
		}
	}
	if len(profiles) == 0 {
		return nil, errors.New("viewer: the device has no stream to show")
	}
	bySensor, err := s.addStreams(profiles)
	if err != nil {
		return nil, err
	}
	s.hello, err = s.helloMessage()
	if err != nil {
		return nil, err
	}
	if s.pb != nil {
		s.pb.OnStatusChange(s.statusChanged)
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.indexPrimary() }()
	}
	for _, sn := range s.sensors {
		if err := sn.Open(bySensor[sn]...); err != nil {
			s.closeSensors()
			return nil, fmt.Errorf("viewer: open %s: %w", sensorName(sn), err)
		}
	}
	for _, st := range s.streams {
		if st.kind == kindVideo {
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.encodeLoop(st) }()
		}
	}
	if err := s.startSensors(); err != nil {
		s.shutdown()
		return nil, err
	}
	s.publishState()
	s.wg.Add(1)
	go func() { defer s.wg.Done(); s.stateLoop() }()
	return s, nil
}

// addStreams makes the streams of profiles and finds their sensors.
func (s *Server) addStreams(profiles []*sensor.StreamProfile) (map[sensor.Sensor][]*sensor.StreamProfile, error) {
	bySensor := map[sensor.Sensor][]*sensor.StreamProfile{}
	for _, p := range profiles {
		si, sn := -1, sensor.Sensor(nil)
		for i, cand := range s.dev.Sensors() {
			for _, q := range cand.Profiles() {
				if q == p {
					si, sn = i, cand
				}
			}
		}
		if sn == nil {
			return nil, fmt.Errorf("viewer: stream %v is not a profile of the device", p)
		}
		if _, ok := bySensor[sn]; !ok {
			s.sensors = append(s.sensors, sn)
		}
		bySensor[sn] = append(bySensor[sn], p)
		st := newStream(len(s.streams), si, p)
		s.streams = append(s.streams, st)
	}
	// The primary stream is the depth stream, else the first video stream,
	// else the first stream.
	for _, st := range s.streams {
		if st.kind == kindVideo && (s.primary == nil || st.profile.Stream == sensor.StreamDepth && s.primary.profile.Stream != sensor.StreamDepth) {
			s.primary = st
		}
	}
	if s.primary == nil {
		s.primary = s.streams[0]
	}
	return bySensor, nil
}

func (s *Server) startSensors() error {
	h := sensor.HandlerFunc(s.handle)
	for i, sn := range s.sensors {
		if err := sn.Start(h); err != nil {
			for _, t := range s.sensors[:i] {
				t.Stop()
			}
			return fmt.Errorf("viewer: start %s: %w", sensorName(sn), err)
		}
	}
	return nil
}

func (s *Server) closeSensors() {
	for _, sn := range s.sensors {
		sn.Stop()
		sn.Close()
	}
}

// handle is the frame handler of every sensor: it keeps the frame and wakes
// the stream's encoder. It never waits.
func (s *Server) handle(f *sensor.Frame) {
	if f == nil || f.Profile == nil {
		return
	}
	for _, st := range s.streams {
		if st.profile == f.Profile || st.profile.UID == f.Profile.UID {
			var bagTime int64 = -1
			if s.pb != nil && st == s.primary {
				bagTime = int64(s.pb.Position())
			}
			st.put(f, bagTime, s.frameSeq.Add(1))
			return
		}
	}
}

// statusChanged restarts a bag that ended when looping.
func (s *Server) statusChanged(st extensions.PlaybackStatus) {
	if st != extensions.StatusStopped || s.closing.Load() {
		return
	}
	if err := s.pb.Err(); err != nil {
		s.setErr(err)
	}
	if !s.loop.Load() {
		s.ended.Store(true)
		return
	}
	// Start from another goroutine: the callback runs on the device's.
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.ctl.Lock()
		defer s.ctl.Unlock()
		if s.closing.Load() || s.pb.Status() != extensions.StatusStopped {
			return
		}
		if err := s.startSensors(); err != nil {
			s.setErr(err)
		}
	}()
}

func (s *Server) setErr(err error) {
	s.errMu.Lock()
	s.err = err.Error()
	s.errMu.Unlock()
}

func (s *Server) lastErr() string {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// Serve serves the viewer on ln until ctx is done or Close is called.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler(ln.Addr()),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          nil,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case <-s.done:
	case err := <-errc:
		return err
	}
	// Closing the clients ends their handlers; Shutdown then returns.
	s.dropClients()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) {
		return e
	}
	return err
}

// Close stops and closes the streams and ends every goroutine of the
// server. It does not close the device.
func (s *Server) Close() error {
	if s.closing.Swap(true) {
		return nil
	}
	s.shutdown()
	return nil
}

func (s *Server) shutdown() {
	s.closing.Store(true)
	s.ctl.Lock()
	s.closeSensors()
	s.ctl.Unlock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.dropClients()
	s.wg.Wait()
}

// handler routes the requests: the page, its two assets and the WebSocket.
// Nothing else is served.
func (s *Server) handler(addr net.Addr) http.Handler {
	static, _ := fs.Sub(assets, "assets")
	files := map[string]string{
		"/":          "index.html",
		"/app.js":    "app.js",
		"/style.css": "style.css",
	}
	types := map[string]string{
		".html": "text/html; charset=utf-8",
		".js":   "text/javascript; charset=utf-8",
		".css":  "text/css; charset=utf-8",
	}
	loopback := isLoopback(addr)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopback && !loopbackHost(r.Host) {
			http.Error(w, "forbidden host", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		if r.URL.Path == "/ws" {
			s.serveWS(w, r)
			return
		}
		name, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		b, err := fs.ReadFile(static, name)
		if err != nil {
			http.Error(w, "missing asset", http.StatusInternalServerError)
			return
		}
		h.Set("Content-Type", types[name[strings.LastIndexByte(name, '.'):]])
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; style-src 'self'; script-src 'self'")
		w.Write(b)
	})
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// loopbackHost reports whether a request's Host names the loopback
// interface: a page from another site that resolves its own name to
// 127.0.0.1 (DNS rebinding) is refused.
func loopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func sensorName(s sensor.Sensor) string {
	if n := s.Info()[sensor.CameraInfoName]; n != "" {
		return n
	}
	return "sensor"
}
