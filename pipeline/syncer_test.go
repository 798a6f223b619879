package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/sensor"
)

// syncProfiles returns depth (UID 1), color (UID 2) and gyro (UID 3)
// profiles at fps.
func syncProfiles(fps int) (depth, color, gyro *sensor.StreamProfile) {
	depth = &sensor.StreamProfile{Stream: sensor.StreamDepth, UID: 1, Format: sensor.FormatZ16, FPS: fps, Kind: sensor.KindVideo, Width: 4, Height: 2}
	color = &sensor.StreamProfile{Stream: sensor.StreamColor, UID: 2, Format: sensor.FormatRGB8, FPS: fps, Kind: sensor.KindVideo, Width: 4, Height: 2}
	gyro = &sensor.StreamProfile{Stream: sensor.StreamGyro, UID: 3, Format: sensor.FormatMotionXYZ32F, FPS: 200, Kind: sensor.KindMotion}
	return
}

func frameAt(p *sensor.StreamProfile, n uint64, ms float64) *sensor.Frame {
	return &sensor.Frame{Profile: p, Number: n, TimestampMs: ms, Domain: sensor.TimestampDomainHardwareClock, SystemTimeMs: 1e12 + ms}
}

// drain returns every frameset waiting in s, as strings.
func drain(s *Syncer) []string {
	var out []string
	for {
		fs, ok := s.PollForFrames()
		if !ok {
			return out
		}
		out = append(out, fs.String())
	}
}

func TestSyncerPairsByTimestamp(t *testing.T) {
	depth, color, gyro := syncProfiles(30)
	s := NewSyncer([]*sensor.StreamProfile{depth, color, gyro}, 16)
	// A stream is waited for only from its first frame on (as
	// librealsense's matcher, which makes a stream's queue with its first
	// frame). Then frames within half an interval (16.7 ms at 30 fps)
	// match; outside, the older one is released alone.
	steps := []struct {
		f    *sensor.Frame
		want []string
	}{
		{frameAt(depth, 1, 0), []string{"[Depth/0 #1]"}},
		{frameAt(color, 1, 10), []string{"[Color/0 #1]"}},
		{frameAt(depth, 2, 33.3), nil},
		{frameAt(color, 2, 43.3), []string{"[Color/0 #2 Depth/0 #2]"}},
		{frameAt(gyro, 1, 45), []string{"[Gyro/0 #1]"}},
		{frameAt(depth, 3, 66.7), nil},
		{frameAt(color, 3, 66.7+17), []string{"[Depth/0 #3]"}},
		{frameAt(depth, 4, 100), []string{"[Color/0 #3 Depth/0 #4]"}},
	}
	for i, st := range steps {
		s.HandleFrame(st.f)
		if got := drain(s); fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Errorf("step %d (%s #%d at %v ms): released %v, want %v", i, st.f.Profile.Name(), st.f.Number, st.f.TimestampMs, got, st.want)
		}
	}
}

func TestSyncerStaleStream(t *testing.T) {
	// At 25 fps a frame interval is 40 ms. Color stops after its frame at
	// 0 ms (next expected at 40 ms): the depth frames wait for it until the
	// color stream has been silent for 7 intervals past that, then all go
	// out alone, and later depth frames go out at once.
	depth, color, _ := syncProfiles(25)
	s := NewSyncer([]*sensor.StreamProfile{depth, color}, 32)
	s.HandleFrame(frameAt(color, 99, -40))
	s.HandleFrame(frameAt(depth, 0, 0))
	s.HandleFrame(frameAt(color, 0, 0))
	if got := drain(s); fmt.Sprint(got) != "[[Color/0 #99] [Color/0 #0 Depth/0 #0]]" {
		t.Fatalf("first frames: %v", got)
	}
	for n := uint64(1); n <= 7; n++ {
		s.HandleFrame(frameAt(depth, n, float64(n)*40))
		if got := drain(s); len(got) != 0 {
			t.Fatalf("depth #%d at %d ms released %v while color is not yet stale", n, n*40, got)
		}
	}
	s.HandleFrame(frameAt(depth, 8, 320))
	got := drain(s)
	var want []string
	for n := 1; n <= 8; n++ {
		want = append(want, fmt.Sprintf("[Depth/0 #%d]", n))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("at 320 ms (color stale) released %v, want %v", got, want)
	}
	s.HandleFrame(frameAt(depth, 9, 360))
	if got := drain(s); fmt.Sprint(got) != "[[Depth/0 #9]]" {
		t.Fatalf("with color inactive, depth #9 released %v, want it alone at once", got)
	}
	// Color comes back: matching resumes.
	s.HandleFrame(frameAt(color, 10, 400))
	if got := drain(s); len(got) != 0 {
		t.Fatalf("color #10 alone released %v; it must wait for depth", got)
	}
	s.HandleFrame(frameAt(depth, 10, 401))
	if got := drain(s); fmt.Sprint(got) != "[[Color/0 #10 Depth/0 #10]]" {
		t.Fatalf("after color resumed: %v", got)
	}
}

func TestSyncerActualFPSAndDomains(t *testing.T) {
	depth, color, _ := syncProfiles(30)
	// ACTUAL_FPS says 6 fps: half an interval is 83 ms, so frames 50 ms
	// apart match although the profiles say 30 fps.
	s := NewSyncer([]*sensor.StreamProfile{depth, color}, 8)
	for _, f := range []*sensor.Frame{frameAt(color, 0, -200), frameAt(depth, 1, 0), frameAt(color, 1, 50)} {
		f.Metadata.Set(sensor.MetadataKeyActualFps, 6000)
		s.HandleFrame(f)
	}
	if got := drain(s); fmt.Sprint(got) != "[[Color/0 #0] [Color/0 #1 Depth/0 #1]]" {
		t.Errorf("6 fps by metadata: %v", got)
	}

	// Frames of different clock domains are compared by system time.
	d, c := frameAt(depth, 1, 1000), &sensor.Frame{Profile: color, TimestampMs: 9e6, Domain: sensor.TimestampDomainSystemTime, SystemTimeMs: 7}
	if a, b := timestamps(d, c); a != d.SystemTimeMs || b != 7 {
		t.Errorf("mixed domains compared by %v, %v; want the system times", a, b)
	}
	if a, b := timestamps(d, frameAt(color, 1, 1005)); a != 1000 || b != 1005 {
		t.Errorf("one domain compared by %v, %v; want the timestamps", a, b)
	}
}

func TestSyncerStopAndQueue(t *testing.T) {
	depth, _, gyro := syncProfiles(30)
	s := NewSyncer([]*sensor.StreamProfile{depth, gyro}, 2)
	for n := uint64(1); n <= 5; n++ {
		s.HandleFrame(frameAt(gyro, n, float64(n)))
	}
	if got := drain(s); fmt.Sprint(got) != "[[Gyro/0 #4] [Gyro/0 #5]]" {
		t.Errorf("a full queue keeps the newest: %v", got)
	}
	s.HandleFrame(nil)
	s.HandleFrame(&sensor.Frame{})
	s.HandleFrame(frameAt(gyro, 6, 6))
	s.Stop()
	s.HandleFrame(frameAt(gyro, 7, 7))
	ctx := context.Background()
	if fs, err := s.WaitForFrames(ctx); err != nil || fs.String() != "[Gyro/0 #6]" {
		t.Errorf("after Stop the queued frameset is still taken: %v, %v", fs, err)
	}
	if _, err := s.WaitForFrames(ctx); !errors.Is(err, ErrStopped) {
		t.Errorf("WaitForFrames on a stopped, empty syncer: %v, want ErrStopped", err)
	}
}

func TestFrameQueue(t *testing.T) {
	fs := func(n uint64) *Frameset {
		return NewFrameset(frameAt(&sensor.StreamProfile{Stream: sensor.StreamDepth}, n, 0))
	}
	t.Run("drop oldest", func(t *testing.T) {
		q := NewFrameQueue(2, false)
		for n := uint64(1); n <= 3; n++ {
			if !q.Enqueue(fs(n)) {
				t.Fatal("Enqueue refused on an open queue")
			}
		}
		if q.Len() != 2 || q.Dropped() != 1 {
			t.Fatalf("Len %d Dropped %d, want 2 and 1", q.Len(), q.Dropped())
		}
		a, _ := q.Poll()
		b, _ := q.Poll()
		if a.At(0).Number != 2 || b.At(0).Number != 3 {
			t.Errorf("kept #%d #%d, want #2 #3", a.At(0).Number, b.At(0).Number)
		}
		if _, ok := q.Poll(); ok {
			t.Error("Poll on an empty queue returned a frameset")
		}
	})
	t.Run("blocking", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := NewFrameQueue(1, true)
			q.Enqueue(fs(1))
			done := make(chan bool)
			go func() { done <- q.Enqueue(fs(2)) }()
			synctest.Wait()
			select {
			case <-done:
				t.Fatal("Enqueue on a full blocking queue did not wait")
			default:
			}
			if got, _ := q.Poll(); got.At(0).Number != 1 {
				t.Errorf("first out #%d", got.At(0).Number)
			}
			if !<-done || q.Dropped() != 0 {
				t.Errorf("blocked Enqueue failed or dropped (%d)", q.Dropped())
			}
			go func() { done <- q.Enqueue(fs(3)) }()
			synctest.Wait()
			q.Close()
			if <-done {
				t.Error("Enqueue blocked on a full queue succeeded after Close")
			}
		})
	})
	t.Run("wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := NewFrameQueue(4, false)
			tctx, tcancel := context.WithTimeout(context.Background(), time.Second)
			if fs, err := q.Wait(tctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Wait on an empty queue with a timeout: %v, %v", fs, err)
			}
			tcancel()
			go func() {
				time.Sleep(time.Second)
				q.Enqueue(fs(7))
			}()
			start := time.Now()
			got, err := q.Wait(context.Background())
			if err != nil || got.At(0).Number != 7 || time.Since(start) != time.Second {
				t.Errorf("Wait: %v %v after %v", got, err, time.Since(start))
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() { time.Sleep(time.Second); cancel() }()
			if _, err := q.Wait(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Wait with a cancelled context: %v", err)
			}
		})
	})
}

func TestFramesetAccessors(t *testing.T) {
	depth, color, gyro := syncProfiles(30)
	ir1 := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 1, UID: 4, Format: sensor.FormatY8}
	ir2 := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 2, UID: 5, Format: sensor.FormatY8}
	fs := NewFrameset(frameAt(ir2, 1, 0), frameAt(ir1, 2, 0), frameAt(color, 3, 0), frameAt(depth, 4, 0))
	for _, c := range []struct {
		name string
		f    *sensor.Frame
		want uint64
	}{
		{"Depth", fs.Depth(), 4}, {"Color", fs.Color(), 3}, {"Infrared(0)", fs.Infrared(0), 1},
		{"Infrared(1)", fs.Infrared(1), 2}, {"Infrared(2)", fs.Infrared(2), 1},
		{"First(Infrared)", fs.First(sensor.StreamInfrared), 1},
	} {
		if c.f == nil || c.f.Number != c.want {
			t.Errorf("%s = %v, want frame #%d", c.name, c.f, c.want)
		}
	}
	if fs.First(sensor.StreamGyro) != nil || fs.Infrared(3) != nil || fs.FirstFormat(sensor.StreamDepth, sensor.FormatDisparity32) != nil {
		t.Error("an absent stream was found")
	}
	var order []uint64
	for i, f := range fs.All() {
		if fs.At(i) != f {
			t.Errorf("All: position %d holds #%d, At says #%d", i, f.Number, fs.At(i).Number)
		}
		order = append(order, f.Number)
	}
	if fmt.Sprint(order) != "[1 2 3 4]" || fs.Len() != 4 || len(fs.Frames()) != 4 {
		t.Errorf("order %v Len %d", order, fs.Len())
	}
	if s := NewFrameset(frameAt(gyro, 9, 0)).String(); !strings.Contains(s, "Gyro/0 #9") {
		t.Errorf("String = %q", s)
	}
}

// TestSyncerStopUnblocksHandler: a handler waiting for room in a full
// blocking queue (a pipeline playing a file whose reader stopped taking
// framesets) returns when the syncer is stopped, and Stop returns.
func TestSyncerStopUnblocksHandler(t *testing.T) {
	// A deadlock blocks goroutines on a mutex, which a synctest bubble does
	// not see as idle: a watchdog outside the bubble turns it into a
	// failure with every goroutine's stack at the test's deadline.
	await.Watchdog(t, 0)
	synctest.Test(t, func(t *testing.T) {
		imu := &sensor.StreamProfile{Stream: sensor.StreamGyro, FPS: 200, Format: sensor.FormatMotionXYZ32F, Kind: sensor.KindMotion, UID: 3}
		s := NewSyncer(nil, 1)
		s.queue.blocking = true
		handled := make(chan struct{})
		go func() {
			for n := range uint64(3) { // the second waits for room
				s.HandleFrame(&sensor.Frame{Profile: imu, Number: n, TimestampMs: float64(n) * 5})
			}
			close(handled)
		}()
		synctest.Wait() // the handler is blocked in Enqueue
		select {
		case <-handled:
			t.Fatal("the handler did not wait for room in the full queue")
		default:
		}
		s.Stop()
		<-handled // a deadlock here fails the bubble
		if fs, ok := s.PollForFrames(); !ok || fs.At(0).Number != 0 {
			t.Errorf("the frameset queued before Stop: %v %v", fs, ok)
		}
	})
}
