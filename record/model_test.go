package record

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestDescriptionRoundTrip: the description a recording is written from
// (device.Describe of the recorded device) is what playback serves as the
// bag's device.Snapshot: the same info, and per sensor the same info,
// options (values and descriptions), profiles, kinds, depth units and
// stereo baseline.
func TestDescriptionRoundTrip(t *testing.T) {
	for _, name := range []string{"depth_color", "depth_color_ir2_uncompressed", "motion_accel_gyro", "pose"} {
		t.Run(name, func(t *testing.T) {
			cfg, ok := refcam.Config(name)
			if !ok {
				t.Fatalf("no reference config %s", name)
			}
			cfg.Speed = 1
			path := filepath.Join(t.TempDir(), name+".bag")
			var want *device.Snapshot
			synctest.Test(t, func(t *testing.T) {
				cam, err := software.NewSynthetic(cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer cam.Close()
				rec, err := Create(cam, path, nil)
				if err != nil {
					t.Fatal(err)
				}
				ss := rec.Sensors()
				for _, s := range ss {
					if err := s.Open(s.Profiles()...); err != nil {
						t.Fatal(err)
					}
				}
				// The description is the device as the first frame finds it
				// (streaming: Frames Queue Size reads 0, as librealsense
				// records it).
				var once sync.Once
				h := sensor.HandlerFunc(func(*sensor.Frame) { once.Do(func() { want = device.Describe(cam) }) })
				for _, s := range ss {
					if err := s.Start(h); err != nil {
						t.Fatal(err)
					}
				}
				<-cam.Done()
				stopAndClose(t, rec, ss)
			})
			pb, err := playback.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer pb.Close()
			got := pb.Snapshot()
			if !maps.Equal(got.Info, want.Info) {
				t.Errorf("device info %v, want %v", got.Info, want.Info)
			}
			if len(got.Sensors) != len(want.Sensors) {
				t.Fatalf("%d sensors, want %d", len(got.Sensors), len(want.Sensors))
			}
			for i := range want.Sensors {
				g, w := &got.Sensors[i], &want.Sensors[i]
				if g.Index != w.Index || !maps.Equal(g.Info, w.Info) {
					t.Errorf("sensor %d: index %d info %v, want %d %v", i, g.Index, g.Info, w.Index, w.Info)
				}
				var gotOpts, wantOpts []string
				for _, o := range g.Options {
					gotOpts = append(gotOpts, fmt.Sprintf("%v=%v %q", o.Option, o.Value, o.Description))
				}
				for _, o := range w.Options {
					wantOpts = append(wantOpts, fmt.Sprintf("%v=%v %q", o.Option, o.Value, o.Description))
				}
				if !slices.Equal(gotOpts, wantOpts) {
					t.Errorf("sensor %d options\n got %q\nwant %q", i, gotOpts, wantOpts)
				}
				profile := func(p *sensor.StreamProfile) string {
					return fmt.Sprintf("%s %v %dx%d@%d", p.Name(), p.Format, p.Width, p.Height, p.FPS)
				}
				var gotProfiles, wantProfiles []string
				for _, p := range g.Profiles {
					gotProfiles = append(gotProfiles, profile(p))
				}
				for _, p := range w.Profiles {
					wantProfiles = append(wantProfiles, profile(p))
				}
				slices.Sort(gotProfiles)
				slices.Sort(wantProfiles)
				if !slices.Equal(gotProfiles, wantProfiles) {
					t.Errorf("sensor %d profiles\n got %q\nwant %q", i, gotProfiles, wantProfiles)
				}
				if !slices.Equal(g.Kinds, w.Kinds) || g.HasDepthUnits != w.HasDepthUnits || g.DepthUnits != w.DepthUnits ||
					g.HasBaseline != w.HasBaseline || g.StereoBaselineMM != w.StereoBaselineMM {
					t.Errorf("sensor %d: kinds %v depth units %v %v baseline %v %v, want %v %v %v %v %v", i,
						g.Kinds, g.HasDepthUnits, g.DepthUnits, g.HasBaseline, g.StereoBaselineMM,
						w.Kinds, w.HasDepthUnits, w.DepthUnits, w.HasBaseline, w.StereoBaselineMM)
				}
			}
		})
	}
}
