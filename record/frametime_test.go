package record_test

import (
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestRerecordNonRealTimePlaybackKeepsTime re-records a 5 s bag played in
// non-real-time mode (as fast as the recorder takes the frames): the copy
// keeps the source's bag times, so its duration and every stream's rate are
// those of the source within a frame period.
func TestRerecordNonRealTimePlaybackKeepsTime(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.bag"), filepath.Join(dir, "dst.bag")
	synctest.Test(t, func(t *testing.T) {
		synthrig.Bag(t, src, software.SyntheticConfig{
			Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
			Color:    &software.Video{Width: 64, Height: 48, FPS: 15, Format: sensor.FormatRGB8},
			AccelFPS: 100,
			Duration: 5 * time.Second,
			Speed:    1,
		})
	})
	pb, err := playback.Open(src, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	rec, err := record.Create(pb, dst, &record.Options{Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	stopped := extensions.Stopped(pb)
	for _, s := range rec.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range rec.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
			t.Fatal(err)
		}
	}
	<-stopped
	for _, s := range rec.Sensors() {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	want, got := inspect(t, src), inspect(t, dst)
	if d := time.Duration(got.DurationNs) - time.Duration(want.DurationNs); d < -time.Second/30 || d > time.Second/30 {
		t.Errorf("re-recorded duration %v, source %v: want within a frame period", time.Duration(got.DurationNs), time.Duration(want.DurationNs))
	}
	if len(got.Streams) != len(want.Streams) {
		t.Fatalf("re-recorded %d streams, source %d", len(got.Streams), len(want.Streams))
	}
	for i, w := range want.Streams {
		g := got.Streams[i]
		if g.Stream != w.Stream || g.Frames != w.Frames {
			t.Errorf("stream %d: re-recorded %s with %d frames, source %s with %d", i, g.Stream, g.Frames, w.Stream, w.Frames)
			continue
		}
		period := time.Second / time.Duration(w.FPS)
		if d := time.Duration(g.LastNs-g.FirstNs) - time.Duration(w.LastNs-w.FirstNs); d < -period || d > period {
			t.Errorf("%s: re-recorded over %v (%.1f/s), source over %v (%.1f/s): want within %v",
				w.Stream, time.Duration(g.LastNs-g.FirstNs), rate(g), time.Duration(w.LastNs-w.FirstNs), rate(w), period)
		}
	}
}

func inspect(t *testing.T, path string) *baginfo.Report {
	t.Helper()
	rep, err := baginfo.Inspect(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func rate(s baginfo.Stream) float64 {
	return float64(s.Frames-1) / time.Duration(s.LastNs-s.FirstNs).Seconds()
}
