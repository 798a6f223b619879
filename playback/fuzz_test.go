package playback_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/leak"
	"github.com/rsbag/rsbag/internal/tools/rsdump"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Limits of one fuzz input's playback.
const (
	fuzzFrameCap = 300             // frames delivered before the input stops playback
	fuzzWatchdog = 8 * time.Second // an input whose dump takes longer (bubble time) hangs
)

// FuzzOpenPlay feeds arbitrary bytes to Open as a bag file and, when it
// opens, queries the whole topology and plays it to the end in
// non-real-time mode with every sensor opened and started. No input may
// panic, hang, or leave a goroutine behind; frames must keep the
// sensor.Frame contract.
func FuzzOpenPlay(f *testing.F) {
	for _, p := range seedPrograms {
		f.Add(bagBytes(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.bag")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		exercise(t, path, len(data)%3)
	})
}

// FuzzDescription builds a valid bag whose content (topics, stream infos,
// intrinsics, images, metadata, options, notifications, file version) the
// fuzz input chooses, and plays it like FuzzOpenPlay.
func FuzzDescription(f *testing.F) {
	for _, p := range seedPrograms {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.bag")
		if !buildBag(t, path, prog) {
			return
		}
		mode := 0
		if len(prog) > 0 {
			mode = int(prog[0]/8) % 3
		}
		exercise(t, path, mode)
	})
}

// Modes of exercise: where playback starts.
const (
	fromStart = iota
	fromMiddle
	fromSecondFrame
)

// exercise opens the bag, plays it (from the start, from the middle or
// from the second frame of the first stream, as mode says) and dumps it,
// in a synctest bubble, and checks that no goroutine outlives the device.
// The bubble is the watchdog: a playback or dump that waits forever is
// reported by the dump's timeout on the bubble's clock (which jumps ahead
// while every goroutine waits) or by synctest as a deadlock, whatever the
// machine's speed.
func exercise(t *testing.T, path string, mode int) {
	synctest.Test(t, func(t *testing.T) {
		before := leak.Count()
		if msg := openPlay(path, mode); msg != "" {
			t.Fatal(msg)
		}
		// The dump must end by itself (end of file, limit or error),
		// never by its timeout.
		var out bytes.Buffer
		_ = rsdump.Run(&out, path, rsdump.Options{Limit: 50, Timeout: fuzzWatchdog})
		if bytes.Contains(out.Bytes(), []byte(`"timeout"`)) {
			t.Fatalf("rsdump timed out:\n%s", out.String())
		}
		// Close returns after every goroutine of the device has ended:
		// once the bubble's other goroutines have exited or wait for
		// good, none may be left.
		leak.Check(t, before)
	})
}

// openPlay opens and plays the bag; it returns a description of a broken
// contract, or "".
func openPlay(path string, mode int) string {
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		return ""
	}
	closed := false
	defer func() {
		if !closed {
			dev.Close()
		}
	}()
	_ = dev.Info()
	_ = dev.Duration()
	_ = dev.FileVersion()
	var profiles []*sensor.StreamProfile
	for _, s := range dev.Sensors() {
		_ = s.Info()
		if k, ok := s.(extensions.Kinded); ok {
			_ = k.Kinds()
		}
		if r, ok := s.(extensions.RecommendedFilters); ok {
			_ = r.RecommendedFilters()
		}
		if o, ok := s.(extensions.Options); ok {
			for _, opt := range o.SupportedOptions() {
				_, _ = o.Option(opt)
				_, _ = o.OptionRange(opt)
				_ = o.OptionDescription(opt)
			}
		}
		if d, ok := s.(extensions.DepthStereoSensor); ok {
			_ = d.StereoBaselineMM()
		}
		if d, ok := s.(extensions.DepthSensor); ok {
			_ = d.DepthUnits()
		}
		for _, p := range s.Profiles() {
			if p == nil {
				return "nil stream profile"
			}
			_ = p.String()
			profiles = append(profiles, p)
		}
	}
	for _, a := range profiles {
		for _, b := range profiles {
			_, _ = dev.Extrinsics(a, b)
		}
	}

	stopped := make(chan struct{})
	var once sync.Once
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			once.Do(func() { close(stopped) })
		}
	})
	var (
		mu     sync.Mutex
		frames int
		broken string
	)
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		msg := checkFrame(f)
		mu.Lock()
		defer mu.Unlock()
		frames++
		if msg != "" && broken == "" {
			broken = msg
		}
		if frames == fuzzFrameCap {
			go dev.Stop()
		}
	})
	var opened []sensor.Sensor
	for _, s := range dev.Sensors() {
		if len(s.Profiles()) == 0 {
			continue
		}
		if err := s.Open(s.Profiles()...); err != nil {
			continue
		}
		opened = append(opened, s)
	}
	switch mode {
	case fromMiddle:
		if err := dev.Seek(dev.Duration() / 2); err != nil {
			return "Seek to the middle: " + err.Error()
		}
	case fromSecondFrame:
		if len(opened) > 0 {
			_ = dev.SeekFrame(opened[0].Profiles()[0], 1)
		}
	}
	started := 0
	for _, s := range opened {
		if s.Start(h) == nil {
			started++
		} else {
			s.Close()
		}
	}
	if started > 0 {
		<-stopped
	}
	_ = dev.Stats()
	_ = dev.Err()
	closed = true
	if err := dev.Close(); err != nil {
		return "Close: " + err.Error()
	}
	mu.Lock()
	defer mu.Unlock()
	return broken
}

// checkFrame checks the sensor.Frame contract.
func checkFrame(f *sensor.Frame) string {
	if f.Profile == nil {
		return "frame without a profile"
	}
	if f.Profile.Kind == sensor.KindVideo {
		if f.Width < 0 || f.Height < 0 || f.Stride < 0 || f.BPP < 0 {
			return "negative frame geometry " + strconv.Itoa(f.Width) + "x" + strconv.Itoa(f.Height)
		}
		if uint64(f.Stride)*uint64(f.Height) > uint64(len(f.Data)) {
			return "video frame " + strconv.Itoa(f.Width) + "x" + strconv.Itoa(f.Height) + " stride " +
				strconv.Itoa(f.Stride) + " has " + strconv.Itoa(len(f.Data)) + " data bytes"
		}
		if uint64(f.Width)*uint64(f.BPP) > 8*uint64(f.Stride) {
			return "video frame row wider than its stride"
		}
	}
	return ""
}

// fz reads a fuzz program; reads past its end give zeros.
type fz struct{ b []byte }

func (z *fz) more() bool { return len(z.b) > 0 }

func (z *fz) u8() byte {
	if len(z.b) == 0 {
		return 0
	}
	v := z.b[0]
	z.b = z.b[1:]
	return v
}

func (z *fz) u16() uint16 { return uint16(z.u8()) | uint16(z.u8())<<8 }
func (z *fz) u32() uint32 { return uint32(z.u16()) | uint32(z.u16())<<16 }

// f64 picks a float: small values, edge values or raw bits.
func (z *fz) f64() float64 {
	switch b := z.u8(); b % 12 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return -1
	case 3:
		return math.NaN()
	case 4:
		return math.Inf(1)
	case 5:
		return math.Inf(-1)
	case 6:
		return 1e300
	case 7:
		return float64(math.MaxFloat32) * 2
	case 8:
		return math.Float64frombits(uint64(z.u32())<<32 | uint64(z.u32()))
	default:
		return float64(int8(z.u8())) / 4
	}
}

func (z *fz) f32() float32 { return float32(z.f64()) }

// str picks one of the names or, past them, a fuzzed string.
func (z *fz) str(names ...string) string {
	i := int(z.u8())
	if i < len(names) {
		return names[i]
	}
	if i < 2*len(names) || i < 128 {
		if len(names) == 0 {
			return ""
		}
		return names[i%len(names)]
	}
	n := int(z.u8() % 24)
	s := make([]byte, 0, n)
	for j := 0; j < n; j++ {
		s = append(s, z.u8())
	}
	return string(s)
}

// dim picks a width, height or step.
func (z *fz) dim() uint32 {
	switch z.u8() % 8 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return 4
	case 3:
		return 8
	case 4:
		return math.MaxUint32
	case 5:
		return 65535
	case 6:
		return z.u32()
	default:
		return uint32(z.u8())
	}
}

func (z *fz) vec() msgs.Vector3 { return msgs.Vector3{X: z.f64(), Y: z.f64(), Z: z.f64()} }

// sensorIndex picks a small index mostly, a large one sometimes.
func (z *fz) sensorIndex() int {
	b := z.u8()
	if b < 248 {
		return int(b % 4)
	}
	return int(z.u32() % 1_000_000)
}

func (z *fz) stream() sensor.Stream {
	all := []sensor.Stream{sensor.StreamDepth, sensor.StreamColor, sensor.StreamInfrared, sensor.StreamAccel,
		sensor.StreamGyro, sensor.StreamPose, sensor.StreamFisheye, sensor.StreamConfidence}
	b := z.u8()
	if int(b) < 4*len(all) {
		return all[int(b)%len(all)]
	}
	return sensor.Stream(b)
}

var (
	encodings = []string{"mono16", "rgb8", "bgr8", "rgba8", "bgra8", "yuv422", "mono8", "16UC1", "8UC1",
		"MOTION_XYZ32F", "6DOF", "RAW10", "Y8", "Z16", "UYVY", "disparity32", ""}
	sensorNames = []string{"Stereo Module", "RGB Camera", "Motion Module", "Wide FOV Camera",
		"Coded-Light Depth Sensor", "Tracking Module", ""}
	optionNames = []string{"Depth Units", "Stereo Baseline", "Exposure", "Enable Auto Exposure", "Gain",
		"Laser Power", "Frames Queue Size", "Nonexistent Option"}
	filterNames = []string{"Decimation Filter", "Disparity Filter", "Spatial Filter", "Temporal Filter",
		"Hole Filling Filter", "Threshold Filter", "Unknown Filter"}
	distortions = []string{"Brown Conrady", "Inverse Brown Conrady", "Kannala Brandt4", "None", "plumb_bob", ""}
	legacyTypes = []string{"DEPTH", "COLOR", "INFRARED", "INFRARED2", "FISHEYE", "ACCLEROMETER", "GYROMETER", "GPIO"}
	fixedVals   = []string{"0.001000", "1700000000000.000000", "1", "-1", "nan", "inf", "1e999", "18446744073709551616",
		"Hardware Clock", "System Time", "Global Time", "abc", ""}
)

func cameraInfoNames() []string {
	var out []string
	for i := 0; i < 24; i++ {
		if s := sensor.CameraInfo(i).String(); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func metadataNames() []string {
	out := []string{layout.KeySystemTime, layout.KeyTimestampDomain, layout.KeyFrameTimestamp, layout.KeyFrameNumber,
		layout.KeyTrackerConfidence, layout.KeyMapperConfidence}
	for i := 0; i < sensor.Count[sensor.MetadataKey](); i += 3 {
		out = append(out, sensor.MetadataKey(i).String())
	}
	return out
}

func notificationCategories() []string {
	var out []string
	for i := 0; i < 16; i++ {
		out = append(out, sensor.NotificationCategory(i).String())
	}
	return out
}
