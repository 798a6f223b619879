package record

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// bagMsg is one message read back from a bag.
type bagMsg struct {
	Topic string
	Type  string
	MD5   string
	Time  rosbag.Time
	Data  []byte
}

// readBag returns every message of a bag in time order (equal times in file
// order) and the reader's open error (nil, or one wrapping ErrUnindexed).
func readBag(t testing.TB, path string) ([]bagMsg, rosbag.Info, error) {
	t.Helper()
	r, err := rosbag.Open(path, nil)
	if r == nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Close()
	var out []bagMsg
	it := r.Messages(nil)
	for it.Next() {
		m := it.Message()
		out = append(out, bagMsg{m.Conn.Topic, m.Conn.Type, m.Conn.MD5Sum, m.Time, append([]byte(nil), m.Data...)})
	}
	if it.Err() != nil {
		t.Fatalf("read %s: %v", path, it.Err())
	}
	return out, r.Info(), r.Unindexed()
}

// compression returns the chunk compressions of the bag at path.
func compression(t testing.TB, path string) []string {
	t.Helper()
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Compression()
}

// byTopic groups messages per topic, keeping order.
func byTopic(ms []bagMsg) map[string][]bagMsg {
	m := map[string][]bagMsg{}
	for _, x := range ms {
		m[x.Topic] = append(m[x.Topic], x)
	}
	return m
}

func kv(t testing.TB, b []byte) msgs.KeyValue {
	t.Helper()
	var k msgs.KeyValue
	if err := msgs.Unmarshal(b, &k); err != nil {
		t.Fatalf("KeyValue: %v", err)
	}
	return k
}

// testDevice is a small software device: a depth sensor (Depth/0 Z16,
// Infrared/1 Y8) with options and a color sensor (Color/0 RGB8), extrinsics
// depth→color and depth→infrared.
type testDevice struct {
	dev              *software.Device
	depthS, colorS   *software.Sensor
	depth, ir, color *sensor.StreamProfile
	w, h             int
	numbers          map[*sensor.StreamProfile]uint64
}

func newTestDevice(t testing.TB, w, h int) *testDevice {
	t.Helper()
	td := &testDevice{w: w, h: h, numbers: map[*sensor.StreamProfile]uint64{}}
	td.dev = software.New(sensor.Info{sensor.CameraInfoName: "Test Camera", sensor.CameraInfoSerialNumber: "42"})
	td.depthS = td.dev.AddSensor("Stereo Module")
	td.colorS = td.dev.AddSensor("RGB Camera")
	in := sensor.Intrinsics{Width: w, Height: h, PPX: float32(w) / 2, PPY: float32(h) / 2, FX: 100, FY: 101, Model: sensor.DistortionBrownConrady}
	td.depth = td.depthS.AddVideoStream(software.VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: w, Height: h, FPS: 30, Intrinsics: in, Default: true})
	td.ir = td.depthS.AddVideoStream(software.VideoStream{Stream: sensor.StreamInfrared, Index: 1, Format: sensor.FormatY8, Width: w, Height: h, FPS: 30, Intrinsics: in})
	td.color = td.colorS.AddVideoStream(software.VideoStream{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Width: w, Height: h, FPS: 30, Intrinsics: in, Default: true})
	td.depthS.AddOption(sensor.OptionExposure, 8500, extensions.Range{Min: 1, Max: 200000, Step: 1, Default: 8500}, true)
	td.depthS.AddOption(sensor.OptionDepthUnits, 0.001, extensions.Range{Min: 0.0001, Max: 0.01, Step: 0.0001, Default: 0.001}, true)
	td.depthS.AddReadOnlyOption(sensor.OptionAsicTemperature, 36.5)
	td.colorS.AddOption(sensor.OptionBrightness, 0, extensions.Range{Min: -64, Max: 64, Step: 1}, true)
	rot := sensor.Extrinsics{Rotation: [9]float32{0.99995, 0, -0.009999833, 0, 1, 0, 0.009999833, 0, 0.99995}, Translation: [3]float32{0.0147, 0.0001, 0.0003}}
	if err := td.dev.RegisterExtrinsics(td.depth, td.color, rot); err != nil {
		t.Fatal(err)
	}
	if err := td.dev.RegisterExtrinsics(td.depth, td.ir, sensor.IdentityExtrinsics()); err != nil {
		t.Fatal(err)
	}
	return td
}

// frame makes the next frame of p with deterministic content.
func (td *testDevice) frame(p *sensor.StreamProfile) *sensor.Frame {
	td.numbers[p]++
	n := td.numbers[p]
	bpp := p.Format.BitsPerPixel() / 8
	data := make([]byte, p.Width*p.Height*bpp)
	for i := range data {
		data[i] = byte(i*7 + int(n)*13 + int(p.Stream))
	}
	f := &sensor.Frame{Profile: p, Number: n, TimestampMs: 1000 + float64(n)*33.3, Domain: sensor.TimestampDomainHardwareClock, Data: data}
	f.Metadata.Set(sensor.MetadataKeyFrameCounter, int64(n))
	f.Metadata.Set(sensor.MetadataKeyFrameTimestamp, int64(n)*33300)
	return f
}

// handlerLog collects delivered frames.
type handlerLog struct {
	mu     sync.Mutex
	frames []*sensor.Frame
}

func (h *handlerLog) HandleFrame(f *sensor.Frame) {
	h.mu.Lock()
	h.frames = append(h.frames, f)
	h.mu.Unlock()
}

func (h *handlerLog) count() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.frames) }

// noteLog collects the notifications of record sensors.
type noteLog struct {
	mu    sync.Mutex
	notes []sensor.Notification
}

// watch registers the log for the notifications of record sensor s.
func (l *noteLog) watch(s sensor.Sensor) {
	s.(extensions.Notifier).OnNotification(func(n sensor.Notification) {
		l.mu.Lock()
		l.notes = append(l.notes, n)
		l.mu.Unlock()
	})
}

// list returns the notifications so far.
func (l *noteLog) list() []sensor.Notification {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sensor.Notification(nil), l.notes...)
}

// openStart opens record sensor s with profiles ps and starts it with h.
func openStart(t testing.TB, s sensor.Sensor, h sensor.Handler, ps ...*sensor.StreamProfile) {
	t.Helper()
	if err := s.Open(ps...); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(h); err != nil {
		t.Fatal(err)
	}
}

// stopAndClose stops the record sensors and closes the record device.
func stopAndClose(t testing.TB, rec *Device, ss []sensor.Sensor) {
	t.Helper()
	for _, s := range ss {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkConformance runs the strict bag checkers on the bags when installed.
func checkConformance(t *testing.T, paths ...string) {
	t.Helper()
	for _, name := range []string{conformance.BagcheckROS, conformance.BagcheckJS} {
		tool := conformance.Optional(t, name)
		if tool == "" {
			continue
		}
		out, err := exec.Command(tool, append([]string{"-q"}, paths...)...).CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, truncate(out, 3000))
		}
	}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// recordDepth records a w×h test device's depth stream losslessly into a
// bag named name in a temporary directory, with logs of the frames and the
// notifications its recording sensor gets.
func recordDepth(t *testing.T, name string, w, h int) (*testDevice, *Device, string, *handlerLog, *noteLog) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	td := newTestDevice(t, w, h)
	rec, err := Create(td.dev, path, &Options{Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	ss := rec.Sensors()
	log, notes := new(handlerLog), new(noteLog)
	notes.watch(ss[0])
	openStart(t, ss[0], log, td.depth)
	return td, rec, path, log, notes
}
