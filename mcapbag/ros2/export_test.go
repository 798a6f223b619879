package ros2

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/synthscript"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// played is a frame as non-real-time playback delivered it.
type played struct {
	f   sensor.Frame
	pos int64
}

// playAll plays the bag at path in non-real-time mode and returns its
// frames per stream name, and the device (closed) for its description.
func playAll(t *testing.T, path string) (map[string][]played, *playback.Device) {
	t.Helper()
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	var mu sync.Mutex
	out := map[string][]played{}
	ended := make(chan struct{})
	var once sync.Once
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			once.Do(func() { close(ended) })
		}
	})
	var opened []sensor.Sensor
	for _, s := range dev.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
		opened = append(opened, s)
	}
	for _, s := range opened {
		err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			mu.Lock()
			defer mu.Unlock()
			c := *f
			c.Data = append([]byte(nil), f.Data...)
			out[f.Profile.Name()] = append(out[f.Profile.Name()], played{c, int64(dev.Position())})
		}))
		if err != nil {
			t.Fatal(err)
		}
	}
	<-ended
	for _, s := range opened {
		s.Stop()
		s.Close()
	}
	if err := dev.Err(); err != nil {
		t.Fatal(err)
	}
	return out, dev
}

// exportFile exports the bag at path into dir and returns the MCAP file.
func exportFile(t *testing.T, path, dir string, opts *Options) (string, *Result) {
	t.Helper()
	dev, err := playback.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	f, out := testbags.Create(t, dir, path, ".mcap")
	defer f.Close()
	res, err := Export(context.Background(), f, dev, opts)
	if err != nil {
		t.Fatalf("Export %s: %v", path, err)
	}
	return out, res
}

// mcapcheck runs mcapcheck-js (the MCAP project's reader and Foxglove's
// ROS 2 CDR deserializer) on the files; in CI a checker that is missing or
// not set up fails the test.
func mcapcheck(t *testing.T, files ...string) {
	t.Helper()
	checker := conformance.Tool(t, conformance.MCAPcheckJS)
	out, err := exec.Command(checker, append([]string{"-q"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("mcapcheck-js: %v\n%s", err, out)
	}
}

// msg is one message of an export, by topic.
type msg struct {
	log  int64
	typ  string
	data []byte
}

func readExport(t *testing.T, path string) (map[string][]msg, *mcap.Info) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Header(); h.Profile != "ros2" {
		t.Errorf("profile %q, want ros2", h.Profile)
	}
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Messages(mcap.UsingIndex(true), mcap.InOrder(mcap.FileOrder))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]msg{}
	for {
		var mm mcap.Message
		s, ch, m, err := it.NextInto(&mm)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ch.MessageEncoding != "cdr" || s.Encoding != "ros2msg" || s.Name == "" {
			t.Fatalf("channel %s: message encoding %q, schema %q %q", ch.Topic, ch.MessageEncoding, s.Name, s.Encoding)
		}
		if !strings.Contains(ch.Metadata["offered_qos_profiles"], "reliability: 1") {
			t.Errorf("channel %s: offered_qos_profiles %q", ch.Topic, ch.Metadata["offered_qos_profiles"])
		}
		out[ch.Topic] = append(out[ch.Topic], msg{int64(m.LogTime), s.Name, append([]byte(nil), m.Data...)})
	}
	return out, info
}

// dec reads CDR the way the ROS 2 middleware does, for the tests.
type dec struct {
	t   *testing.T
	b   []byte
	off int
}

func newDec(t *testing.T, b []byte) *dec {
	if len(b) < 4 || [4]byte(b[:4]) != cdrHeader {
		t.Fatalf("payload does not start with the CDR_LE encapsulation: % x", b[:min(4, len(b))])
	}
	return &dec{t: t, b: b, off: 4}
}

func (d *dec) align(n int) {
	for (d.off-4)%n != 0 {
		d.off++
	}
}

func (d *dec) take(n int) []byte {
	if d.off+n > len(d.b) {
		d.t.Fatalf("CDR: %d bytes wanted at %d of %d", n, d.off, len(d.b))
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *dec) u8() uint8 { return d.take(1)[0] }
func (d *dec) u32() uint32 {
	d.align(4)
	return binary.LittleEndian.Uint32(d.take(4))
}
func (d *dec) f64() float64 {
	d.align(8)
	return math.Float64frombits(binary.LittleEndian.Uint64(d.take(8)))
}
func (d *dec) str() string {
	n := int(d.u32())
	p := d.take(n)
	if n == 0 || p[n-1] != 0 {
		d.t.Fatalf("CDR string without its NUL: %q", p)
	}
	return string(p[:n-1])
}
func (d *dec) bytes() []byte { return d.take(int(d.u32())) }
func (d *dec) f64s(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = d.f64()
	}
	return v
}
func (d *dec) header() (int64, string) {
	sec := int32(d.u32())
	nsec := d.u32()
	return int64(sec)*1e9 + int64(nsec), d.str()
}
func (d *dec) end() {
	if len(d.b)-d.off > 3 {
		d.t.Errorf("CDR: %d bytes after the last field", len(d.b)-d.off)
	}
}

// synthBag records the synthetic camera with cfg on a virtual clock.
func synthBag(t *testing.T, name string, cfg software.SyntheticConfig) string {
	bag := filepath.Join(t.TempDir(), name+".bag")
	synctest.Test(t, func(t *testing.T) { synthrig.Bag(t, bag, cfg) })
	return bag
}

// TestExport exports the reference bags and synthetic recordings (IMU,
// both infrared cameras, depth units of 0.1 mm, system-time stamps) and checks every message against what playback delivers: one
// Image, CameraInfo and Metadata per video frame, one Imu and Metadata per
// motion frame, the latched topics once, topic names, frame ids, stamps,
// pixels and values; mcapcheck-js accepts every file.
func TestExport(t *testing.T) {
	bags := testbags.Paths(t, filepath.Join("..", ".."))
	bags = append(bags,
		synthBag(t, "imu_ir", software.SyntheticConfig{
			Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
			Color:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatRGB8},
			Infrared: &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatY8}, InfraredCount: 2,
			AccelFPS: 63, GyroFPS: 200, Duration: 200 * time.Millisecond, Metadata: software.MetadataBasic,
		}),
		synthBag(t, "mjpeg", software.SyntheticConfig{
			Depth:    &software.Video{Width: 32, Height: 24, FPS: 30, Format: sensor.FormatZ16},
			Color:    &software.Video{Width: 32, Height: 24, FPS: 30, Format: sensor.FormatMJPEG},
			Duration: 100 * time.Millisecond, Metadata: software.MetadataBasic,
		}),
		synthBag(t, "units_system", func() software.SyntheticConfig {
			cfg := software.SyntheticConfig{
				Depth:    &software.Video{Width: 32, Height: 24, FPS: 30, Format: sensor.FormatZ16},
				Duration: 100 * time.Millisecond, Metadata: software.MetadataBasic,
				Domains: map[sensor.Stream]sensor.TimestampDomain{sensor.StreamDepth: sensor.TimestampDomainSystemTime},
			}
			synthscript.Of(&cfg).Set = []synthscript.OptionValue{{Sensor: "depth", Option: sensor.OptionDepthUnits, Value: 0.0001}}
			return cfg
		}()),
	)
	dir := t.TempDir()
	var files []string
	for _, bag := range bags {
		t.Run(filepath.Base(bag), func(t *testing.T) {
			if filepath.Base(bag) == "pose.bag" {
				// Only a pose stream: nothing the wrapper publishes.
				dev, err := playback.Open(bag, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer dev.Close()
				if _, err := Export(context.Background(), io.Discard, dev, nil); !errors.Is(err, ErrNoStreams) {
					t.Errorf("Export of a pose-only bag: %v, want ErrNoStreams", err)
				}
				return
			}
			file, res := exportFile(t, bag, dir, nil)
			files = append(files, file)
			frames, dev := playAll(t, bag)
			got, info := readExport(t, file)
			seen := checkExport(t, dev, frames, got, res, info)
			switch filepath.Base(bag) {
			case "units_system.bag":
				if seen.scaled == 0 || seen.system == 0 {
					t.Errorf("%+v: want depth frames scaled to millimeters and stamped in system time", seen)
				}
			case "mjpeg.bag":
				if seen.decoded == 0 {
					t.Errorf("%+v: want MJPEG color frames exported decoded, as rgb8", seen)
				}
			case "imu_ir.bag", "depth_color_ir2_uncompressed.bag":
				if seen.baseline == 0 {
					t.Errorf("%+v: want the right infrared camera info with a baseline", seen)
				}
			}
		})
	}
	mcapcheck(t, files...)
}

// seen counts the cases checkExport met, so that a test can require them.
type seen struct{ scaled, system, baseline, decoded int }

func checkExport(t *testing.T, dev *playback.Device, frames map[string][]played, got map[string][]msg, res *Result, info *mcap.Info) (cases seen) {
	var streams []*sensor.StreamProfile
	depthSensor := map[int]bool{}
	for _, s := range dev.Sensors() {
		isDepth := false
		if k, ok := s.(extensions.Kinded); ok {
			for _, kind := range k.Kinds() {
				isDepth = isDepth || kind == extensions.KindDepthSensor
			}
		}
		for _, p := range s.Profiles() {
			if p.Kind == sensor.KindPose {
				if res.Skipped[p.Name()] == "" {
					t.Errorf("pose stream %s not named in Skipped", p.Name())
				}
				continue
			}
			streams = append(streams, p)
			depthSensor[p.UID] = isDepth
		}
	}
	var base *sensor.StreamProfile
	for _, p := range streams {
		if p.Stream == sensor.StreamDepth && base == nil {
			base = p
		}
	}
	if base == nil && len(streams) > 0 {
		base = streams[0]
	}
	first := int64(math.MaxInt64)
	for _, fs := range frames {
		if len(fs) > 0 && fs[0].pos < first {
			first = fs[0].pos
		}
	}

	topics := 1 // /tf_static
	var tfWant int
	for _, p := range streams {
		name := streamName(p.Stream, p.Index)
		ns := DefaultNamespace + "/" + name
		optical := "camera_" + name + "_optical_frame"
		fs := frames[p.Name()]
		if res.Frames[p.Name()] != len(fs) {
			t.Errorf("%s: Result.Frames %d, played %d", p.Name(), res.Frames[p.Name()], len(fs))
		}
		metas := got[ns+"/metadata"]
		if len(metas) != len(fs) {
			t.Errorf("%s: %d metadata messages for %d frames", ns, len(metas), len(fs))
			continue
		}
		topics++
		tfWant += 2
		if p.Kind == sensor.KindVideo && p.Stream != sensor.StreamDepth && p.Index == 1 {
			tfWant += 2
		}
		if p != base {
			topics++
			ex := got[DefaultNamespace+"/extrinsics/"+streamName(base.Stream, 0)+"_to_"+name]
			if len(ex) != 1 {
				t.Errorf("%s: %d extrinsics messages, want 1", name, len(ex))
			} else {
				want, err := dev.Extrinsics(base, p)
				if err != nil {
					want = sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
				}
				d := newDec(t, ex[0].data)
				rot, tr := d.f64s(9), d.f64s(3)
				d.end()
				for i := range rot {
					if rot[i] != float64(want.Rotation[i]) {
						t.Errorf("%s extrinsics rotation %v, want %v", name, rot, want.Rotation)
						break
					}
				}
				for i := range tr {
					if tr[i] != float64(want.Translation[i]) {
						t.Errorf("%s extrinsics translation %v, want %v", name, tr, want.Translation)
						break
					}
				}
			}
		}
		stampOf := func(pl played) int64 {
			if pl.f.Domain == sensor.TimestampDomainSystemTime || pl.f.Domain == sensor.TimestampDomainGlobalTime {
				return int64(math.Round(pl.f.TimestampMs * 1e6))
			}
			return pl.pos
		}
		if p.Kind == sensor.KindVideo {
			topics += 2
			image := ns + "/image_raw"
			if depthSensor[p.UID] {
				image = ns + "/image_rect_raw"
			}
			imgs, infos := got[image], got[ns+"/camera_info"]
			if len(imgs) != len(fs) || len(infos) != len(fs) {
				t.Errorf("%s: %d images and %d camera infos for %d frames", ns, len(imgs), len(infos), len(fs))
				continue
			}
			for i, pl := range fs {
				f := &pl.f
				if p.Format == sensor.FormatMJPEG {
					rgb, err := yuv.Frame(f, sensor.FormatRGB8)
					if err != nil {
						t.Fatalf("%s frame %d: %v", ns, f.Number, err)
					}
					f = rgb
					cases.decoded++
				}
				d := newDec(t, imgs[i].data)
				stamp, frame := d.header()
				h, w, enc, be, step, data := d.u32(), d.u32(), d.str(), d.u8(), d.u32(), d.bytes()
				d.end()
				if imgs[i].log != pl.pos || stamp != stampOf(pl) || frame != optical {
					t.Fatalf("%s image %d: log %d stamp %d frame %q, want %d %d %q", ns, i, imgs[i].log, stamp, frame, pl.pos, stampOf(pl), optical)
				}
				if int(h) != f.Height || int(w) != f.Width || enc != rosEncoding[f.Profile.Format] || be != 0 || int(step) != f.Stride {
					t.Fatalf("%s image %d: %dx%d %q big-endian %d step %d, want %dx%d %q step %d", ns, i, w, h, enc, be, step, f.Width, f.Height, rosEncoding[f.Profile.Format], f.Stride)
				}
				want := f.Data
				if f.Domain == sensor.TimestampDomainSystemTime {
					cases.system++
				}
				if p.Format == sensor.FormatZ16 && math.Abs(float64(f.DepthUnits)-0.001) >= 1e-6 {
					cases.scaled++
					want = make([]byte, len(f.Data))
					for k := 0; k+1 < len(want); k += 2 {
						mm := float32(binary.LittleEndian.Uint16(f.Data[k:])) * f.DepthUnits / 0.001
						binary.LittleEndian.PutUint16(want[k:], uint16(min(mm, 65535)))
					}
				}
				if string(data) != string(want) {
					t.Fatalf("%s image %d: pixels differ from frame %d", ns, i, f.Number)
				}

				d = newDec(t, infos[i].data)
				stamp, frame = d.header()
				ih, iw, model := d.u32(), d.u32(), d.str()
				coeffs := d.f64s(int(d.u32()))
				k, r, pm := d.f64s(9), d.f64s(9), d.f64s(12)
				for range 6 {
					d.u32()
				}
				d.u8()
				d.end()
				in := p.Intrinsics
				if stamp != stampOf(pl) || int(iw) != in.Width || int(ih) != in.Height {
					t.Fatalf("%s camera_info %d: stamp %d %dx%d", ns, i, stamp, iw, ih)
				}
				wantModel, n := "plumb_bob", 5
				if in.Model == sensor.DistortionKannalaBrandt4 {
					wantModel, n = "equidistant", 4
				}
				if model != wantModel || len(coeffs) != n {
					t.Fatalf("%s camera_info: model %q with %d coefficients", ns, model, len(coeffs))
				}
				for j := range n {
					if coeffs[j] != float64(in.Coeffs[j]) {
						t.Fatalf("%s camera_info d %v, want %v", ns, coeffs, in.Coeffs)
					}
				}
				fx, fy, ppx, ppy := float64(in.FX), float64(in.FY), float64(in.PPX), float64(in.PPY)
				if fmt.Sprint(k) != fmt.Sprint([]float64{fx, 0, ppx, 0, fy, ppy, 0, 0, 1}) || fmt.Sprint(r) != fmt.Sprint([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}) {
					t.Fatalf("%s camera_info K %v R %v", ns, k, r)
				}
				wantFrame, tx, ty := optical, 0.0, 0.0
				if p.Index == 2 {
					if left := byIndex(streams, p.Stream, 1); left != nil {
						ex, err := dev.Extrinsics(p, left)
						if err != nil {
							t.Fatal(err)
						}
						wantFrame = "camera_" + streamName(left.Stream, 1) + "_optical_frame"
						tx, ty = -fx*float64(ex.Translation[0])+0, -fy*float64(ex.Translation[1])+0
						if tx != 0 {
							cases.baseline++
						}
					}
				}
				if frame != wantFrame || fmt.Sprint(pm) != fmt.Sprint([]float64{fx, 0, ppx, tx, 0, fy, ppy, ty, 0, 0, 1, 0}) {
					t.Fatalf("%s camera_info frame %q P %v, want %q Tx %v Ty %v", ns, frame, pm, wantFrame, tx, ty)
				}
			}
		} else {
			topics += 2
			samples := got[ns+"/sample"]
			if len(samples) != len(fs) || len(got[ns+"/imu_info"]) != 1 {
				t.Errorf("%s: %d samples for %d frames, %d imu_info", ns, len(samples), len(fs), len(got[ns+"/imu_info"]))
				continue
			}
			d := newDec(t, got[ns+"/imu_info"][0].data)
			if _, frame := d.header(); frame != optical {
				t.Errorf("%s imu_info frame %q", ns, frame)
			}
			data, noise, bias := d.f64s(12), d.f64s(3), d.f64s(3)
			d.end()
			mi := p.MotionIntrinsics
			for r := range 3 {
				for c := range 4 {
					if data[r*4+c] != float64(mi.Data[r][c]) {
						t.Fatalf("%s imu_info data %v, want %v", ns, data, mi.Data)
					}
				}
				if noise[r] != float64(mi.NoiseVariances[r]) || bias[r] != float64(mi.BiasVariances[r]) {
					t.Fatalf("%s imu_info variances %v %v, want %v %v", ns, noise, bias, mi.NoiseVariances, mi.BiasVariances)
				}
			}
			for i, pl := range fs {
				d := newDec(t, samples[i].data)
				stamp, frame := d.header()
				orient, ocov := d.f64s(4), d.f64s(9)
				gyro, gcov := d.f64s(3), d.f64s(9)
				accel, acov := d.f64s(3), d.f64s(9)
				d.end()
				if samples[i].log != pl.pos || stamp != stampOf(pl) || frame != optical {
					t.Fatalf("%s sample %d: log %d stamp %d frame %q", ns, i, samples[i].log, stamp, frame)
				}
				v := []float64{float64(pl.f.Motion[0]), float64(pl.f.Motion[1]), float64(pl.f.Motion[2])}
				sample, other := accel, gyro
				if p.Stream == sensor.StreamGyro {
					sample, other = gyro, accel
				}
				cov := fmt.Sprint([]float64{imuCovariance, 0, 0, 0, imuCovariance, 0, 0, 0, imuCovariance})
				if fmt.Sprint(sample) != fmt.Sprint(v) || fmt.Sprint(other) != fmt.Sprint([]float64{0, 0, 0}) ||
					fmt.Sprint(orient) != fmt.Sprint([]float64{0, 0, 0, 0}) || ocov[0] != -1 || fmt.Sprint(gcov) != cov || fmt.Sprint(acov) != cov {
					t.Fatalf("%s sample %d: %v %v %v, want %v", ns, i, orient, gyro, accel, v)
				}
			}
		}
		for i, pl := range fs {
			d := newDec(t, metas[i].data)
			stamp, frame := d.header()
			text := d.str()
			d.end()
			if metas[i].log != pl.pos || stamp != stampOf(pl) || frame != optical {
				t.Fatalf("%s metadata %d: log %d stamp %d frame %q", ns, i, metas[i].log, stamp, frame)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(text), &m); err != nil {
				t.Fatalf("%s metadata %d: %v: %s", ns, i, err, text)
			}
			want := map[string]any{
				"frame_number":    float64(pl.f.Number),
				"clock_domain":    strings.ToLower(strings.ReplaceAll(pl.f.Domain.String(), " ", "_")),
				"frame_timestamp": math.Round(pl.f.TimestampMs*1e6) / 1e6,
			}
			pl.f.Metadata.Range(func(k sensor.MetadataKey, v int64) bool {
				name := strings.ToLower(strings.ReplaceAll(k.String(), " ", "_"))
				if k == sensor.MetadataKeyFrameTimestamp {
					name = "hw_timestamp"
				}
				want[name] = float64(v)
				return true
			})
			if fmt.Sprint(m) != fmt.Sprint(want) {
				t.Fatalf("%s metadata %d:\n got %v\nwant %v", ns, i, m, want)
			}
		}
	}
	if len(streams) > 0 {
		tf := got["/tf_static"]
		if len(tf) != 1 || tf[0].log != first {
			t.Fatalf("/tf_static: %d messages, want 1 at the first frame's time %d", len(tf), first)
		}
		d := newDec(t, tf[0].data)
		n := int(d.u32())
		if n != tfWant {
			t.Errorf("/tf_static: %d transforms, want %d", n, tfWant)
		}
		for range n {
			_, parent := d.header()
			child := d.str()
			tr, q := d.f64s(3), d.f64s(4)
			norm := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
			if math.Abs(norm-1) > 1e-4 { // as unit as the bag's float32 rotation matrix
				t.Errorf("/tf_static %s → %s: rotation %v is not a unit quaternion", parent, child, q)
			}
			if parent == "camera_link" && child == "camera_"+streamName(base.Stream, 0)+"_frame" && !nearAll(append(tr, q...), []float64{0, 0, 0, 0, 0, 0, 1}) {
				t.Errorf("/tf_static base %s: %v %v, want identity", child, tr, q)
			}
			if strings.HasSuffix(child, "_optical_frame") && !nearAll(append(tr, q...), []float64{0, 0, 0, -0.5, 0.5, -0.5, 0.5}) {
				t.Errorf("/tf_static %s → %s: %v %v, want the optical rotation", parent, child, tr, q)
			}
		}
		d.end()
	}
	if len(got) != topics || res.Channels != topics || len(info.Channels) != topics {
		names := make([]string, 0, len(got))
		for k := range got {
			names = append(names, k)
		}
		t.Errorf("%d topics with messages, %d channels, want %d: %v", len(got), res.Channels, topics, names)
	}
	var total int64
	for _, ms := range got {
		total += int64(len(ms))
	}
	if total != res.Messages || int64(info.Statistics.MessageCount) != total {
		t.Errorf("Result.Messages %d, statistics %d, read %d", res.Messages, info.Statistics.MessageCount, total)
	}
	return cases
}

func nearAll(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return len(a) == len(b)
}

func byIndex(ps []*sensor.StreamProfile, s sensor.Stream, index int) *sensor.StreamProfile {
	for _, p := range ps {
		if p.Stream == s && p.Index == index {
			return p
		}
	}
	return nil
}
