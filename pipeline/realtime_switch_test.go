package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/extensions"
)

// TestPipelineRealTimeOffAfterStart: the librealsense pattern — start the
// pipeline on a file in real time, then switch its device to non-real
// time — loses nothing: the framesets are librealsense's, as with a
// pipeline started in non-real-time mode (the first depth frame was lost,
// its sensor being started after the color sensor had begun playback).
func TestPipelineRealTimeOffAfterStart(t *testing.T) {
	want := expectedFramesets(t, "depth_color")
	synctest.Test(t, func(t *testing.T) {
		cfg := &Config{}
		cfg.EnableAllStreams()
		if err := cfg.EnableDeviceFromFile(bagPath("depth_color"), false); err != nil {
			t.Fatal(err)
		}
		p := New()
		prof, err := p.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		if err := prof.Device().(extensions.Playback).SetRealTime(false); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			fs, err := p.WaitForFrames(context.Background())
			if errors.Is(err, ErrEndOfStream) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, describe(fs))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("frameset %d: %s, want %s", i, got[i], want[i])
				}
			}
			t.Fatalf("%d framesets, want %d", len(got), len(want))
		}
	})
}

// TestPipelineNonRealTimeSetRealTimeOff: switching a pipeline started in
// non-real-time mode to non-real time again returns and changes nothing
// (it hung: the reader was waiting for the syncer, which waited for
// room the caller was to make by taking framesets).
func TestPipelineNonRealTimeSetRealTimeOff(t *testing.T) {
	want := expectedFramesets(t, "depth_color")
	synctest.Test(t, func(t *testing.T) {
		cfg := &Config{}
		cfg.EnableAllStreams()
		cfg.SetRealTime(false)
		if err := cfg.EnableDeviceFromFile(bagPath("depth_color"), false); err != nil {
			t.Fatal(err)
		}
		p := New()
		prof, err := p.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		synctest.Wait() // the reader waits for room in the pipeline's queue
		if err := prof.Device().(extensions.Playback).SetRealTime(false); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			fs, err := p.WaitForFrames(context.Background())
			if errors.Is(err, ErrEndOfStream) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, describe(fs))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%d framesets, want %d", len(got), len(want))
		}
	})
}
