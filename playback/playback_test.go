package playback

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/sensor"
)

const (
	refBag       = "../testdata/spec/ref-head-v4-softdevice.bag"
	refDump      = "../testdata/spec/ref-head-v4-softdevice.dump.txt"
	depthColor   = "../testdata/librealsense/depth_color.bag"
	irBag        = "../testdata/librealsense/depth_color_ir2_uncompressed.bag"
	poseBag      = "../testdata/librealsense/pose.bag"
	motionBag    = "../testdata/librealsense/motion_accel_gyro.bag"
	optionsBag   = "../testdata/librealsense/options_pause_notify.bag"
	realBag      = "../testdata/librealsense/real/single_depth_color_640x480.bag"
	waitDeadline = 20 * time.Second
)

// raceEnabled is set by race_test.go under -race.
var raceEnabled bool

// rec is one delivered frame.
type rec struct {
	stream string
	number uint64
	pos    int64
}

func (r rec) String() string { return fmt.Sprintf("%s#%d@%d", r.stream, r.number, r.pos) }

// collector records frames and status changes.
type collector struct {
	mu      sync.Mutex
	frames  []rec
	dev     *Device
	delay   func()
	stopped chan struct{}
	once    sync.Once
}

func newCollector(d *Device) *collector {
	c := &collector{dev: d, stopped: make(chan struct{})}
	d.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			c.once.Do(func() { close(c.stopped) })
		}
	})
	return c
}

func (c *collector) HandleFrame(f *sensor.Frame) {
	pos := int64(c.dev.Position())
	if c.delay != nil {
		c.delay()
	}
	c.mu.Lock()
	c.frames = append(c.frames, rec{f.Profile.Name(), f.Number, pos})
	c.mu.Unlock()
}

func (c *collector) snapshot() []rec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]rec(nil), c.frames...)
}

func (c *collector) waitStopped(t *testing.T) {
	t.Helper()
	await.Recv(t, "the end of playback", c.stopped)
}

func open(t testing.TB, path string, opts *Options) *Device {
	t.Helper()
	d, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// startAll opens every sensor with all profiles and starts them. In
// non-real-time mode the device waits for all of them; in real time they
// are started while paused, so that reading begins with every sensor
// started.
func startAll(t testing.TB, d *Device, h sensor.Handler) {
	t.Helper()
	rt := d.RealTime()
	if rt {
		if err := d.Pause(); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range openAll(t, d) {
		if err := s.Start(h); err != nil {
			t.Fatal(err)
		}
	}
	if !rt {
		return
	}
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
}

func playAll(t *testing.T, path string) []rec {
	t.Helper()
	d := open(t, path, &Options{NonRealTime: true})
	c := newCollector(d)
	startAll(t, d, c)
	c.waitStopped(t)
	return c.snapshot()
}

// TestMD5Constants pins the md5sums by which playback recognises the
// message type of each topic kind it reads (spec §1.6) against
// realsense-msgdefs.json.
func TestMD5Constants(t *testing.T) {
	b, err := os.ReadFile("../testdata/spec/realsense-msgdefs.json")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, c := range []struct {
		kind     layout.TopicKind
		typ, md5 string
	}{
		{layout.KindFileVersion, "std_msgs/UInt32", "304a39449588c7f8ce2df6e8001c5fce"},
		{layout.KindDeviceInfo, "diagnostic_msgs/KeyValue", "cf57fdc6617a881a88c16e768132149c"},
		{layout.KindOptionValue, "std_msgs/Float32", "73fcbf46b49191e672908e50842a83d4"},
		{layout.KindOptionDescription, "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1"},
		{layout.KindStreamInfo, "realsense_msgs/StreamInfo", "311d7e24eac31bb87271d041bf70ff7d"},
		{layout.KindCameraInfo, "sensor_msgs/CameraInfo", "c9a58c1b0b154e0e6da7578cb991d214"},
		{layout.KindImuIntrinsic, "realsense_msgs/ImuIntrinsic", "aebdc2f8f9726f1c3ca823ab56e47429"},
		{layout.KindExtrinsics, "geometry_msgs/Transform", "ac9eff44abf714214112b05d54a3cf9b"},
		{layout.KindPoseAccel, "geometry_msgs/Accel", "9f195f881246fdfa2798d1d3eebca84a"},
		{layout.KindPoseTwist, "geometry_msgs/Twist", "9f195f881246fdfa2798d1d3eebca84a"},
		{layout.KindImageData, "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743"},
		{layout.KindImuData, "sensor_msgs/Imu", "6a62c6daae103f4ff57a132d6f95cec2"},
		{layout.KindNotification, "realsense_msgs/Notification", "cdb7a97a510446301f8e6fb67d8cccb0"},
	} {
		re := regexp.MustCompile(`"` + regexp.QuoteMeta(c.typ) + `"\s*:\s*\{\s*"md5sum"\s*:\s*"([0-9a-f]{32})"`)
		m := re.FindStringSubmatch(s)
		if m == nil || m[1] != c.md5 {
			t.Errorf("%s: md5 %q in msgdefs, want %s", c.typ, m, c.md5)
		}
		if typ := c.kind.Type(); typ.Name != c.typ || typ.MD5 != c.md5 {
			t.Errorf("%v: type %s %s, want %s %s", c.kind, typ.Name, typ.MD5, c.typ, c.md5)
		}
	}
}

var dumpFrame = regexp.MustCompile(`^(\d+)\.(\d{9}) /device_0/sensor_(\d+)/(\w+)_(\d+)/(image/data|imu/data|pose/transform/data|pose/metadata) (.*)$`)
var dumpSeq = regexp.MustCompile(`'seq': (\d+)`)
var dumpFrameNumber = regexp.MustCompile(`'key': 'Frame number', 'value': '(\d+)'`)

// TestRefHeadSoftDevice plays the spec's reference bag and checks the
// topology and frames its decoded listing shows.
func TestRefHeadSoftDevice(t *testing.T) {
	f, err := os.Open(refDump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []rec
	poseAt := map[int64]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := dumpFrame.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		ns, _ := strconv.ParseInt(m[2], 10, 64)
		pos := sec*1e9 + ns
		name := m[4] + "/" + m[5]
		switch m[6] {
		case "image/data", "imu/data":
			seq, _ := strconv.ParseUint(dumpSeq.FindStringSubmatch(m[7])[1], 10, 64)
			want = append(want, rec{name, seq, pos})
		case "pose/transform/data":
			poseAt[pos] = len(want)
			want = append(want, rec{name, 0, pos})
		case "pose/metadata":
			if fm := dumpFrameNumber.FindStringSubmatch(m[7]); fm != nil {
				n, _ := strconv.ParseUint(fm[1], 10, 64)
				want[poseAt[pos]].number = n
			}
		}
	}
	if len(want) != 36 {
		t.Fatalf("listing has %d frames, want 36 (6 per stream)", len(want))
	}

	d := open(t, refBag, &Options{NonRealTime: true})
	if d.FileVersion() != 4 {
		t.Errorf("file version %d, want 4", d.FileVersion())
	}
	names := []string{"Stereo Module", "RGB Camera", "Motion Module", "Tracking Module"}
	streams := [][]string{{"Infrared/1", "Depth/0"}, {"Color/0"}, {"Gyro/0", "Accel/0"}, {"Pose/0"}}
	kinds := [][]extensions.SensorKind{{extensions.KindDepthSensor, extensions.KindDepthStereoSensor},
		{extensions.KindColorSensor}, {extensions.KindMotionSensor}, nil}
	ss := d.Sensors()
	if len(ss) != len(names) {
		t.Fatalf("%d sensors, want %d", len(ss), len(names))
	}
	var all []*sensor.StreamProfile
	for i, s := range ss {
		if got := s.Info()[sensor.CameraInfoName]; got != names[i] {
			t.Errorf("sensor %d name %q, want %q", i, got, names[i])
		}
		var got []string
		for _, p := range s.Profiles() {
			got = append(got, p.Name())
			if !p.Default {
				t.Errorf("%v not default", p)
			}
			all = append(all, p)
		}
		if strings.Join(got, ",") != strings.Join(streams[i], ",") {
			t.Errorf("sensor %d streams %v, want %v", i, got, streams[i])
		}
		if k := s.(extensions.Kinded).Kinds(); fmt.Sprint(k) != fmt.Sprint(kinds[i]) {
			t.Errorf("sensor %d kinds %v, want %v", i, k, kinds[i])
		}
	}
	if _, ok := ss[0].(extensions.DepthStereoSensor); !ok {
		t.Error("Stereo Module is not a DepthStereoSensor")
	}
	if _, ok := ss[1].(extensions.DepthSensor); ok {
		t.Error("RGB Camera is a DepthSensor")
	}
	// Extrinsics: group 1 holds Depth, Infrared and Color only.
	video := map[string]bool{"Depth/0": true, "Infrared/1": true, "Color/0": true}
	for _, a := range all {
		for _, b := range all {
			if a == b {
				continue
			}
			_, err := d.Extrinsics(a, b)
			if want := video[a.Name()] && video[b.Name()]; (err == nil) != want {
				t.Errorf("extrinsics %v→%v: err %v, want available %v", a.Name(), b.Name(), err, want)
			} else if err != nil && !errors.Is(err, device.ErrNoExtrinsics) {
				t.Errorf("extrinsics error %v does not wrap ErrNoExtrinsics", err)
			}
		}
	}
	var notes []sensor.Notification
	var nmu sync.Mutex
	ss[0].(extensions.Notifier).OnNotification(func(n sensor.Notification) {
		nmu.Lock()
		notes = append(notes, n)
		nmu.Unlock()
	})
	c := newCollector(d)
	startAll(t, d, c)
	c.waitStopped(t)
	got := c.snapshot()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("frames\n got %v\nwant %v", got, want)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || notes[0].Category != sensor.NotificationCategoryHardwareEvent {
		t.Errorf("notifications %+v, want one Hardware Event", notes)
	}
	if d.Position() != 0 || d.Status() != extensions.StatusStopped {
		t.Errorf("after EOF: position %v status %v, want 0 Stopped", d.Position(), d.Status())
	}
}

// TestDeterminism: non-real-time runs with a randomly slow consumer deliver
// the same frames in the same order.
func TestDeterminism(t *testing.T) {
	var first []rec
	for run := 0; run < 20; run++ {
		d := open(t, refBag, &Options{NonRealTime: true})
		c := newCollector(d)
		rng := rand.New(rand.NewSource(int64(run)))
		var rmu sync.Mutex
		c.delay = func() {
			rmu.Lock()
			n, k := rng.Intn(4), rng.Intn(300)
			rmu.Unlock()
			if n == 0 {
				yield(k)
			} else if n == 1 {
				runtime.Gosched()
			}
		}
		startAll(t, d, c)
		c.waitStopped(t)
		got := c.snapshot()
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = got
			if len(first) != 36 {
				t.Fatalf("run 0 delivered %d frames, want 36", len(first))
			}
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(first) {
			t.Fatalf("run %d differs:\n got %v\nwant %v", run, got, first)
		}
	}
}

// yield lets the other goroutines run n times: a random delay of the
// scheduler's, not of the wall clock, that varies the interleavings.
func yield(n int) {
	for range n {
		runtime.Gosched()
	}
}

func fdCount(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// TestStressOpenPlayClose opens, plays and closes devices in a synctest
// bubble: a goroutine that outlives its device's Close would be left
// blocked in the bubble, which fails the test.
func TestStressOpenPlayClose(t *testing.T) { synctest.Test(t, stressOpenPlayClose) }

func stressOpenPlayClose(t *testing.T) {
	cycles := 250
	if testing.Short() || raceEnabled {
		cycles = 60 // keeps -race runs short; the default run does 250
	}
	baseFD := fdCount(t)
	paths := []string{poseBag, motionBag, depthColor, refBag}
	for i := 0; i < cycles; i++ {
		p := paths[i%len(paths)]
		d, err := Open(p, &Options{NonRealTime: i%2 == 0, Speed: 50})
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan struct{}, 1)
		h := sensor.HandlerFunc(func(*sensor.Frame) {
			select {
			case got <- struct{}{}:
			default:
			}
		})
		for _, s := range d.Sensors() {
			if len(s.Profiles()) > 0 {
				if err := s.Open(s.Profiles()...); err != nil {
					t.Fatal(err)
				}
				if err := s.Start(h); err != nil {
					t.Fatal(err)
				}
			}
		}
		select {
		case <-got:
		case <-time.After(waitDeadline):
			t.Fatalf("cycle %d: no frame", i)
		}
		switch i % 3 {
		case 0: // close while playing
		case 1: // stop and close the sensors first
			for _, s := range d.Sensors() {
				if err := s.Stop(); err != nil && !errors.Is(err, sensor.ErrNotStarted) {
					t.Fatal(err)
				}
				if err := s.Close(); err != nil && !errors.Is(err, sensor.ErrNotOpen) {
					t.Fatal(err)
				}
			}
		case 2:
			if err := d.Seek(d.Duration() / 2); err != nil {
				t.Fatal(err)
			}
			if err := d.Pause(); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := d.Pause(); !errors.Is(err, ErrClosed) {
			t.Fatalf("Pause after Close: %v, want ErrClosed", err)
		}
	}
	if fd := fdCount(t); fd > baseFD {
		t.Fatalf("file descriptors: %d before, %d after", baseFD, fd)
	}
}

// controlCalls is how many control calls each of TestConcurrentControl's
// goroutines makes.
const controlCalls = 60

// TestConcurrentControl calls Seek/Pause/Resume/SetSpeed from several
// goroutines during real-time playback; -race reports a data race it
// provokes, and every call must succeed.
func TestConcurrentControl(t *testing.T) {
	d := open(t, depthColor, &Options{Speed: 4, Repeat: true})
	var n sync.WaitGroup
	var frames sync.Map
	startAll(t, d, sensor.HandlerFunc(func(f *sensor.Frame) { frames.Store(f.Profile.UID, f.Number) }))
	for g := 0; g < 4; g++ {
		n.Add(1)
		go func(g int) {
			defer n.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for range controlCalls {
				var err error
				switch rng.Intn(5) {
				case 0:
					err = d.Seek(time.Duration(rng.Int63n(int64(d.Duration()) + 1)))
				case 1:
					err = d.Pause()
				case 2:
					err = d.Resume()
				case 3:
					err = d.SetSpeed(0.5 + 8*rng.Float64())
				case 4:
					_ = d.Position()
					_ = d.Status()
					_ = d.Stats()
				}
				if err != nil {
					t.Errorf("control: %v", err)
					return
				}
				yield(rng.Intn(300))
			}
		}(g)
	}
	n.Wait()
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := d.SetSpeed(0); err == nil {
		t.Error("SetSpeed(0) succeeded")
	}
	if err := d.SetSpeed(-1); err == nil {
		t.Error("SetSpeed(-1) succeeded")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPacing checks on a synctest bubble's clock that frames leave at
// their recorded spacing divided by the speed, through the reader's real
// waits (the timer and the precise sleep).
func TestPacing(t *testing.T) {
	for _, speed := range []float64{1, 2.5} {
		t.Run(fmt.Sprint(speed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { pacing(t, speed) })
		})
	}
}

func pacing(t *testing.T, speed float64) {
	d := open(t, poseBag, &Options{Speed: speed})
	c := newCollector(d)
	var at []time.Time
	s := d.Sensors()[0]
	if err := s.Open(s.Profiles()...); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		at = append(at, time.Now()) // one stream: calls do not overlap
		c.HandleFrame(f)
	})); err != nil {
		t.Fatal(err)
	}
	c.waitStopped(t)
	got := c.snapshot()
	if len(got) < 50 || len(at) != len(got) {
		t.Fatalf("%d frames (%d times), want the bag's frames", len(got), len(at))
	}
	// The first frame leaves at once; frame k when its bag time since the
	// first, divided by the speed, has passed.
	for k := 1; k < len(got); k++ {
		due := at[0].Add(time.Duration(float64(got[k].pos-got[0].pos) / speed))
		if !at[k].Equal(due) {
			t.Fatalf("frame %d (bag %d) delivered at %v, want %v", k, got[k].pos, at[k].Sub(at[0]), due.Sub(at[0]))
		}
	}
}

// TestCallbackOrder: notification callbacks run in registration order, as
// with the other backends (callbacks.Callbacks), and a cancelled one no
// longer runs.
func TestCallbackOrder(t *testing.T) {
	d := open(t, refBag, &Options{NonRealTime: true})
	const n = 16
	var mu sync.Mutex
	var calls []int
	notifier := d.Sensors()[0].(extensions.Notifier)
	var cancels []func()
	for i := range n {
		cancels = append(cancels, notifier.OnNotification(func(sensor.Notification) {
			mu.Lock()
			calls = append(calls, i)
			mu.Unlock()
		}))
	}
	cancels[3]()
	c := newCollector(d)
	startAll(t, d, c)
	c.waitStopped(t)
	mu.Lock()
	defer mu.Unlock()
	if len(calls) == 0 || len(calls)%(n-1) != 0 {
		t.Fatalf("%d callback calls, want a multiple of %d (one notification at least)", len(calls), n-1)
	}
	for k, i := range calls {
		want := k % (n - 1)
		if want >= 3 {
			want++ // 3 was cancelled
		}
		if i != want {
			t.Fatalf("call %d ran callback %d, want %d (registration order): %v", k, i, want, calls)
		}
	}
}
