package processing

import (
	"strings"
	"testing"

	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// streamFrames plays a bag losslessly and returns the first frame of each
// number of the streams keep selects.
func streamFrames(t testing.TB, path string, keep func(p *sensor.StreamProfile) bool) map[uint64]*sensor.Frame {
	t.Helper()
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	out := map[uint64]*sensor.Frame{}
	done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
		if keep(f.Profile) {
			if _, ok := out[f.Number]; !ok {
				out[f.Number] = f
			}
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return out
}

// pairedSetup returns, for a reference bag and the judge's depth lines of
// it, its depth frames, the frames of its paired stream, the paired
// stream's name in the judge's keys and the device for extrinsics.
func pairedSetup(t *testing.T, bag string, lines []procLine) (depth, paired map[uint64]*sensor.Frame, name string, dev *playback.Device) {
	dev, err := playback.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	pp := pairedProfile(dev, lines)
	if pp == nil {
		t.Fatal("the judge paired no depth frame")
	}
	depth = depthFrames(t, bag)
	paired = streamFrames(t, bag, func(p *sensor.StreamProfile) bool { return p.Same(pp) })
	return depth, paired, strings.ToLower(pp.Stream.String()), dev
}

// mapTo makes pc texture depth frame d with frame o, through the device's
// extrinsics between their streams.
func mapTo(t *testing.T, pc *PointCloud, dev ExtrinsicsSource, d, o *sensor.Frame) {
	t.Helper()
	e, err := dev.Extrinsics(d.Profile, o.Profile)
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.MapTo(o.Profile, e); err != nil {
		t.Fatal(err)
	}
}

// TestPointCloudMatchesLibrealsense: the vertices and texture coordinates
// of every depth frame of every reference bag, mapped to the paired frame
// as the judge does, are librealsense's bytes; and so are they computed
// into the memory of the previous frame's cloud (the first time, a cloud
// of garbage).
func TestPointCloudMatchesLibrealsense(t *testing.T) {
	eachProcReference(t, func(t *testing.T, file, bag string, lines []procLine) {
		depth, paired, _, dev := pairedSetup(t, bag, lines)
		pc := NewPointCloud()
		n := 0
		var reused *Points
		for _, l := range lines {
			d := depth[l.Number]
			if l.Paired != nil {
				mapTo(t, pc, dev, d, paired[*l.Paired])
			}
			if reused == nil {
				reused = &Points{Vertices: make([][3]float32, d.Width*d.Height), TexCoords: make([][2]float32, d.Width*d.Height)}
				for i := range reused.Vertices {
					reused.Vertices[i], reused.TexCoords[i] = [3]float32{7, 7, 7}, [2]float32{7, 7}
				}
			}
			fresh, err := pc.Calculate(d)
			if err != nil {
				t.Fatalf("frame %d: %v", l.Number, err)
			}
			if reused, err = pc.CalculateInto(reused, d); err != nil {
				t.Fatalf("frame %d: %v", l.Number, err)
			}
			for _, pts := range []*Points{fresh, reused} {
				if got, want := hashOf(pts.VertexBytes()), l.Ops["pointcloud.vertices"].Hash; got != want {
					t.Errorf("frame %d vertices %s, want %s", l.Number, got, want)
				}
				want, mapped := l.Ops["pointcloud.texcoords"]
				if mapped != (pts.TexCoords != nil) {
					t.Errorf("frame %d: texture coordinates %v, want %v", l.Number, pts.TexCoords != nil, mapped)
				} else if mapped && hashOf(pts.TexCoordBytes()) != want.Hash {
					t.Errorf("frame %d texture coordinates %s, want %s", l.Number, hashOf(pts.TexCoordBytes()), want.Hash)
				}
			}
			n++
		}
		if n == 0 {
			t.Fatal("no depth line")
		}
	})
}

// TestAlignMatchesLibrealsense: every depth frame of every reference bag
// aligned to its paired frame, and the paired frame aligned to depth, are
// librealsense's bytes.
func TestAlignMatchesLibrealsense(t *testing.T) {
	eachProcReference(t, func(t *testing.T, file, bag string, lines []procLine) {
		depth, paired, name, dev := pairedSetup(t, bag, lines)
		ex := dev
		var toOther *Align
		toDepth := NewAlign(sensor.StreamDepth, ex)
		n := 0
		for _, l := range lines {
			if l.Paired == nil {
				if _, ok := l.Ops["align.to-depth"]; ok {
					t.Errorf("frame %d: aligned without a paired frame", l.Number)
				}
				continue
			}
			d, o := depth[l.Number], paired[*l.Paired]
			if toOther == nil {
				toOther = NewAlign(o.Profile.Stream, ex)
			}
			a, err := toOther.Process(d, o)
			if err != nil {
				t.Fatalf("frame %d: %v", l.Number, err)
			}
			checkOp(t, "align.to-"+name, a, l.Ops["align.to-"+name])
			b, err := toDepth.Process(d, o)
			if err != nil {
				t.Fatalf("frame %d: %v", l.Number, err)
			}
			checkOp(t, "align.to-depth", b, l.Ops["align.to-depth"])
			n++
		}
		if n == 0 {
			t.Fatal("no paired depth frame")
		}
	})
}
