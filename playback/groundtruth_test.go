package playback_test

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// withTruth copies the bag src to dst with a ground-truth pose and exact
// depth beside every depth frame, the depth made by depth.
func withTruth(t *testing.T, src, dst string, depth func(seq uint32) *msgs.Image) {
	t.Helper()
	testbags.CopyAdding(t, src, dst, func(m *rosbag.Message) []testbags.Added {
		if layout.Parse(m.Conn.Topic).Kind != layout.KindImageData {
			return nil
		}
		var img msgs.Image
		if err := msgs.Unmarshal(m.Data, &img); err != nil {
			t.Fatal(err)
		}
		tf := &msgs.Transform{Translation: msgs.Vector3{X: float64(img.Header.Seq)}, Rotation: msgs.Quaternion{W: 1}}
		return []testbags.Added{
			{Topic: layout.GroundTruthTopic(sensor.StreamDepth, 0, "pose"), Type: new(msgs.Transform).Type().Name,
				MD5Sum: new(msgs.Transform).Type().MD5, Definition: new(msgs.Transform).Type().Definition, Data: msgs.Append(nil, tf)},
			{Topic: layout.GroundTruthTopic(sensor.StreamDepth, 0, "depth"), Type: new(msgs.Image).Type().Name,
				MD5Sum: new(msgs.Image).Type().MD5, Definition: new(msgs.Image).Type().Definition, Data: msgs.Append(nil, depth(img.Header.Seq))},
		}
	})
}

// TestGroundTruthBadInput: GroundTruth gives each depth frame the pose
// recorded at its bag time; an exact depth of the wrong size is an error
// that names the topic and what was expected; a bag without ground truth
// says ErrNoGroundTruth.
func TestGroundTruthBadInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bag")
	synthrig.Bag(t, src, software.SyntheticConfig{Depth: &software.Video{Width: 16, Height: 12, FPS: 30}, Frames: 3})
	good, bad := filepath.Join(dir, "good.bag"), filepath.Join(dir, "bad.bag")
	withTruth(t, src, good, func(seq uint32) *msgs.Image {
		return &msgs.Image{Header: msgs.Header{Seq: seq}, Width: 16, Height: 12, Encoding: "32FC1", Step: 64, Data: make([]byte, 4*16*12)}
	})
	withTruth(t, src, bad, func(seq uint32) *msgs.Image {
		return &msgs.Image{Header: msgs.Header{Seq: seq}, Width: 16, Height: 12, Encoding: "32FC1", Step: 64, Data: make([]byte, 4*16*11)}
	})
	play := func(bag string) []error {
		dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		var mu sync.Mutex
		var errs []error
		done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
			gt, err := dev.GroundTruth(f, dev.Position())
			if err == nil && (gt.Translation[0] != float64(f.Number) || len(gt.Depth) != 16*12) {
				err = errors.New("wrong ground truth")
			}
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err)
		}))
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if len(errs) != 3 {
			t.Fatalf("%s: %d frames, want 3", bag, len(errs))
		}
		return errs
	}
	for _, err := range play(good) {
		if err != nil {
			t.Errorf("good: %v", err)
		}
	}
	for _, err := range play(bad) {
		if err == nil || !strings.Contains(err.Error(), "/ground_truth/Depth_0/depth at ") || !strings.Contains(err.Error(), "want 32FC1 16x12, step 64, 768 bytes") {
			t.Errorf("bad: %v", err)
		}
	}
	for _, err := range play(src) {
		if !errors.Is(err, playback.ErrNoGroundTruth) {
			t.Errorf("no ground truth: %v", err)
		}
	}
}
