package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestAggregator: a pipeline's syncer, then its aggregator, as librealsense
// layers them. Framesets wait until every enabled stream has delivered a
// frame; then each match of the syncer comes with the latest frame of
// every other stream, in ascending profile id; a frame that passes the
// syncer alone (motion, pose) only updates the latest frames, unless no
// enabled stream goes through the syncer. A callback gets the synced
// streams' latest frames with each match and the other frames alone.
func TestAggregator(t *testing.T) {
	depth, color, gyro := syncProfiles(30)
	accel := &sensor.StreamProfile{Stream: sensor.StreamAccel, UID: 4, Format: sensor.FormatMotionXYZ32F, FPS: 63, Kind: sensor.KindMotion}
	d1, c1, d2, c2 := frameAt(depth, 1, 0), frameAt(color, 1, 0), frameAt(depth, 2, 1000.0/30), frameAt(color, 2, 1000.0/30)
	// Depth #3 comes after a silence of color long enough for the syncer
	// to release it alone.
	d3, c3 := frameAt(depth, 3, 300), frameAt(color, 3, 300)
	g1, g2, a1 := frameAt(gyro, 1, 0), frameAt(gyro, 2, 5), frameAt(accel, 1, 1)
	for _, tc := range []struct {
		name     string
		enabled  []*sensor.StreamProfile
		callback bool
		frames   []*sensor.Frame
		want     []string
	}{
		{"video and motion", []*sensor.StreamProfile{gyro, color, depth}, false, []*sensor.Frame{g1, d1, c1, g2, d2, c2},
			[]string{"[Depth/0 #1 Color/0 #1 Gyro/0 #1]", "[Depth/0 #2 Color/0 #2 Gyro/0 #2]"}},
		{"video and motion, callback", []*sensor.StreamProfile{gyro, color, depth}, true, []*sensor.Frame{g1, d1, c1, g2, d2, c2},
			[]string{"[Gyro/0 #1]", "[Depth/0 #1 Color/0 #1]", "[Gyro/0 #2]", "[Depth/0 #2 Color/0 #2]"}},
		{"video", []*sensor.StreamProfile{depth, color}, false, []*sensor.Frame{d1, c1, d3, c3},
			[]string{"[Depth/0 #1 Color/0 #1]", "[Depth/0 #3 Color/0 #1]", "[Depth/0 #3 Color/0 #3]"}},
		// As librealsense's, the aggregator keeps a frame of a stream no
		// frameset waits for (a pipeline's sensors deliver none).
		{"a stream not enabled", []*sensor.StreamProfile{depth, color}, false, []*sensor.Frame{d1, g1, c1},
			[]string{"[Depth/0 #1 Color/0 #1 Gyro/0 #1]"}},
		{"motion only", []*sensor.StreamProfile{accel, gyro}, false, []*sensor.Frame{g1, a1, g2},
			[]string{"[Gyro/0 #1 Accel/0 #1]", "[Gyro/0 #2 Accel/0 #1]"}},
		{"one stream", []*sensor.StreamProfile{gyro}, false, []*sensor.Frame{g1, g2},
			[]string{"[Gyro/0 #1]", "[Gyro/0 #2]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSyncer([]*sensor.StreamProfile{depth, color}, 100)
			s.agg = newAggregator(tc.enabled, tc.callback)
			var sets []*Frameset
			var got []string
			for _, f := range tc.frames {
				s.HandleFrame(f)
				for fs, ok := s.PollForFrames(); ok; fs, ok = s.PollForFrames() {
					sets = append(sets, fs)
					got = append(got, fs.String())
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("framesets\n%q\nwant\n%q", got, tc.want)
			}
			// A repeated frame is the same frame, not a copy.
			for i := 1; i < len(sets); i++ {
				for _, f := range sets[i].frames {
					if prev := sets[i-1].First(f.Profile.Stream); prev != nil && prev.Number == f.Number && prev != f {
						t.Errorf("frameset %d repeats %s #%d as a copy", i, f.Profile.Name(), f.Number)
					}
				}
			}
		})
	}
}

// TestPipelineAggregatesSyntheticBag: on a bag never seen (a synthetic
// camera's depth, color, accel and gyro), the pipeline's framesets are
// those of librealsense's layering: the syncer's matches of the video
// streams, each completed with the latest frame of every other enabled
// stream, the motion samples only updating the latest frames. Played with
// every stream, and with some.
func TestPipelineAggregatesSyntheticBag(t *testing.T) {
	bag := filepath.Join(t.TempDir(), "synth.bag")
	synctest.Test(t, func(t *testing.T) {
		synthrig.Bag(t, bag, software.SyntheticConfig{
			Depth:    &software.Video{Width: 16, Height: 8, FPS: 30, Format: sensor.FormatZ16},
			Color:    &software.Video{Width: 16, Height: 8, FPS: 15, Format: sensor.FormatRGB8},
			AccelFPS: 63,
			GyroFPS:  200,
			Duration: 300 * time.Millisecond,
			Speed:    1,
			Metadata: software.MetadataBasic,
		})
	})
	for _, streams := range [][]sensor.Stream{nil, {sensor.StreamDepth, sensor.StreamGyro}, {sensor.StreamAccel, sensor.StreamGyro}} {
		t.Run(fmt.Sprint(streams), func(t *testing.T) {
			cfg := fileConfig(t, bag, false)
			if streams != nil {
				cfg.DisableAllStreams()
				for _, s := range streams {
					cfg.EnableStream(StreamRequest{Stream: s, Index: AnyIndex})
				}
			}
			p, prof := startPipeline(t, cfg)
			got := takeAll(t, p, 0, describe)
			want := aggregate(syncerSets(t, bag, prof.Streams()), streamNames(prof))
			if len(want) < 5 {
				t.Fatalf("only %d framesets expected", len(want))
			}
			sameSets(t, got, want)
		})
	}
}

// syncerSets plays the bag at path with real time off and returns, as
// describe strings, the framesets a Syncer releases from the frames of the
// streams (those of another playback of the bag) in delivery order.
func syncerSets(t *testing.T, path string, streams []*sensor.StreamProfile) []string {
	t.Helper()
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	want := map[string]bool{}
	for _, q := range streams {
		want[q.Name()] = true
	}
	var profiles []*sensor.StreamProfile
	for _, s := range dev.Sensors() {
		profiles = append(profiles, s.Profiles()...)
	}
	s := NewSyncer(profiles, 1000)
	var mu sync.Mutex
	var sets []string
	done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
		if !want[f.Profile.Name()] {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		s.HandleFrame(f)
		for fs, ok := s.PollForFrames(); ok; fs, ok = s.PollForFrames() {
			sets = append(sets, describe(fs))
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	mu.Lock()
	defer mu.Unlock()
	return sets
}
