package main

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/software/scene"
	"github.com/rsbag/rsbag/units"
)

// exactDepths returns the exact depths of a --ground-truth bag by frame
// number, as recorded.
func exactDepths(t *testing.T, bag string) map[uint32][]float32 {
	t.Helper()
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[uint32][]float32{}
	it := r.Messages(&rosbag.Query{Topics: []string{"/ground_truth/Depth_0/depth"}})
	for it.Next() {
		var img msgs.Image
		if err := msgs.Unmarshal(it.Message().Data, &img); err != nil {
			t.Fatal(err)
		}
		z := make([]float32, len(img.Data)/4)
		for i := range z {
			z[i] = math.Float32frombits(binary.LittleEndian.Uint32(img.Data[4*i:]))
		}
		out[img.Header.Seq] = z
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGroundTruthAPI: a replay handler, a unit's handler in replay, and a
// handler of a non-real-time playback device get for every depth frame of a --ground-truth bag the
// walk's pose at the frame's time and the exact depth recorded beside it;
// a color frame gets its pose and no depth; a bag without ground truth
// says so with ErrNoGroundTruth.
func TestGroundTruthAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := filepath.Join(dir, "gt.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "6", "--motion", "walk", "--ground-truth",
		"--depth", "64x48@30", "--color", "64x48@30", "-f", bag); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	plain := filepath.Join(dir, "plain.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "2", "--depth", "64x48@30", "-f", plain); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	exact := exactDepths(t, bag)
	if len(exact) != 6 {
		t.Fatalf("%d exact depths recorded, want 6", len(exact))
	}
	walk := walkPose(t)
	// check checks the ground truth of one frame; it returns whether the
	// frame was a depth frame.
	// The pose is the walk's at the frame's timestamp as the bag stores it
	// (to the nanosecond: 1e-9 in meters and in the quaternion).
	check := func(t *testing.T, f *sensor.Frame, gt playback.GroundTruth) bool {
		want := walk((f.TimestampMs - 12345.678) / 1000)
		q := want.Quaternion()
		if f.Profile.Stream != sensor.StreamDepth {
			if gt.Depth != nil {
				t.Errorf("%v frame %d: an exact depth", f.Profile.Stream, f.Number)
			}
			return false
		}
		for i := range 3 {
			if math.Abs(gt.Translation[i]-want.T[i]) > 1e-9 {
				t.Errorf("depth frame %d: translation %v, want %v", f.Number, gt.Translation, want.T)
				break
			}
		}
		for i := range 4 {
			if math.Abs(gt.Rotation[i]-q[i]) > 1e-9 {
				t.Errorf("depth frame %d: rotation %v, want %v", f.Number, gt.Rotation, q)
				break
			}
		}
		if !slices.Equal(gt.Depth, exact[uint32(f.Number)]) || len(gt.Depth) != f.Width*f.Height {
			t.Errorf("depth frame %d: %d exact depths, not the %d recorded", f.Number, len(gt.Depth), len(exact[uint32(f.Number)]))
		}
		return true
	}
	t.Run("replay", func(t *testing.T) {
		depths, colors := 0, 0
		_, err := replay.Run(context.Background(), []string{bag}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
			gt, err := c.GroundTruth()
			if err != nil {
				return err
			}
			if check(t, f, gt) {
				depths++
			} else if f.Profile.Stream == sensor.StreamColor {
				colors++
			}
			return nil
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if depths != 6 || colors != 6 {
			t.Errorf("%d depth and %d color frames with ground truth, want 6 and 6", depths, colors)
		}
	})
	t.Run("playback", func(t *testing.T) {
		dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		var mu sync.Mutex // a handler goroutine per sensor
		depths := 0
		done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
			if f.Profile.Stream != sensor.StreamDepth {
				return
			}
			gt, err := dev.GroundTruth(f, dev.Position())
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			check(t, f, gt)
			depths++
		}))
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if depths != 6 {
			t.Errorf("%d depth frames, want 6", depths)
		}
	})
	t.Run("units", func(t *testing.T) {
		var mu sync.Mutex // units run concurrently
		depths := 0
		g, err := units.NewGraph(units.Unit{Name: "truth", Handlers: []units.Handler{{Name: "depth",
			Inputs: []units.Input{units.Camera("", sensor.StreamDepth, 0)},
			Func: func(c *units.Context, in []*units.Msg) error {
				gt, err := in[0].GroundTruth()
				if err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				if check(t, in[0].Frame, gt) {
					depths++
				}
				return nil
			}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := units.Replay(context.Background(), g, []string{bag}, nil); err != nil {
			t.Fatal(err)
		}
		if depths != 6 {
			t.Errorf("%d depth frames with ground truth, want 6", depths)
		}
	})
	t.Run("none", func(t *testing.T) {
		_, err := replay.Run(context.Background(), []string{plain}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
			_, err := c.GroundTruth()
			return err
		}}, nil)
		if !errors.Is(err, playback.ErrNoGroundTruth) {
			t.Errorf("bag without ground truth: %v, want ErrNoGroundTruth", err)
		}
	})
}

// walkPose returns the synthetic camera's pose on the "walk" trajectory
// at a time in seconds, as software.Synthetic gives it.
func walkPose(t *testing.T) func(sec float64) scene.Pose {
	t.Helper()
	v := &software.Video{Width: 64, Height: 48, FPS: 30}
	y, err := software.NewSynthetic(software.SyntheticConfig{Depth: v, Scene: &software.SceneConfig{Motion: "walk"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { y.Device.Close() })
	return func(sec float64) scene.Pose {
		p, ok := y.Pose(sec * 1000)
		if !ok {
			t.Fatal("the synthetic camera films no scene")
		}
		return p
	}
}
