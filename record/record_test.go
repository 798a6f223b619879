package record

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// recordTestDevice records n frames of every stream of a testDevice, seen
// through wrap when not nil.
func recordTestDevice(t *testing.T, path string, o Options, n int, wrap func(device.Device) device.Device) (td *testDevice, log *handlerLog) {
	t.Helper()
	// In a synctest bubble: the frames' capture times are 33 ms apart on
	// its clock, and the recording takes no real time.
	synctest.Test(t, func(t *testing.T) { td, log = recordTestDeviceIn(t, path, o, n, 16, 8, wrap) })
	return td, log
}

// recordTestDeviceIn is recordTestDevice inside the bubble, with frames
// of w x h pixels.
func recordTestDeviceIn(t *testing.T, path string, o Options, n, w, h int, wrap func(device.Device) device.Device) (*testDevice, *handlerLog) {
	td := newTestDevice(t, w, h)
	o.Lossless = true
	var dev device.Device = td.dev
	if wrap != nil {
		dev = wrap(dev)
	}
	rec, err := Create(dev, path, &o)
	if err != nil {
		t.Fatal(err)
	}
	ss := rec.Sensors()
	if len(ss) != 2 {
		t.Fatalf("%d record sensors, want 2", len(ss))
	}
	var log handlerLog
	if err := ss[0].Open(td.depth, td.ir); err != nil {
		t.Fatal(err)
	}
	if err := ss[1].Open(td.color); err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := s.Start(&log); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		time.Sleep(33 * time.Millisecond)
		for _, p := range []*sensor.StreamProfile{td.depth, td.ir} {
			if err := td.depthS.Inject(td.frame(p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := td.colorS.Inject(td.frame(td.color)); err != nil {
			t.Fatal(err)
		}
		td.depthS.Flush()
		td.colorS.Flush()
	}
	stopAndClose(t, rec, ss)
	return td, &log
}

// TestRecordLargeFrames: 1280x720 frames, whose pixels cover whole LZ4
// blocks and straddle others (the bag compresses those blocks from the
// frames in place), are recorded as delivered, in chunks of several
// frames and of one.
func TestRecordLargeFrames(t *testing.T) {
	for _, thresh := range []int{0, 16 << 20} {
		t.Run(fmt.Sprint(thresh), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "large.bag")
			var log *handlerLog
			synctest.Test(t, func(t *testing.T) {
				_, log = recordTestDeviceIn(t, path, Options{Compression: CompressionLZ4, ChunkThreshold: thresh}, 3, 1280, 720, nil)
			})
			ms, _, err := readBag(t, path)
			if err != nil {
				t.Fatal(err)
			}
			top := byTopic(ms)
			for topic, stream := range map[string]sensor.Stream{"/device_0/sensor_0/Depth_0/image/data": sensor.StreamDepth, "/device_0/sensor_0/Infrared_1/image/data": sensor.StreamInfrared, "/device_0/sensor_1/Color_0/image/data": sensor.StreamColor} {
				var delivered []*sensor.Frame
				for _, f := range log.frames {
					if f.Profile.Stream == stream {
						delivered = append(delivered, f)
					}
				}
				if len(top[topic]) != 3 || len(delivered) != 3 {
					t.Fatalf("%s: %d images, want 3", topic, len(top[topic]))
				}
				for i, m := range top[topic] {
					var img msgs.Image
					if err := msgs.Unmarshal(m.Data, &img); err != nil {
						t.Fatalf("%s %d: %v", topic, i, err)
					}
					if want := delivered[i]; !bytes.Equal(img.Data, want.Data) || img.Width != 1280 || img.Height != 720 {
						t.Errorf("%s %d: %dx%d, %d bytes, pixels equal %v", topic, i, img.Width, img.Height, len(img.Data), bytes.Equal(img.Data, want.Data))
					}
				}
			}
		})
	}
}

func TestRecordBasic(t *testing.T) {
	for _, comp := range []string{CompressionLZ4, CompressionNone} {
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "basic.bag")
			td, log := recordTestDevice(t, path, Options{Compression: comp}, 5, nil)
			if log.count() != 15 {
				t.Fatalf("handler got %d frames, want 15", log.count())
			}
			ms, info, err := readBag(t, path)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if !info.Indexed {
				t.Error("bag is not indexed")
			}
			if c := compression(t, path); len(c) != 1 || c[0] != comp {
				t.Errorf("compression %v, want %s", c, comp)
			}
			top := byTopic(ms)
			fv := top["/file_version"]
			if len(fv) != 1 || fv[0].Time != rosbag.MinTime || !bytes.Equal(fv[0].Data, []byte{3, 0, 0, 0}) {
				t.Errorf("/file_version = %+v", fv)
			}
			for topic, want := range map[string]int{
				"/device_0/info":                                   2,
				"/device_0/sensor_0/info":                          1,
				"/device_0/sensor_1/info":                          1,
				"/device_0/sensor_0/Depth_0/info":                  1,
				"/device_0/sensor_0/Depth_0/info/camera_info":      1,
				"/device_0/sensor_0/Infrared_1/info":               1,
				"/device_0/sensor_1/Color_0/info/camera_info":      1,
				"/device_0/sensor_0/option/Exposure/value":         1,
				"/device_0/sensor_0/option/Exposure/description":   1,
				"/device_0/sensor_0/option/Depth_Units/value":      1,
				"/device_0/sensor_0/option/Asic_Temperature/value": 1,
				"/device_0/sensor_1/option/Brightness/value":       1,
				"/device_0/sensor_0/Depth_0/image/data":            5,
				"/device_0/sensor_0/Depth_0/image/metadata":        5 * 4,
				"/device_0/sensor_0/Infrared_1/image/data":         5,
				"/device_0/sensor_1/Color_0/image/data":            5,
				"/device_0/sensor_0/Depth_0/tf/1":                  1,
				"/device_0/sensor_0/Infrared_1/tf/1":               1,
				"/device_0/sensor_1/Color_0/tf/1":                  1,
			} {
				if got := len(top[topic]); got != want {
					t.Errorf("%s: %d messages, want %d", topic, got, want)
				}
			}
			for topic, list := range top {
				static := !bytes.Contains([]byte(topic), []byte("/image/"))
				for _, m := range list {
					if static != (m.Time == rosbag.MinTime) {
						t.Errorf("%s at %v (static %v)", topic, m.Time, static)
					}
				}
			}
			// Frames: frame_id "0", no trailing bytes, data as delivered.
			for i, m := range top["/device_0/sensor_0/Depth_0/image/data"] {
				var img msgs.Image
				if err := msgs.Unmarshal(m.Data, &img); err != nil {
					t.Fatalf("image %d: %v", i, err)
				}
				want := log.frames[3*i]
				if img.Header.FrameID != "0" || img.Header.Seq != uint32(want.Number) || img.Encoding != "mono16" ||
					img.Step != 32 || img.Width != 16 || img.Height != 8 || !bytes.Equal(img.Data, want.Data) {
					t.Errorf("image %d: header %+v enc %s step %d", i, img.Header, img.Encoding, img.Step)
				}
				if i > 0 && m.Time <= top["/device_0/sensor_0/Depth_0/image/data"][i-1].Time {
					t.Errorf("image %d: time %v not after previous", i, m.Time)
				}
			}
			md := top["/device_0/sensor_0/Depth_0/image/metadata"]
			var keys []string
			for _, m := range md[:4] {
				k := kv(t, m.Data)
				keys = append(keys, k.Key+"="+k.Value)
			}
			wantKeys := []string{"system_time=0.000000", "timestamp_domain=Hardware Clock", "Frame Counter=1", "Frame Timestamp=33300"}
			for i := range wantKeys {
				if keys[i] != wantKeys[i] {
					t.Errorf("metadata %d = %q, want %q", i, keys[i], wantKeys[i])
				}
			}
			var si msgs.StreamInfo
			if err := msgs.Unmarshal(top["/device_0/sensor_0/Depth_0/info"][0].Data, &si); err != nil || si.IsRecommended != 1 || si.Fps != 30 || si.Encoding != "mono16" {
				t.Errorf("depth stream info %+v %v", si, err)
			}
			if err := msgs.Unmarshal(top["/device_0/sensor_0/Infrared_1/info"][0].Data, &si); err != nil || si.IsRecommended != 0 || si.Encoding != "8UC1" {
				t.Errorf("ir stream info %+v %v", si, err)
			}
			var tf msgs.Transform
			if err := msgs.Unmarshal(top["/device_0/sensor_0/Depth_0/tf/1"][0].Data, &tf); err != nil || tf.Rotation != (msgs.Quaternion{W: -1}) {
				t.Errorf("depth tf %+v %v", tf, err)
			}
			_ = td
			checkConformance(t, path)
		})
	}
}

// genericDevice hides every method of a device beyond device.Device (the
// software device's PinnedExtrinsics), like a device that only answers
// pairwise extrinsics queries.
type genericDevice struct{ device.Device }

// numberedDevice is a genericDevice with its own group numbering.
type numberedDevice struct {
	genericDevice
	first uint32
}

func (d numberedDevice) FirstExtrinsicsGroup() uint32 { return d.first }

// TestExtrinsicsGroups: the tf topics hold the wrapped device's extrinsics
// as device.Capture reports them — its own pinned extrinsics (bits and
// groups kept), or derived with device.Capture's rule and numbered from
// layout.FirstExtrinsicsGroup — and device.Capture cannot tell the record
// device from the wrapped one.
func TestExtrinsicsGroups(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		wrap  func(device.Device) device.Device
		group uint32
	}{
		{"software", nil, 1},
		{"generic", func(d device.Device) device.Device { return genericDevice{d} }, 0},
		{"numbered", func(d device.Device) device.Device { return numberedDevice{genericDevice{d}, 7} }, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".bag")
			td, _ := recordTestDevice(t, path, Options{}, 2, c.wrap)
			var inner device.Device = td.dev
			if c.wrap != nil {
				inner = c.wrap(inner)
			}
			snap, err := device.Capture(inner)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{}
			for _, pe := range snap.Pinned {
				if pe.Group != c.group {
					t.Errorf("%v: group %d, want %d", pe.Key, pe.Group, c.group)
				}
				e := pe.FromPin
				tr := msgs.Transform{Translation: vec3(e.Translation), Rotation: quaternion(e.Rotation)}
				want[layout.ExtrinsicsTopic(pe.Key.Sensor, pe.Key.Stream, pe.Key.Index, pe.Group)] = msgs.Append(nil, &tr)
			}
			ms, _, err := readBag(t, path)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for _, m := range ms {
				if strings.Contains(m.Topic, "/tf/") {
					got[m.Topic] = m.Data
				}
			}
			if len(got) != 3 || len(want) != 3 {
				t.Errorf("tf topics %d, want 3 (captured %d)", len(got), len(want))
			}
			for topic, data := range want {
				if !bytes.Equal(got[topic], data) {
					t.Errorf("%s: %x, want %x", topic, got[topic], data)
				}
			}
			rec, err := NewWriter(inner, &memFile{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			recSnap, err := device.Capture(rec)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(recSnap.Pinned) != fmt.Sprint(snap.Pinned) {
				t.Errorf("Capture(record device).Pinned = %v, Capture(wrapped) %v", recSnap.Pinned, snap.Pinned)
			}
		})
	}
}

func TestQuaternion(t *testing.T) {
	// Identity is written as (0, 0, 0, -1) (spec §5.8, quirk 5).
	if q := quaternion([9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}); q != (msgs.Quaternion{W: -1}) {
		t.Errorf("identity → %+v", q)
	}
	// The reference color extrinsics: rotation by 0.01 rad about Y; from
	// options_pause_notify.bag's Color_0/tf/1.
	r := [9]float32{0.99995, 0, -0.009999833, 0, 1, 0, 0.009999833, 0, 0.99995}
	q := quaternion(r)
	want := msgs.Quaternion{X: 0, Y: float64(float32(-0.004999979)), Z: 0, W: float64(float32(-0.9999875))}
	if math.Abs(q.Y-want.Y) > 1e-9 || math.Abs(q.W-want.W) > 1e-7 || q.X != 0 || q.Z != 0 {
		t.Errorf("rotation → %+v, want ≈ %+v", q, want)
	}
}

func TestBagTime(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want rosbag.Time
	}{
		{0, rosbag.MinTime}, {-5, rosbag.MinTime}, {1500, 1500}, {54424400, 54424400}, {1_000_000_000, 1_000_000_000},
	} {
		if got := bagTime(c.ns); got != c.want {
			t.Errorf("bagTime(%d) = %v, want %v", c.ns, got, c.want)
		}
	}
	// Frame timestamp: 360815.089 ms → (360, 815089000) (spec §3.2).
	if s := stamp(360815.089); s != (msgs.Time{Sec: 360, Nsec: 815089000}) {
		t.Errorf("stamp = %+v", s)
	}
}

// forwardedExtensions lists the extensions a record sensor forwards, each as
// a test of whether a sensor implements it.
var forwardedExtensions = []struct {
	name string
	has  func(sensor.Sensor) bool
}{
	{"Options", func(s sensor.Sensor) bool { _, ok := s.(extensions.Options); return ok }},
	{"DepthSensor", func(s sensor.Sensor) bool { _, ok := s.(extensions.DepthSensor); return ok }},
	{"DepthStereoSensor", func(s sensor.Sensor) bool { _, ok := s.(extensions.DepthStereoSensor); return ok }},
	{"Kinded", func(s sensor.Sensor) bool { _, ok := s.(extensions.Kinded); return ok }},
	{"RecommendedFilters", func(s sensor.Sensor) bool { _, ok := s.(extensions.RecommendedFilters); return ok }},
}

// TestExtensionsForwarded checks that a record sensor implements exactly the
// extensions of its inner sensor (plus Notifier and Unwrapper).
func TestExtensionsForwarded(t *testing.T) {
	td := newTestDevice(t, 4, 4)
	rec, err := NewWriter(td.dev, &memFile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	same := func(what string, in, s sensor.Sensor) {
		for _, e := range forwardedExtensions {
			if a, b := e.has(in), e.has(s); a != b {
				t.Errorf("%s: %s: inner %v, record %v", what, e.name, a, b)
			}
		}
	}
	for i, s := range rec.Sensors() {
		in := td.dev.Sensors()[i]
		same(fmt.Sprintf("sensor %d", i), in, s)
		if u, ok := s.(Unwrapper); !ok || u.Unwrap() != in {
			t.Errorf("sensor %d: Unwrap", i)
		}
		if _, ok := s.(extensions.Notifier); !ok {
			t.Errorf("sensor %d: not a Notifier", i)
		}
	}
	// Every generated combination.
	for _, c := range wrapperCombos() {
		w := wrap(&recSensor{inner: c})
		same(fmt.Sprintf("%T wrapped as %T", c, w), c, w)
	}
}
