package pipeline

import (
	"slices"
	"testing"

	"github.com/rsbag/rsbag/sensor"
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
