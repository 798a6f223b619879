package pipeline

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/extensions"
)

// TestPipelineSetRealTimeOffAfterStart: the librealsense pattern — start
// the pipeline on a file, then switch its device to non-real time — loses
// and reorders nothing: the framesets are librealsense's, as with a
// pipeline started in non-real-time mode (every frameset, the first
// complete one too, which librealsense loses to the switch).
//
// Started in real time, the first depth frame was lost (its sensor was
// started after the color sensor had begun playback) and the color frame
// read just after the switch reached the syncer before the depth frame
// read before it. Started in non-real time, the switch hung: the reader
// was waiting for the syncer, which waited for room the caller was to
// make by taking framesets.
func TestPipelineSetRealTimeOffAfterStart(t *testing.T) {
	sets := expectedFramesets(t, "depth_color")
	for _, startRealTime := range []bool{true, false} {
		t.Run(map[bool]string{true: "real-time", false: "non-real-time"}[startRealTime], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := &Config{}
				cfg.EnableAllStreams()
				cfg.SetRealTime(startRealTime)
				if err := cfg.EnableDeviceFromFile(bagPath("depth_color"), false); err != nil {
					t.Fatal(err)
				}
				p := New()
				prof, err := p.Start(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Stop()
				if !startRealTime {
					synctest.Wait() // the reader waits for room in the pipeline's queue
				}
				if err := prof.Device().(extensions.Playback).SetRealTime(false); err != nil {
					t.Fatal(err)
				}
				sameSets(t, takeAll(t, p, 0, describe), aggregate(sets, streamNames(prof)))
			})
		})
	}
}
