package software_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
	"github.com/rsbag/rsbag/software"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
)

// expLine is one line of an .expected.jsonl file (the fields the tests use).
type expLine struct {
	Type       string            `json:"type"`
	Info       map[string]string `json:"info"`
	Index      int               `json:"index"`
	Extensions []string          `json:"extensions"`
	DepthScale *float32          `json:"depth_scale"`
	Baseline   *float32          `json:"stereo_baseline_mm"`
	Filters    []string          `json:"recommended_filters"`

	Sensor      int     `json:"sensor"`
	ID          int     `json:"id"`
	Name        string  `json:"name"`
	Value       float32 `json:"value"`
	Description string  `json:"description"`

	Stream     string `json:"stream"`
	StreamType int    `json:"stream_type"`
	Format     string `json:"format"`
	FormatID   int    `json:"format_id"`
	FPS        int    `json:"fps"`
	Default    bool   `json:"default"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Intrinsics *struct {
		Width, Height int
		PPX           float32 `json:"ppx"`
		PPY           float32 `json:"ppy"`
		FX            float32 `json:"fx"`
		FY            float32 `json:"fy"`
		Model         string  `json:"model"`
		ModelID       int     `json:"model_id"`
		Coeffs        [5]float32
	} `json:"intrinsics"`
	MotionIntrinsics *struct {
		Data           [3][4]float32 `json:"data"`
		NoiseVariances [3]float32    `json:"noise_variances"`
		BiasVariances  [3]float32    `json:"bias_variances"`
	} `json:"motion_intrinsics"`
	ProfileKind string `json:"profile_kind"`

	From        string     `json:"from"`
	To          string     `json:"to"`
	Available   bool       `json:"available"`
	Rotation    [9]float32 `json:"rotation"`
	Translation [3]float32 `json:"translation"`

	FrameNumber    uint64           `json:"frame_number"`
	Timestamp      float64          `json:"timestamp"`
	Domain         string           `json:"domain"`
	Metadata       map[string]int64 `json:"metadata"`
	Size           int              `json:"size"`
	FNV            string           `json:"fnv1a64"`
	Stride         int              `json:"stride"`
	BPP            int              `json:"bpp"`
	DepthUnits     float32          `json:"depth_units"`
	MotionData     [3]float32       `json:"motion_data"`
	Pose           *expPose         `json:"pose"`
	Category       string           `json:"category"`
	Severity       string           `json:"severity"`
	SerializedData string           `json:"serialized_data"`
}

type expPose struct {
	Translation         [3]float32 `json:"translation"`
	Velocity            [3]float32 `json:"velocity"`
	Acceleration        [3]float32 `json:"acceleration"`
	Rotation            [4]float32 `json:"rotation"`
	AngularVelocity     [3]float32 `json:"angular_velocity"`
	AngularAcceleration [3]float32 `json:"angular_acceleration"`
	TrackerConfidence   uint32     `json:"tracker_confidence"`
	MapperConfidence    uint32     `json:"mapper_confidence"`
}

func readExpected(t testing.TB, name string) []expLine {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "librealsense", name+".expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l expLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// bagRoundTrip returns what playback reports for a frame timestamp after the
// recorder stored it as ROS time (seconds + nanoseconds).
func bagRoundTrip(ts float64) float64 {
	s := ts / 1000
	sec := math.Floor(s)
	nsec := math.Round((s - sec) * 1e9)
	return (sec + 1e-9*nsec) * 1000
}

// Pose frames whose rotation glibc's sinf/cosf computed one float32 step
// away from float32(sin/cos(float64(x))) (testdata/librealsense/README.md).
var glibcSinDiff = map[uint64]float32{19: 0.09485717, 93: 0.4484228, 99: 0.4750316, 109: 0.5184181, 136: 0.62879306}
var glibcCosDiff = map[uint64]float32{169: 0.66373134, 197: 0.5528631, 199: 0.54450285}

func ulpDiff(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// TestSynthPoseGlibc pins the README's documented sinf/cosf values: each
// is one float32 step from float32(sin/cos(float64(x))), and synthPose
// returns it; every other n of pose.bag uses the float64 function rounded.
func TestSynthPoseGlibc(t *testing.T) {
	for n := uint64(1); n <= 200; n++ {
		x := float64(float32(0.005 * float32(n)))
		sin, cos := float32(math.Sin(x)), float32(math.Cos(x))
		p := software.SynthPose(n)
		wantSin, wantCos := sin, cos
		if v, ok := glibcSinDiff[n]; ok {
			if ulpDiff(v, sin) != 1 {
				t.Errorf("n=%d: README sin %v is not one step from %v", n, v, sin)
			}
			wantSin = v
		}
		if v, ok := glibcCosDiff[n]; ok {
			if ulpDiff(v, cos) != 1 {
				t.Errorf("n=%d: README cos %v is not one step from %v", n, v, cos)
			}
			wantCos = v
		}
		if p.Rotation != [4]float32{0, wantSin, 0, wantCos} {
			t.Errorf("n=%d: rotation %v, want (0, %v, 0, %v)", n, p.Rotation, wantSin, wantCos)
		}
	}
}

type captured struct {
	mu     sync.Mutex
	frames map[string][]*sensor.Frame
	notes  []sensor.Notification
	snap   *device.Snapshot
}

// runReference runs the synthetic camera of a reference bag, emulating the
// recorder's pause, and returns what it delivered.
func runReference(t *testing.T, name string) (*software.Synthetic, *captured) {
	cfg, ok := refcam.Config(name)
	if !ok {
		t.Fatalf("no reference config %q", name)
	}
	var paused atomic.Bool
	synthscript.Of(&cfg).OnPause = func() { paused.Store(true) }
	synthscript.Of(&cfg).OnResume = func() { paused.Store(false) }
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &captured{frames: map[string][]*sensor.Frame{}}
	var once sync.Once
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		once.Do(func() {
			s, err := device.Capture(cam)
			if err != nil {
				t.Error(err)
			}
			c.snap = s
		})
		if paused.Load() {
			return
		}
		c.mu.Lock()
		c.frames[f.Profile.Name()] = append(c.frames[f.Profile.Name()], f)
		c.mu.Unlock()
	})
	for _, s := range cam.SoftwareSensors() {
		s.OnNotification(func(n sensor.Notification) {
			c.mu.Lock()
			c.notes = append(c.notes, n)
			c.mu.Unlock()
		})
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range cam.Sensors() {
		if err := s.Start(h); err != nil {
			t.Fatal(err)
		}
	}
	<-cam.Done()
	return cam, c
}

func TestReferenceBags(t *testing.T) {
	for _, name := range refcam.Names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exp := readExpected(t, name)
			cam, got := runReference(t, name)
			defer cam.Close()
			checkTopology(t, cam, got.snap, exp)
			checkFrames(t, got, exp)
			checkNotifications(t, got, exp)
		})
	}
}

func profileByName(cam *software.Synthetic, sensorIdx int, name string) *sensor.StreamProfile {
	for i, s := range cam.SoftwareSensors() {
		if sensorIdx >= 0 && i != sensorIdx {
			continue
		}
		for _, p := range s.Profiles() {
			if p.Name() == name {
				return p
			}
		}
	}
	return nil
}

func checkTopology(t *testing.T, cam *software.Synthetic, snap *device.Snapshot, exp []expLine) {
	t.Helper()
	if snap == nil {
		t.Fatal("no snapshot")
	}
	nSensors := 0
	for _, l := range exp {
		switch l.Type {
		case "device":
			got := map[string]string{}
			for k, v := range snap.Info {
				got[k.String()] = v
			}
			if fmt.Sprint(got) != fmt.Sprint(l.Info) {
				t.Errorf("device info:\n got %v\nwant %v", got, l.Info)
			}
		case "sensor":
			nSensors++
			if l.Index >= len(snap.Sensors) {
				t.Fatalf("sensor %d missing", l.Index)
			}
			ss := snap.Sensors[l.Index]
			if ss.Info[sensor.CameraInfoName] != l.Info["Name"] || len(ss.Info) != len(l.Info) {
				t.Errorf("sensor %d info %v, want %v", l.Index, ss.Info, l.Info)
			}
			var kinds []string
			for _, k := range ss.Kinds {
				kinds = append(kinds, k.String())
			}
			if fmt.Sprint(kinds) != fmt.Sprint(l.Extensions) {
				t.Errorf("sensor %d extensions %v, want %v", l.Index, kinds, l.Extensions)
			}
			if (l.DepthScale != nil) != ss.HasDepthUnits || (l.DepthScale != nil && *l.DepthScale != ss.DepthUnits) {
				t.Errorf("sensor %d depth units %v %v, want %v", l.Index, ss.HasDepthUnits, ss.DepthUnits, l.DepthScale)
			}
			if (l.Baseline != nil) != ss.HasBaseline || (l.Baseline != nil && *l.Baseline != ss.StereoBaselineMM) {
				t.Errorf("sensor %d baseline %v %v, want %v", l.Index, ss.HasBaseline, ss.StereoBaselineMM, l.Baseline)
			}
			if len(ss.RecommendedFilters) != len(l.Filters) {
				t.Errorf("sensor %d filters %v, want %v", l.Index, ss.RecommendedFilters, l.Filters)
			}
			// Every option of the bag, and no other.
			var want []int
			for _, o := range exp {
				if o.Type == "option" && o.Sensor == l.Index {
					want = append(want, o.ID)
				}
			}
			var have []int
			for _, o := range ss.Options {
				have = append(have, int(o.Option))
			}
			if fmt.Sprint(have) != fmt.Sprint(want) {
				t.Errorf("sensor %d options %v, want %v", l.Index, have, want)
			}
		case "option":
			sp, ok := snap.Sensors[l.Sensor].Option(sensor.Option(l.ID))
			switch {
			case !ok:
				t.Errorf("sensor %d: option %s missing", l.Sensor, l.Name)
			case sp.Option.String() != l.Name || sp.Value != l.Value || sp.Description != l.Description:
				t.Errorf("sensor %d option %s = %v %q, want %s %v %q", l.Sensor, sp.Option, sp.Value, sp.Description, l.Name, l.Value, l.Description)
			}
		case "stream_profile":
			p := profileByName(cam, l.Sensor, fmt.Sprintf("%s/%d", l.Stream, l.Index))
			if p == nil {
				t.Errorf("profile %s/%d of sensor %d missing", l.Stream, l.Index, l.Sensor)
				continue
			}
			if int(p.Stream) != l.StreamType || p.Format.String() != l.Format || int(p.Format) != l.FormatID || p.FPS != l.FPS || p.Default != l.Default {
				t.Errorf("profile %s: %+v, want %+v", p.Name(), p, l)
			}
			if l.Intrinsics != nil {
				in := p.Intrinsics
				w := l.Intrinsics
				if p.Kind != sensor.KindVideo || p.Width != l.Width || p.Height != l.Height || in.Width != w.Width || in.Height != w.Height ||
					in.PPX != w.PPX || in.PPY != w.PPY || in.FX != w.FX || in.FY != w.FY || in.Model.String() != w.Model ||
					int(in.Model) != w.ModelID || in.Coeffs != w.Coeffs {
					t.Errorf("profile %s intrinsics %+v, want %+v", p.Name(), in, *w)
				}
			}
			if l.MotionIntrinsics != nil {
				m := p.MotionIntrinsics
				w := l.MotionIntrinsics
				if p.Kind != sensor.KindMotion || m.Data != w.Data || m.NoiseVariances != w.NoiseVariances || m.BiasVariances != w.BiasVariances {
					t.Errorf("profile %s motion intrinsics %+v, want %+v", p.Name(), m, *w)
				}
			}
			if l.ProfileKind == "pose" && p.Kind != sensor.KindPose {
				t.Errorf("profile %s kind %v, want pose", p.Name(), p.Kind)
			}
		case "extrinsics":
			from, to := profileByName(cam, -1, l.From), profileByName(cam, -1, l.To)
			for _, src := range []struct {
				what string
				get  func(a, b *sensor.StreamProfile) (sensor.Extrinsics, error)
			}{{"device", cam.Extrinsics}, {"snapshot", snap.Extrinsics}} {
				e, err := src.get(from, to)
				if (err == nil) != l.Available {
					t.Errorf("%s extrinsics %s→%s: err %v, want available %v", src.what, l.From, l.To, err, l.Available)
					continue
				}
				if err != nil {
					continue
				}
				for i := range e.Rotation {
					if math.Float32bits(e.Rotation[i]) != math.Float32bits(l.Rotation[i]) {
						t.Errorf("%s extrinsics %s→%s rotation %v, want %v", src.what, l.From, l.To, e.Rotation, l.Rotation)
						break
					}
				}
				for i := range e.Translation {
					if math.Float32bits(e.Translation[i]) != math.Float32bits(l.Translation[i]) {
						t.Errorf("%s extrinsics %s→%s translation %v, want %v", src.what, l.From, l.To, e.Translation, l.Translation)
						break
					}
				}
			}
		}
	}
	if nSensors != len(snap.Sensors) {
		t.Errorf("%d sensors, want %d", len(snap.Sensors), nSensors)
	}
}

func checkFrames(t *testing.T, got *captured, exp []expLine) {
	t.Helper()
	want := map[string][]expLine{}
	for _, l := range exp {
		if l.Type == "frame" {
			k := fmt.Sprintf("%s/%d", l.Stream, l.Index)
			want[k] = append(want[k], l)
		}
	}
	var names []string
	for k := range want {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(got.frames) != len(want) {
		t.Errorf("streams %d, want %d", len(got.frames), len(want))
	}
	for _, name := range names {
		w, g := want[name], got.frames[name]
		if len(g) != len(w) {
			t.Errorf("%s: %d frames, want %d", name, len(g), len(w))
			continue
		}
		for i := range w {
			f, e := g[i], w[i]
			ctx := fmt.Sprintf("%s frame %d (n=%d)", name, i, e.FrameNumber)
			if f.Number != e.FrameNumber {
				t.Errorf("%s: number %d", ctx, f.Number)
			}
			ts := bagRoundTrip(f.TimestampMs)
			if f.Profile.Kind == sensor.KindPose {
				ts = f.TimestampMs // written as an exact string
			}
			if ts != e.Timestamp {
				t.Errorf("%s: timestamp %v (raw %v), want %v", ctx, ts, f.TimestampMs, e.Timestamp)
			}
			if f.SystemTimeMs != 0 {
				t.Errorf("%s: system time %v, want 0 (the bags' system_time)", ctx, f.SystemTimeMs)
			}
			if f.Domain.String() != e.Domain {
				t.Errorf("%s: domain %v, want %v", ctx, f.Domain, e.Domain)
			}
			md := map[string]int64{}
			f.Metadata.Range(func(k sensor.MetadataKey, v int64) bool { md[k.String()] = v; return true })
			wmd := map[string]int64{}
			for k, v := range e.Metadata {
				wmd[k] = v
			}
			if _, rich := md["Actual Exposure"]; !rich {
				delete(wmd, "Actual Fps") // added by librealsense in basic mode
			}
			if fmt.Sprint(md) != fmt.Sprint(wmd) {
				t.Errorf("%s: metadata\n got %v\nwant %v", ctx, md, wmd)
			}
			if len(f.Data) != e.Size {
				t.Errorf("%s: size %d, want %d", ctx, len(f.Data), e.Size)
			}
			h := fnv.New64a()
			h.Write(f.Data)
			sum := fmt.Sprintf("%016x", h.Sum64())
			switch f.Profile.Kind {
			case sensor.KindVideo:
				if f.Width != e.Width || f.Height != e.Height || f.Stride != e.Stride || f.BPP != e.BPP || f.DepthUnits != e.DepthUnits {
					t.Errorf("%s: %dx%d stride %d bpp %d units %v, want %+v", ctx, f.Width, f.Height, f.Stride, f.BPP, f.DepthUnits, e)
				}
			case sensor.KindMotion:
				if f.Motion != e.MotionData {
					t.Errorf("%s: motion %v, want %v", ctx, f.Motion, e.MotionData)
				}
			case sensor.KindPose:
				if f.Pose != sensor.Pose(*e.Pose) {
					t.Errorf("%s: pose %+v, want %+v", ctx, f.Pose, *e.Pose)
				}
			}
			if sum != e.FNV {
				t.Errorf("%s: fnv1a64 %s, want %s", ctx, sum, e.FNV)
			}
		}
	}
}

func checkNotifications(t *testing.T, got *captured, exp []expLine) {
	t.Helper()
	var want []expLine
	for _, l := range exp {
		if l.Type == "notification" {
			want = append(want, l)
		}
	}
	if len(got.notes) != len(want) {
		t.Fatalf("%d notifications, want %d", len(got.notes), len(want))
	}
	for i, w := range want {
		n := got.notes[i]
		if n.Category.String() != w.Category || n.Severity.String() != w.Severity || n.Description != w.Description || n.SerializedData != w.SerializedData {
			t.Errorf("notification %d: %+v, want %+v", i, n, w)
		}
	}
}
