package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/extensions"
)

// TestPipelineRealTimeOffAfterStart: the librealsense pattern — start the
// pipeline on a file in real time, then switch its device to non-real
// time — loses nothing: the framesets are those of a pipeline started in
// non-real-time mode.
func TestPipelineRealTimeOffAfterStart(t *testing.T) {
	want := expectedFramesets(t, "depth_color")
	frames := func(sets []string) []string {
		var all []string
		for _, s := range sets {
			all = append(all, strings.Fields(s)...)
		}
		slices.Sort(all)
		return all
	}
	for range 3 {
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
		p.Stop()
		if len(got) != len(want) || !slices.Equal(frames(got), frames(want)) {
			t.Fatalf("%d framesets, want %d; frames %q\nwant %q", len(got), len(want), frames(got), frames(want))
		}
	}
}
