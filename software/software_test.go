package software

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/internal/testsupport/leak"
	"github.com/rsbag/rsbag/sensor"
)

func TestSoftwareDeviceLifecycle(t *testing.T) { synctest.Test(t, softwareDeviceLifecycle) }

func softwareDeviceLifecycle(t *testing.T) {
	base := leak.Count()
	d := New(sensor.Info{sensor.CameraInfoName: "dev"})
	s := d.AddSensor("RGB Camera")
	p := s.AddVideoStream(VideoStream{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Width: 2, Height: 2, FPS: 30})
	h := sensor.HandlerFunc(func(*sensor.Frame) {})
	if err := s.Start(h); !errors.Is(err, sensor.ErrNotOpen) {
		t.Errorf("start unopened: %v", err)
	}
	if err := s.Open(&sensor.StreamProfile{}); !errors.Is(err, sensor.ErrNoProfile) {
		t.Errorf("open foreign profile: %v", err)
	}
	if err := s.Open(p); err != nil {
		t.Fatal(err)
	}
	if err := s.Open(p); !errors.Is(err, sensor.ErrAlreadyOpen) {
		t.Errorf("open twice: %v", err)
	}
	if err := s.Inject(&sensor.Frame{Profile: p}); !errors.Is(err, sensor.ErrNotStarted) {
		t.Errorf("inject stopped: %v", err)
	}
	var got []*sensor.Frame
	if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) { got = append(got, f) })); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(h); !errors.Is(err, sensor.ErrAlreadyStarted) {
		t.Errorf("start twice: %v", err)
	}
	if v, _ := s.Option(sensor.OptionFramesQueueSize); v != 0 {
		t.Errorf("Frames Queue Size while streaming = %v, want 0", v)
	}
	for i := 1; i <= 3; i++ {
		if err := s.Inject(&sensor.Frame{Profile: p, Number: uint64(i), Data: make([]byte, 12)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Flush()
	if len(got) != 3 || got[2].Number != 3 || got[0].Stride != 6 || got[0].BPP != 24 || got[0].Width != 2 {
		t.Fatalf("delivered %d frames: %+v", len(got), got)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); !errors.Is(err, sensor.ErrNotStarted) {
		t.Errorf("stop twice: %v", err)
	}
	if v, _ := s.Option(sensor.OptionFramesQueueSize); v != 16 {
		t.Errorf("Frames Queue Size stopped = %v, want 16", v)
	}
	if k := s.Kinds(); len(k) != 1 || k[0] != extensions.KindColorSensor {
		t.Errorf("kinds %v", k)
	}
	var notes []sensor.Notification
	cancel := s.OnNotification(func(n sensor.Notification) { notes = append(notes, n) })
	s.Notify(sensor.Notification{Description: "x"})
	cancel()
	s.Notify(sensor.Notification{Description: "y"})
	if len(notes) != 1 || notes[0].Description != "x" {
		t.Errorf("notifications %v", notes)
	}
	if _, err := d.Extrinsics(p, p); !errors.Is(err, device.ErrNoExtrinsics) {
		t.Errorf("extrinsics without registration: %v", err)
	}
	if err := s.Start(h); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Open(p); !errors.Is(err, sensor.ErrClosed) {
		t.Errorf("open after close: %v", err)
	}
	leak.Check(t, base)
}

// TestConcurrentStartStopClose starts, stops and closes the sensors of a
// streaming synthetic camera from several goroutines; run with -race.
func TestConcurrentStartStopClose(t *testing.T) { synctest.Test(t, concurrentStartStopClose) }

func concurrentStartStopClose(t *testing.T) {
	base := leak.Count()
	for round := 0; round < 4; round++ {
		cam, err := NewSynthetic(SyntheticConfig{
			Depth: &Video{Width: 64, Height: 48, FPS: 30}, Color: &Video{Width: 64, Height: 48, FPS: 30},
			AccelFPS: 200, Metadata: MetadataBasic,
		})
		if err != nil {
			t.Fatal(err)
		}
		var frames atomic.Int64
		h := sensor.HandlerFunc(func(f *sensor.Frame) {
			frames.Add(1)
			_, _ = cam.Extrinsics(f.Profile, f.Profile)
		})
		sensors := cam.Sensors()
		var wg sync.WaitGroup
		midway := make(chan struct{}) // goroutine 0 is half done
		for g := 0; g < 6; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				r := rand.New(rand.NewSource(int64(g + 10*round)))
				for i := 0; i < 40; i++ {
					if g == 0 && i == 20 {
						close(midway)
					}
					s := sensors[r.Intn(len(sensors))]
					switch r.Intn(5) {
					case 0:
						_ = s.Open(s.Profiles()...)
					case 1, 2:
						_ = s.Start(h)
					case 3:
						_ = s.Stop()
					case 4:
						if r.Intn(4) == 0 {
							_ = s.Close()
						}
					}
					if _, err := device.Capture(cam); err != nil {
						t.Error(err)
					}
				}
			}(g)
		}
		if round%2 == 1 {
			// Close the device while the others are still at work.
			<-midway
			if err := cam.Close(); err != nil {
				t.Error(err)
			}
		}
		wg.Wait()
		if err := cam.Close(); err != nil {
			t.Error(err)
		}
		n := frames.Load()
		for _, s := range sensors {
			if err := s.Start(h); err == nil {
				t.Error("start after device close succeeded")
			}
		}
		if frames.Load() != n {
			t.Error("frames delivered after Close")
		}
	}
	leak.Check(t, base)
}

// TestPacing checks the synthetic camera's pacing on a synctest bubble's
// clock: 31 frames at 30 fps take a second divided by the speed, frames
// arrive at their stream times and the notification at its time.
func TestPacing(t *testing.T) {
	for _, speed := range []float64{1, 2, 0.5} {
		t.Run(fmt.Sprint(speed), func(t *testing.T) { synctest.Test(t, func(t *testing.T) { pacing(t, speed) }) })
	}
}

func pacing(t *testing.T, speed float64) {
	cfg := SyntheticConfig{Depth: &Video{Width: 8, Height: 8, FPS: 30}, Frames: 31, Speed: speed, HostSystemTime: true}
	cfg.script.Notifications = []synthscript.NotificationAt{{At: 500 * time.Millisecond, Sensor: "depth", Description: "n"}}
	cam, err := NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := cam.softwareSensors()[0]
	var arrivals []float64
	var noteAt float64
	s.OnNotification(func(n sensor.Notification) { noteAt = n.TimestampMs })
	if err := s.Open(s.Profiles()...); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) { arrivals = append(arrivals, f.SystemTimeMs) })); err != nil {
		t.Fatal(err)
	}
	<-cam.Done()
	took := time.Since(start)
	if err := cam.Close(); err != nil {
		t.Fatal(err)
	}
	if want := time.Duration(float64(time.Second) / speed); took != want {
		t.Errorf("31 frames at 30 fps took %v, want %v", took, want)
	}
	if len(arrivals) != 31 {
		t.Fatalf("%d frames", len(arrivals))
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	t0 := ms(start.UnixNano())
	for k, a := range arrivals {
		if want := t0 + ms(int64(float64(k)*float64(time.Second)/30/speed)); math.Abs(a-want) > 1e-3 {
			t.Errorf("frame %d arrived at %v ms, want %v", k, a-t0, want-t0)
		}
	}
	if want := t0 + 500/speed; math.Abs(noteAt-want) > 1e-3 {
		t.Errorf("notification at %v ms, want %v", noteAt-t0, want-t0)
	}
}

func TestSyntheticFormats(t *testing.T) {
	for _, f := range []sensor.Format{sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatYUYV} {
		for _, ir := range []sensor.Format{sensor.FormatY8, sensor.FormatY16} {
			cam, err := NewSynthetic(SyntheticConfig{Color: &Video{Width: 13, Height: 7, FPS: 60, Format: f},
				Infrared: &Video{Width: 11, Height: 9, FPS: 60, Format: ir}, InfraredCount: 2, Frames: 300, PreparedFrames: 0})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			bad := 0
			h := sensor.HandlerFunc(func(fr *sensor.Frame) {
				seed := 2
				if fr.Profile.Stream == sensor.StreamInfrared {
					seed = 10 + fr.Profile.Index
				}
				want := synthPixels(fr.Profile.Format, fr.Width, fr.Height, seed, fr.Number)
				if string(want) != string(fr.Data) || fr.Stride*fr.Height != len(fr.Data) {
					mu.Lock()
					bad++
					mu.Unlock()
				}
			})
			for _, s := range cam.Sensors() {
				_ = s.Open(s.Profiles()...)
				_ = s.Start(h)
			}
			<-cam.Done()
			cam.Close()
			if bad > 0 {
				t.Errorf("%s/%s: %d frames differ from the formula", f, ir, bad)
			}
		}
	}
	if _, err := NewSynthetic(SyntheticConfig{Color: &Video{Width: 2, Height: 2, FPS: 1, Format: sensor.FormatZ16}}); err == nil {
		t.Error("Z16 color accepted")
	}
	if _, err := NewSynthetic(SyntheticConfig{}); err == nil {
		t.Error("no streams accepted")
	}
}

// TestDerivedProfileExtrinsics: a profile a processing block made from one
// of the device's (a copy with another size and format) has that stream's
// extrinsics; a stream the device does not have has none.
func TestDerivedProfileExtrinsics(t *testing.T) {
	d := New(nil)
	ds, cs := d.AddSensor("Stereo Module"), d.AddSensor("RGB Camera")
	depth := ds.AddVideoStream(VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: 8, Height: 4, FPS: 30})
	color := cs.AddVideoStream(VideoStream{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Width: 8, Height: 4, FPS: 30})
	want := sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, Translation: [3]float32{0.015, 0, 0}}
	if err := d.RegisterExtrinsics(depth, color, want); err != nil {
		t.Fatal(err)
	}
	derived := *depth
	derived.Width, derived.Format, derived.UID = 4, sensor.FormatDisparity32, 0
	if got, err := d.Extrinsics(&derived, color); err != nil || got != want {
		t.Errorf("derived depth → color: %v, %v; want %v", got, err, want)
	}
	ir := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 1, Format: sensor.FormatY8}
	if _, err := d.Extrinsics(ir, color); !errors.Is(err, device.ErrNotFound) {
		t.Errorf("a stream the device lacks: %v, want ErrNotFound", err)
	}
}

// TestSyntheticStreamStats: the synthetic camera's Stats counts, per
// stream, the frames its handler got; a handler stuck in a call holds the
// camera back (a software device waits for its handler) and loses nothing.
func TestSyntheticStreamStats(t *testing.T) { synctest.Test(t, syntheticStreamStats) }

func syntheticStreamStats(t *testing.T) {
	const frames = 20
	cam, err := NewSynthetic(SyntheticConfig{Depth: &Video{Width: 8, Height: 8, FPS: 30}, Color: &Video{Width: 8, Height: 6, FPS: 30},
		Infrared: &Video{Width: 8, Height: 8, FPS: 30}, InfraredCount: 2, Frames: frames, Speed: 1, PreparedFrames: 0})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]uint64{}
	stuck, release := make(chan struct{}), make(chan struct{})
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Profile.Stream == sensor.StreamDepth && f.Number == 3 {
			close(stuck)
			<-release // a handler stuck in a long computation
		}
		mu.Lock()
		got[f.Profile.Name()]++
		mu.Unlock()
	})
	var opened []string
	for _, s := range cam.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Profiles() {
			opened = append(opened, p.Name())
		}
		if err := s.Start(h); err != nil {
			t.Fatal(err)
		}
	}
	<-stuck
	time.Sleep(time.Second) // on the bubble's clock: 30 frame periods
	close(release)
	<-cam.Done()
	for _, s := range cam.Sensors() {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	ss := cam.Stats()
	if len(ss) != len(opened) {
		t.Fatalf("Stats() lists %d streams, want the %d opened: %v", len(ss), len(opened), opened)
	}
	for i, s := range ss {
		name := s.Profile.Name()
		if name != opened[i] {
			t.Errorf("stream %d is %s, want %s", i, name, opened[i])
		}
		if s.Delivered != got[name] || s.Delivered != frames || s.Dropped != 0 || s.Lost != 0 {
			t.Errorf("%s: delivered %d, dropped %d, lost %d; the handler got %d of %d", name, s.Delivered, s.Dropped, s.Lost, got[name], frames)
		}
	}
	if err := cam.Close(); err != nil {
		t.Fatal(err)
	}
}
