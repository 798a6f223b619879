package viewer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

const refDir = "../../../../testdata/librealsense"

type testServer struct {
	srv  *Server
	dev  *playback.Device
	url  string // http://127.0.0.1:port
	addr string
	ln   net.Addr // the listener's address
}

// startTest serves the bag at path on a free loopback port, paused at its
// first frame.
func startTest(t testing.TB, path string, loop bool) *testServer {
	t.Helper()
	return startOn(t, path, "127.0.0.1:0", Config{Loop: loop})
}

// playTest serves the bag at path on a free loopback port, playing.
func playTest(t testing.TB, path string, loop bool) *testServer {
	t.Helper()
	return startOn(t, path, "127.0.0.1:0", Config{Loop: loop, Autoplay: true})
}

// startOn serves the bag at path with cfg on a listener at addr.
func startOn(t testing.TB, path, addr string, cfg Config) *testServer {
	t.Helper()
	dev, err := playback.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Device = dev
	ts := serveTest(t, addr, cfg)
	ts.dev = dev
	return ts
}

// serveTest starts a Server with cfg on a listener at addr; the test's
// cleanup stops it and closes cfg.Device.
func serveTest(t testing.TB, addr string, cfg Config) *testServer {
	t.Helper()
	dev := cfg.Device
	srv, err := Start(cfg)
	if err != nil {
		dev.Close()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srv.Close()
		dev.Close()
	})
	a := ln.Addr().String()
	if ta := ln.Addr().(*net.TCPAddr); ta.IP.IsUnspecified() {
		a = net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port)) // reached through loopback
	}
	return &testServer{srv: srv, url: "http://" + a, addr: a, ln: ln.Addr()}
}

// wsClient is a page's WebSocket connection, as a test sees it.
type wsClient struct {
	t      testing.TB
	conn   *websocket.Conn
	ctx    context.Context
	hello  helloMsg
	state  stateJSON
	frames map[int]frameHeader // newest picture header per stream
	images map[int][]byte      // newest picture per stream
	tag    int64
	nState int
	cloud  []byte // the newest point cloud message
	nCloud int
	nHello int // hellos after the first
}

func dialWS(t testing.TB, ts *testServer, query string) *wsClient {
	t.Helper()
	ctx, cancel := await.Context(t, context.Background())
	t.Cleanup(cancel)
	conn, _, err := websocket.Dial(ctx, "ws://"+ts.addr+"/ws"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(64 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	c := &wsClient{t: t, conn: conn, ctx: ctx, frames: map[int]frameHeader{}, images: map[int][]byte{}}
	typ, b, err := conn.Read(ctx)
	if err != nil || typ != websocket.MessageText {
		t.Fatalf("first message: %v %v", typ, err)
	}
	if err := json.Unmarshal(b, &c.hello); err != nil || c.hello.Type != "hello" {
		t.Fatalf("first message is not a hello: %s (%v)", b, err)
	}
	return c
}

// next reads one message; it returns the reply when it is one.
func (c *wsClient) next() *reply {
	c.t.Helper()
	typ, b, err := c.conn.Read(c.ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if typ == websocket.MessageBinary {
		n := binary.LittleEndian.Uint32(b)
		var kind struct{ Kind string }
		if json.Unmarshal(b[4:4+n], &kind); kind.Kind == "cloud" {
			c.cloud = b
			c.nCloud++
			return nil
		}
		var h frameHeader
		if err := json.Unmarshal(b[4:4+n], &h); err != nil {
			c.t.Fatalf("frame header: %v", err)
		}
		c.frames[h.ID] = h
		c.images[h.ID] = b[4+n:]
		return nil
	}
	var probe struct{ Type string }
	json.Unmarshal(b, &probe)
	switch probe.Type {
	case "state":
		c.state = stateJSON{}
		if err := json.Unmarshal(b, &c.state); err != nil {
			c.t.Fatalf("state: %v", err)
		}
		c.nState++
	case "hello": // again after a stream changed profile
		c.hello = helloMsg{}
		if err := json.Unmarshal(b, &c.hello); err != nil {
			c.t.Fatalf("hello: %v", err)
		}
		c.nHello++
	case "reply":
		var r reply
		if err := json.Unmarshal(b, &r); err != nil {
			c.t.Fatalf("reply: %v", err)
		}
		return &r
	default:
		c.t.Fatalf("unexpected message %s", b)
	}
	return nil
}

// until reads messages until cond holds.
func (c *wsClient) until(what string, cond func() bool) {
	c.t.Helper()
	for !cond() {
		if c.ctx.Err() != nil {
			c.t.Fatalf("gave up waiting for %s", what)
		}
		c.next()
	}
}

// do sends a command and reads until its reply; then it reads until a state
// sent after the reply, so that c.state describes the result.
func (c *wsClient) do(cmd command) reply {
	c.t.Helper()
	c.tag++
	cmd.Tag = c.tag
	b, _ := json.Marshal(cmd)
	if err := c.conn.Write(c.ctx, websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
	for {
		if r := c.next(); r != nil && r.Tag == cmd.Tag {
			if r.Cmd != "hover" && r.Cmd != "ruler" {
				n := c.nState
				c.until("state after "+cmd.Cmd, func() bool { return c.nState > n })
			}
			return *r
		}
	}
}

func (c *wsClient) must(cmd command) {
	c.t.Helper()
	if r := c.do(cmd); r.Error != "" {
		c.t.Fatalf("%s: %s", cmd.Cmd, r.Error)
	}
}

func (c *wsClient) streamID(name string) int {
	for _, s := range c.hello.Streams {
		if s.Name == name {
			return s.ID
		}
	}
	c.t.Fatalf("no stream %s in %+v", name, c.hello.Streams)
	return -1
}

// shownNumber waits for the picture of frame number n of stream id. The
// frame under view is the newest picture; a paused server sends nothing
// newer.
func (c *wsClient) waitNumber(id int, n uint64) {
	c.t.Helper()
	c.until(fmt.Sprintf("picture of frame %d of stream %d", n, id), func() bool {
		h, ok := c.frames[id]
		return ok && h.Number == n
	})
}

// refFrames reads every frame of the bag through a lossless playback, with
// the bag time at which each was delivered.
type refFrame struct {
	f       *sensor.Frame
	bagTime time.Duration
}

func refFrames(t testing.TB, path string) map[string][]refFrame {
	t.Helper()
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	out := map[string][]refFrame{}
	done := make(chan struct{})
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			close(done)
		}
	})
	var ss []sensor.Sensor
	for _, sn := range dev.Sensors() {
		if err := sn.Open(sn.Profiles()...); err != nil {
			t.Fatal(err)
		}
		ss = append(ss, sn)
	}
	for _, sn := range ss {
		if err := sn.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			out[f.Profile.Name()] = append(out[f.Profile.Name()], refFrame{f, dev.Position()})
		})); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	return out
}

func TestPageAndAssets(t *testing.T) {
	ts := startTest(t, filepath.Join(refDir, "depth_color.bag"), false)
	for _, tc := range []struct {
		method, path, host string
		status             int
		contains           string
	}{
		{"GET", "/", "", 200, `<script src="/app.js"`},
		{"GET", "/app.js", "", 200, "new WebSocket"},
		{"GET", "/style.css", "", 200, "canvas"},
		{"HEAD", "/", "", 200, ""},
		{"POST", "/", "", 405, ""},
		{"GET", "/index.html", "", 404, ""},
		{"GET", "/../../../../etc/passwd", "", 404, ""},
		{"GET", "/%2e%2e/%2e%2e/etc/passwd", "", 404, ""},
		{"GET", "/assets/app.js", "", 404, ""},
		{"GET", "/" + filepath.Join(refDir, "depth_color.bag"), "", 404, ""},
		{"GET", "/", "evil.example:80", 403, ""},
		{"GET", "/", "localhost", 200, ""},
		{"GET", "/ws", "", 426, ""}, // not an upgrade
		{"GET", "/ws?codec=gif", "", 400, ""},
	} {
		req, err := http.NewRequest(tc.method, ts.url+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = tc.path // keep dots and escapes as sent
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s (Host %q): status %d, want %d", tc.method, tc.path, tc.host, resp.StatusCode, tc.status)
		}
		if tc.contains != "" && !bytes.Contains(body, []byte(tc.contains)) {
			t.Errorf("%s %s: body lacks %q", tc.method, tc.path, tc.contains)
		}
	}
	// A WebSocket from another origin is refused.
	ctx, cancel := await.Context(t, context.Background())
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws://"+ts.addr+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin WebSocket: err %v, response %v; want 403", err, resp)
	}
}

func TestHelloDescribesBag(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "")
	h := c.hello
	if !h.Playback || h.DurationNs != int64(ts.dev.Duration()) || h.File != path {
		t.Errorf("hello: playback %v duration %d file %q; want true %d %q", h.Playback, h.DurationNs, h.File, int64(ts.dev.Duration()), path)
	}
	var names []string
	for _, s := range h.Streams {
		names = append(names, fmt.Sprintf("%s %s %dx%d primary=%v", s.Name, s.Format, s.Width, s.Height, s.Primary))
	}
	want := []string{"Depth/0 Z16 424x240 primary=true", "Color/0 RGB8 424x240 primary=false"}
	if strings.Join(names, "; ") != strings.Join(want, "; ") {
		t.Errorf("streams %q, want %q", names, want)
	}
	if len(h.Sensors) != 2 || h.Device["Name"] == "" || len(h.Schemes) == 0 {
		t.Errorf("hello: %d sensors, device %v, schemes %v", len(h.Sensors), h.Device, h.Schemes)
	}
}

// pausedDepthColor serves depth_color.bag (paused at its first frame),
// connects and returns the connection, the bag's depth frames as lossless
// playback gives them and the depth stream's id.
func pausedDepthColor(t *testing.T) (*wsClient, []refFrame, int) {
	t.Helper()
	path := filepath.Join(refDir, "depth_color.bag")
	ref := refFrames(t, path)["Depth/0"]
	c := dialWS(t, startTest(t, path, false), "")
	depth := c.streamID("Depth/0")
	c.until("a state", func() bool { return c.nState > 0 })
	return c, ref, depth
}

// TestControls drives pause, step, step back and seek and checks the
// pictures and positions against a lossless playback of the same bag.
func TestControls(t *testing.T) {
	c, ref, depth := pausedDepthColor(t)
	if c.state.Status != "Paused" {
		t.Fatalf("status at the start: %s, want Paused", c.state.Status)
	}
	// Show a known frame: seek to the bag time of the 10th depth frame.
	c.must(command{Cmd: "seek", T: ref[10].bagTime.Seconds()})
	c.waitNumber(depth, ref[10].f.Number)
	if c.state.PositionNs != int64(ref[10].bagTime) {
		t.Errorf("position after seek %d, want %d", c.state.PositionNs, ref[10].bagTime)
	}
	// Pause holds the position.
	pos := c.state.PositionNs
	n := c.nState
	c.until("three more states", func() bool { return c.nState >= n+3 })
	if c.state.PositionNs != pos || c.state.Status != "Paused" {
		t.Errorf("paused position moved from %d to %d (%s)", pos, c.state.PositionNs, c.state.Status)
	}
	// Step forward: exactly the next depth frame.
	c.must(command{Cmd: "step", Dir: 1})
	c.waitNumber(depth, ref[11].f.Number)
	if c.state.PositionNs != int64(ref[11].bagTime) {
		t.Errorf("position after step %d, want %d", c.state.PositionNs, ref[11].bagTime)
	}
	// Step back twice.
	c.must(command{Cmd: "step", Dir: -1})
	c.waitNumber(depth, ref[10].f.Number)
	c.must(command{Cmd: "step", Dir: -1})
	c.waitNumber(depth, ref[9].f.Number)
	if c.state.PositionNs != int64(ref[9].bagTime) {
		t.Errorf("position after two steps back %d, want %d", c.state.PositionNs, ref[9].bagTime)
	}
	// Seek to a time between two frames: the current picture there, the
	// earlier frame, is shown (P.35).
	mid := (ref[20].bagTime + ref[21].bagTime) / 2
	c.must(command{Cmd: "seek", T: mid.Seconds()})
	c.waitNumber(depth, ref[20].f.Number)
	if got, want := c.frames[depth].Number, ref[20].f.Number; got != want {
		t.Errorf("frame %d, want %d", got, want)
	}
	// Stepping on from it shows the next frame.
	c.must(command{Cmd: "step", Dir: 1})
	c.waitNumber(depth, ref[21].f.Number)
	// Bad arguments are refused with a reason and change nothing.
	for _, bad := range []command{{Cmd: "seek", T: 99}, {Cmd: "seek", T: -1}, {Cmd: "speed", X: 0}, {Cmd: "speed", X: 8},
		{Cmd: "step", Dir: 2}, {Cmd: "scheme", Scheme: 99}, {Cmd: "explode"}, {Cmd: "hover", ID: 42}} {
		if r := c.do(bad); r.Error == "" {
			t.Errorf("%+v accepted", bad)
		}
	}
	if c.frames[depth].Number != ref[21].f.Number || c.state.Status != "Paused" {
		t.Errorf("bad commands changed the view: frame %d, %s", c.frames[depth].Number, c.state.Status)
	}
	// Play again and reach the end.
	c.must(command{Cmd: "speed", X: 4})
	c.must(command{Cmd: "play"})
	c.until("end of file", func() bool { return c.state.Ended })
	if c.state.Speed != 4 {
		t.Errorf("speed %v, want 4", c.state.Speed)
	}
}

func TestHoverDistance(t *testing.T) {
	c, ref, depth := pausedDepthColor(t)
	c.must(command{Cmd: "seek", T: ref[5].bagTime.Seconds()})
	c.waitNumber(depth, ref[5].f.Number)
	f := ref[5].f
	for _, p := range [][2]int{{0, 0}, {f.Width / 2, f.Height / 2}, {f.Width - 1, f.Height - 1}} {
		r := c.do(command{Cmd: "hover", ID: depth, X: float64(p[0]), Y: float64(p[1])})
		want := float64(binary.LittleEndian.Uint16(f.Data[p[1]*f.Stride+2*p[0]:])) * float64(f.DepthUnits)
		if r.Error != "" || r.Meters != want || r.Number != f.Number {
			t.Errorf("hover %v: %v m (frame %d, error %q), want %v m (frame %d)", p, r.Meters, r.Number, r.Error, want, f.Number)
		}
	}
	if r := c.do(command{Cmd: "hover", ID: depth, X: float64(f.Width), Y: 0}); !strings.Contains(r.Error, "outside") {
		t.Errorf("hover outside the frame: %q", r.Error)
	}
	if r := c.do(command{Cmd: "hover", ID: c.streamID("Color/0"), X: 1, Y: 1}); !strings.Contains(r.Error, "not Z16") {
		t.Errorf("hover on color: %q", r.Error)
	}
}

// TestOptionValuesFollowPosition: the options shown are those in effect at
// the position, as the playback device reports them. The bag is
// options_pause_notify's session recorded by rsbag, which records the option
// changes (librealsense's recording of it holds only the initial values).
func TestOptionValuesFollowPosition(t *testing.T) {
	path := recordReference(t, "options_pause_notify", nil)
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "")
	value := func() map[[2]int32]float32 {
		m := map[[2]int32]float32{}
		for _, o := range c.state.Options {
			m[[2]int32{int32(o.Sensor), o.ID}] = o.Value
		}
		return m
	}
	c.must(command{Cmd: "seek", T: 0})
	early := value()
	d := time.Duration(c.hello.DurationNs)
	lateAt := d - d/20
	c.must(command{Cmd: "seek", T: lateAt.Seconds()})
	late := value()
	// The reference: the playback device's own values at those positions.
	want := func(t0 time.Duration) map[[2]int32]float32 {
		dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		if err := dev.Seek(t0); err != nil {
			t.Fatal(err)
		}
		m := map[[2]int32]float32{}
		for i, sn := range dev.Sensors() {
			o := sn.(extensions.Options)
			for _, id := range o.SupportedOptions() {
				v, _ := o.Option(id)
				m[[2]int32{int32(i), int32(id)}] = v
			}
		}
		return m
	}
	changed := 0
	// At the seek's target: the state that follows a seek may still carry
	// the position of the picture shown before it, which the paused
	// server replaces once the picture at the target is delivered.
	wEarly, wLate := want(0), want(lateAt)
	for k, v := range wLate {
		if early[k] != wEarly[k] || late[k] != v {
			t.Errorf("option %v: shown %v then %v, want %v then %v", k, early[k], late[k], wEarly[k], v)
		}
		if wEarly[k] != v {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no option changes between the start and the end of the bag: the test proves nothing")
	}
}

// TestSlowClientDoesNotStall: a client that reads nothing does not hold back
// the playback or another client.
func TestSlowClientDoesNotStall(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	ts := playTest(t, path, true)
	slow := dialWS(t, ts, "") // never read again
	fast := dialWS(t, ts, "")
	depth := fast.streamID("Depth/0")
	seen := map[uint64]bool{}
	fast.until("two loops of the bag", func() bool {
		if h, ok := fast.frames[depth]; ok {
			seen[h.Number] = true
		}
		return len(seen) >= 30 && fast.state.Status == "Playing" && fast.state.Streams[depth].Delivered >= 60
	})
	slow.conn.CloseNow()
	fast.until("the slow client to be gone", func() bool { return ts.srv.clientCount() == 1 })
}

// TestDamagedBag: a truncated bag plays what was recovered and says what was
// lost.
func TestDamagedBag(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(refDir, "depth_color.bag"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.bag")
	if err := os.WriteFile(path, src[:len(src)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "")
	if !strings.Contains(c.hello.Recovery, "lost") {
		t.Errorf("hello recovery %q does not say what was lost", c.hello.Recovery)
	}
	depth := c.streamID("Depth/0")
	c.until("a depth picture", func() bool { _, ok := c.frames[depth]; return ok })
	// Malformed messages get an error reply; the connection stays.
	c.tag++
	if err := c.conn.Write(c.ctx, websocket.MessageText, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	nextError := func(what, want string) {
		for {
			if r := c.next(); r != nil {
				if !strings.Contains(r.Error, want) {
					t.Errorf("%s: %+v, want an error naming %q", what, r, want)
				}
				return
			}
		}
	}
	nextError("malformed command", "bad command")
	if err := c.conn.Write(c.ctx, websocket.MessageBinary, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	nextError("binary command", "JSON text")
	// An oversized command closes that connection, not the server.
	c.conn.Write(c.ctx, websocket.MessageText, bytes.Repeat([]byte("x"), maxCommandBytes+1))
	for {
		if _, _, err := c.conn.Read(c.ctx); err != nil {
			break
		}
	}
	c2 := dialWS(t, ts, "")
	if !c2.hello.Playback {
		t.Error("server gone after a bad client")
	}
}

// TestPicturesDecode: every video stream's picture decodes to the frame's
// size, JPEG by default and PNG on request.
func TestPicturesDecode(t *testing.T) {
	path := filepath.Join(refDir, "depth_color_ir2_uncompressed.bag")
	ts := startTest(t, path, true) // looping: pictures keep coming
	for _, codec := range []string{"jpeg", "png"} {
		c := dialWS(t, ts, "?codec="+codec)
		for _, s := range c.hello.Streams {
			c.until("a picture of "+s.Name+" in "+codec, func() bool { _, ok := c.images[s.ID]; return ok })
			if got := c.frames[s.ID].Codec; got != codec {
				t.Errorf("%s: codec %q, want %q", s.Name, got, codec)
			}
			var img image.Image
			var err error
			if codec == "jpeg" {
				img, err = jpeg.Decode(bytes.NewReader(c.images[s.ID]))
			} else {
				img, err = png.Decode(bytes.NewReader(c.images[s.ID]))
			}
			if err != nil {
				t.Fatalf("%s %s: %v", s.Name, codec, err)
			}
			if b := img.Bounds(); b.Dx() != s.Width || b.Dy() != s.Height {
				t.Errorf("%s: picture %v, want %dx%d", s.Name, b, s.Width, s.Height)
			}
		}
		c.conn.CloseNow()
	}
}

// TestCorruptChunk: a bag whose index is intact but one of whose chunks is
// damaged plays to its end and the page is told what went wrong: the error
// or the frames lost.
func TestCorruptChunk(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(refDir, "depth_color.bag"))
	if err != nil {
		t.Fatal(err)
	}
	for i := len(src) * 6 / 10; i < len(src)*6/10+64; i++ {
		src[i] ^= 0x5a
	}
	path := filepath.Join(t.TempDir(), "flipped.bag")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := playTest(t, path, false)
	c := dialWS(t, ts, "")
	c.until("the end of the bag", func() bool { return c.state.Ended })
	lost := uint64(0)
	for _, s := range c.state.Streams {
		lost += s.Lost
	}
	if c.state.Error == "" && lost == 0 && c.hello.Recovery == "" {
		t.Errorf("damaged chunk played silently: state %+v", c.state)
	}
	t.Logf("error %q, lost %d, recovery %q", c.state.Error, lost, c.hello.Recovery)
}
