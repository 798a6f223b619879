package viewer

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/record"
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
	// Autoplay plays a bag at once. Without it the bag opens paused at the
	// first frame of the primary stream (each stream's current picture
	// there on view) until a page presses play.
	Autoplay bool
	// StatePeriod is how often the state message is sent (default 100 ms).
	StatePeriod time.Duration
	// Token guards a server that listens beyond loopback: the page, its
	// assets and the WebSocket are served only to requests that carry it
	// (?token= in the URL, or the cookie the page sets). Serve refuses a
	// listener beyond loopback without it; on loopback it is not asked.
	Token string
	// RecordDir is the directory into which a page may record a camera
	// (rs-record view: the directory it was started in); "" refuses
	// recording. A page names only a file in it.
	RecordDir string
	// RecordOptions are the recorder's options (rs-record record's).
	RecordOptions *record.Options
	// Cameras, for a camera, lets a page switch to another attached
	// camera: it is shown by a viewer of its own on another port (nil:
	// the page shows this camera only).
	Cameras Cameras
	// Hosts are further names (beyond the listened address, the machine's
	// addresses and host name, and the loopback names) by which the page
	// may be reached beyond loopback: the Host check refuses any other.
	Hosts []string

	pool *cameraPool // the pool of the viewer that opened this one
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
	token   string
	hosts   []string

	hello atomic.Pointer[[]byte] // the hello message, made again when a camera's stream changes profile

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

	texture    *stream               // the stream that colors the point cloud (color, else infrared), or nil
	col        *processing.Colorizer // colorizes depth for every page
	cloudUsers atomic.Int32          // clients that show the point cloud
	cloudWake  chan struct{}         // wakes the cloud loop
	cloudFull  atomic.Bool           // the cloud is sent with every vertex
	procVer    atomic.Uint64         // counts the changes of the filters and the colorizer
	filters    *filterChain          // of the primary stream when it is Z16 depth
	truth      *truthIndex           // a bag's frames with ground truth, nil without
	outputs    []unitTopic           // the unit outputs recorded in a bag, by topic

	bySensor   map[sensor.Sensor][]*sensor.StreamProfile // the profiles shown, by sensor of the device
	raw        []sensor.Sensor                           // the device's sensors that stream, in the order of s.sensors
	recordDir  string
	recordOpts *record.Options
	recMu      sync.Mutex
	rec        *recording     // the recording under way (rec set) or the last one, nil before the first
	recDone    stateRecording // the last recording, once stopped
	addr       net.Addr       // where Serve listens
	players    []*player      // the recordings and cameras opened from the page
	cams       *cameraPool    // the cameras a page may switch to, nil when none

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
		token:   cfg.Token,
		hosts:   cfg.Hosts,
		clients: map[*client]struct{}{},
		done:    make(chan struct{}),
		col:     processing.NewColorizer(),

		recordDir:  cfg.RecordDir,
		recordOpts: cfg.RecordOptions,

		cloudWake: make(chan struct{}, 1),
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
	s.bySensor = bySensor
	s.raw = append([]sensor.Sensor(nil), s.sensors...)
	if s.primary.profile().Format == sensor.FormatZ16 {
		if s.filters, err = newFilterChain(s.dev.Sensors()[s.primary.sensor]); err != nil {
			return nil, fmt.Errorf("viewer: %w", err)
		}
	}
	switch {
	case s.pb != nil:
	case cfg.pool != nil:
		s.cams = cfg.pool
	case cfg.Cameras != nil:
		s.cams = &cameraPool{cams: cfg.Cameras, first: s, urls: map[string][]string{}}
	}
	if s.pb != nil {
		if err := s.loadOutputs(); err != nil {
			s.setErr(err) // the streams still play
		}
	}
	if err := s.makeHello(); err != nil {
		return nil, err
	}
	if s.pb != nil {
		s.pb.OnStatusChange(s.statusChanged)
		s.startTruth()
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
	if s.primary.kind == kindVideo {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.filterLoop(s.primary) }()
	}
	if s.primary.profile().Format == sensor.FormatZ16 {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.cloudLoop(s.primary) }()
	}
	if s.pb != nil && !cfg.Autoplay {
		// Pausing the stopped device makes the start wait for a play.
		if err := s.pb.Pause(); err != nil {
			s.shutdown()
			return nil, fmt.Errorf("viewer: %w", err)
		}
	}
	if err := s.startSensors(); err != nil {
		s.shutdown()
		return nil, err
	}
	if s.pb != nil && !cfg.Autoplay {
		s.showFirst()
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
		if st.kind == kindVideo && (s.primary == nil || st.profile().Stream == sensor.StreamDepth && s.primary.profile().Stream != sensor.StreamDepth) {
			s.primary = st
		}
	}
	if s.primary == nil {
		s.primary = s.streams[0]
	}
	for _, want := range []sensor.Stream{sensor.StreamInfrared, sensor.StreamColor} {
		for _, st := range s.streams {
			if st.kind == kindVideo && st.profile().Stream == want && (s.texture == nil || s.texture.profile().Stream != want) {
				s.texture = st
			}
		}
	}
	return bySensor, nil
}

func (s *Server) startSensors() error {
	h := sensor.HandlerFunc(s.handle)
	for i, sn := range s.sensors {
		if len(s.shownProfiles(i)) == 0 {
			continue // every stream of the sensor was stopped from the page
		}
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
		if st.profile() == f.Profile || st.profile().UID == f.Profile.UID {
			var bagTime int64 = -1
			if s.pb != nil && st == s.primary {
				bagTime = int64(s.pb.Position())
			}
			st.put(f, bagTime, s.frameSeq.Add(1))
			if st == s.texture && s.cloudUsers.Load() > 0 && s.paused() {
				s.pokeCloud() // the cloud under view takes its new texture
			}
			return
		}
	}
}

// paused reports whether a bag is paused or stopped: the frames on view
// change only by the page's commands.
func (s *Server) paused() bool {
	return s.pb != nil && s.pb.Status() != extensions.StatusPlaying
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

// ErrNoToken reports a listener beyond loopback given to a Server without
// a token.
var ErrNoToken = errors.New("viewer: listening beyond loopback needs a token")

// Serve serves the viewer on ln until ctx is done or Close is called. A
// listener beyond loopback needs Config.Token.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !isLoopback(ln.Addr()) && s.token == "" {
		return fmt.Errorf("serve on %s: %w", ln.Addr(), ErrNoToken)
	}
	s.recMu.Lock()
	s.addr = ln.Addr()
	s.recMu.Unlock()
	if s.cams != nil && s.pb == nil {
		s.cams.show(s, s.dev.Info()[sensor.CameraInfoSerialNumber], ln.Addr())
	}
	hs := httpServer(s.handler(ln.Addr()))
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

// Timeouts of the HTTP server: a client has this long to send a request's
// headers, and an idle keep-alive connection is closed after idleTimeout.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 60 * time.Second
)

// httpServer is the HTTP server of the viewer around h.
func httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    16 << 10,
	}
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
	if s.recording() {
		if err := s.stopRecordingLocked(false); err != nil {
			s.setErr(err)
		}
	}
	s.closeSensors()
	s.ctl.Unlock()
	s.closePlayers()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.dropClients()
	s.wg.Wait()
}

// tokenCookie is the cookie in which the page keeps the token.
const tokenCookie = "rs-record-view-token"

// handler routes the requests: the page, its two assets and the WebSocket.
// Nothing else is served. Beyond loopback a request must name one of the
// server's hosts and carry the token.
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
	hosts := s.hostNames(addr)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) && (loopback || !hosts[hostName(r.Host)]) {
			http.Error(w, "forbidden host", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !loopback {
			tok, fromQuery := r.URL.Query().Get("token"), true
			if tok == "" {
				fromQuery = false
				if c, err := r.Cookie(tokenCookie); err == nil {
					tok = c.Value
				}
			}
			if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
				http.Error(w, "this viewer needs the token of its URL", http.StatusUnauthorized)
				return
			}
			if fromQuery {
				http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			}
		}
		if r.URL.Path == "/ws" {
			s.serveWS(w, r)
			return
		}
		if r.URL.Path == "/snapshot.ply" {
			s.servePLY(w, r)
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
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
		w.Write(b)
	})
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// hostName is the host of a request's Host header, without port or
// brackets, in lower case.
func hostName(host string) string {
	if hh, _, err := net.SplitHostPort(host); err == nil {
		host = hh
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// loopbackHost reports whether a request's Host names the loopback
// interface: a page from another site that resolves its own name to
// 127.0.0.1 (DNS rebinding) is refused.
func loopbackHost(host string) bool {
	h := hostName(host)
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// hostNames are the hosts a request may name on a listener beyond
// loopback at addr: its address (every address of the machine for an
// unspecified one), the machine's host name and Config.Hosts.
func (s *Server) hostNames(addr net.Addr) map[string]bool {
	names := map[string]bool{}
	for _, ip := range listenIPs(addr) {
		names[strings.ToLower(ip.String())] = true
	}
	if hn, err := os.Hostname(); err == nil {
		names[strings.ToLower(hn)] = true
	}
	for _, h := range s.hosts {
		names[hostName(h)] = true
	}
	return names
}

// listenIPs are the addresses a listener at addr is reached at: addr's
// own, or for an unspecified address every address of the machine's
// interfaces (IPv4 only for 0.0.0.0), IPv6 link-local ones left out.
func listenIPs(addr net.Addr) []net.IP {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	if !ta.IP.IsUnspecified() {
		return []net.IP{ta.IP}
	}
	v4only := ta.IP.To4() != nil
	ifas, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range ifas {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLinkLocalUnicast() || v4only && n.IP.To4() == nil {
			continue
		}
		ips = append(ips, n.IP)
	}
	return ips
}

// PageURLs are the URLs at which a browser opens the page of the server
// listening at addr: one per address it is reached at (every address of
// the machine for an unspecified one), the non-loopback ones first, and
// beyond loopback each with the token in its query.
func (s *Server) PageURLs(addr net.Addr) []string {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	port := strconv.Itoa(ta.Port)
	query := ""
	if !ta.IP.IsLoopback() {
		query = "?token=" + url.QueryEscape(s.token)
	}
	var urls, local []string
	for _, ip := range listenIPs(addr) {
		u := "http://" + net.JoinHostPort(ip.String(), port) + "/" + query
		if ip.IsLoopback() {
			local = append(local, u)
		} else {
			urls = append(urls, u)
		}
	}
	return append(urls, local...)
}

func sensorName(s sensor.Sensor) string {
	if n := s.Info()[sensor.CameraInfoName]; n != "" {
		return n
	}
	return "sensor"
}
