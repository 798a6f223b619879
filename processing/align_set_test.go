package processing

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/rsbag/rsbag/internal/framepool"
	"github.com/rsbag/rsbag/sensor"
)

// TestAlignProcessSet checks which frames of a frameset an Align aligns,
// as librealsense's align block: towards depth every other video frame,
// in the set's order; towards another stream only the depth frame, to the
// set's first frame of that stream; nothing without a Z16 depth frame or a
// frame of the stream aligned to.
func TestAlignProcessSet(t *testing.T) {
	frame := func(s sensor.Stream, f sensor.Format, index, w, h int) *sensor.Frame {
		fr := synthDepth(w, h, f)
		fr.Profile.Stream, fr.Profile.Index = s, index
		return fr
	}
	depth := frame(sensor.StreamDepth, sensor.FormatZ16, 0, 16, 8)
	color := frame(sensor.StreamColor, sensor.FormatRGB8, 0, 20, 10)
	ir1 := frame(sensor.StreamInfrared, sensor.FormatY8, 1, 16, 8)
	ir2 := frame(sensor.StreamInfrared, sensor.FormatY8, 2, 12, 6)
	disparity := frame(sensor.StreamDepth, sensor.FormatDisparity32, 0, 16, 8)
	for _, c := range []struct {
		name string
		to   sensor.Stream
		set  []*sensor.Frame
		want []*sensor.Frame // the frames aligned: each with depth
	}{
		{"to depth, all", sensor.StreamDepth, []*sensor.Frame{depth, color, ir1, ir2}, []*sensor.Frame{color, ir1, ir2}},
		{"to depth, set order", sensor.StreamDepth, []*sensor.Frame{ir2, color, depth, ir1}, []*sensor.Frame{ir2, color, ir1}},
		{"to depth, pair", sensor.StreamDepth, []*sensor.Frame{depth, color}, []*sensor.Frame{color}},
		{"to depth, no depth", sensor.StreamDepth, []*sensor.Frame{color, ir1}, nil},
		{"to depth, disparity only", sensor.StreamDepth, []*sensor.Frame{disparity, color}, nil},
		{"to color", sensor.StreamColor, []*sensor.Frame{ir1, depth, color, ir2}, []*sensor.Frame{color}},
		{"to infrared, first", sensor.StreamInfrared, []*sensor.Frame{depth, ir2, color, ir1}, []*sensor.Frame{ir2}},
		{"to color, none", sensor.StreamColor, []*sensor.Frame{depth, ir1}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := NewAlign(c.to, identityExtrinsics{})
			got, err := a.ProcessSet(c.set)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d aligned frames, want %d", len(got), len(c.want))
			}
			for i, o := range c.want {
				want, err := a.Process(depth, o)
				if err != nil {
					t.Fatal(err)
				}
				g := got[i]
				if g.Profile.Stream != want.Profile.Stream || g.Profile.Index != want.Profile.Index ||
					g.Width != want.Width || g.Height != want.Height || !bytes.Equal(g.Data, want.Data) {
					t.Errorf("frame %d: %s %dx%d, want %s %dx%d (and the same bytes)", i, g.Profile.Name(), g.Width, g.Height,
						want.Profile.Name(), want.Width, want.Height)
				}
			}
		})
	}
}

// TestAlignLeavesPool: align's outputs are new memory, not
// internal/framepool's. The C library gives the depth filters' outputs back
// to the pool but not an align's (they go out in a frameset), so an align
// that took from the pool would leave the filters without memory to reuse.
func TestAlignLeavesPool(t *testing.T) {
	depth := synthDepth(17, 9, sensor.FormatZ16)
	color := synthDepth(23, 11, sensor.FormatRGB8)
	color.Profile.Stream = sensor.StreamColor
	for _, c := range []struct {
		name string
		to   sensor.Stream
		n    int // the size of the output's data
	}{
		{"to color", sensor.StreamColor, 23 * 11 * 2},
		{"to depth", sensor.StreamDepth, 17 * 9 * 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := framepool.Get(c.n)
			framepool.Put(b)
			out, err := NewAlign(c.to, identityExtrinsics{}).Process(depth, color)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Data) != c.n {
				t.Fatalf("output of %d bytes, want %d", len(out.Data), c.n)
			}
			if got := framepool.Get(c.n); &got[0] != &b[0] {
				t.Errorf("the align took the pool's buffer of %d bytes", c.n)
			}
			runtime.KeepAlive(b)
		})
	}
}
