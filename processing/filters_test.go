package processing

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/framepool"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// baselineOf returns the stereo baseline of a bag's depth sensor.
func baselineOf(t testing.TB, bag string) float32 {
	t.Helper()
	dev, err := playback.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	for _, s := range dev.Sensors() {
		if st, ok := s.(extensions.DepthStereoSensor); ok {
			return st.StereoBaselineMM()
		}
	}
	t.Fatalf("%s: no stereo depth sensor", bag)
	return 0
}

// recycle scribbles over the output f and gives its bytes back to
// internal/framepool, as the C library does with the outputs the program
// released.
func recycle(f *sensor.Frame) {
	for i := range f.Data {
		f.Data[i] = 0xee
	}
	framepool.Put(f.Data)
}

// TestFiltersMatchLibrealsense: every depth frame of every reference bag,
// through each depth filter with the judge's settings and through the
// judge's chain, gives librealsense's bytes, size and format; one instance
// of each block sees every frame in order, as the temporal filter needs.
// Each output, once compared (or processed by the next block of the
// chain), is scribbled over and given back to internal/framepool, as the
// C library gives back the outputs the program released: the outputs
// after it, made in that memory, must still write every byte.
func TestFiltersMatchLibrealsense(t *testing.T) {
	eachProcReference(t, func(t *testing.T, file, bag string, lines []procLine) {
		frames := depthFrames(t, bag)
		baseline := baselineOf(t, bag)

		threshold := NewThreshold()
		if err := threshold.SetOption(sensor.OptionMinDistance, 0.15); err != nil {
			t.Fatal(err)
		}
		holes := make([]Block, 3)
		for m := range holes {
			holes[m] = NewHoleFilling()
			if err := holes[m].SetOption(sensor.OptionHolesFill, float32(m)); err != nil {
				t.Fatal(err)
			}
		}
		single := map[string]Block{
			"decimation": NewDecimation(), "threshold": threshold, "disparity": NewDisparityTransform(true, baseline),
			"spatial": NewSpatial(), "temporal": NewTemporal(), "units": NewUnitsTransform(),
			"hole-filling.mode-0": holes[0], "hole-filling.mode-1": holes[1], "hole-filling.mode-2": holes[2],
		}
		chainHoles := NewHoleFilling()
		if err := chainHoles.SetOption(sensor.OptionHolesFill, 1); err != nil {
			t.Fatal(err)
		}
		chain := []Block{NewDecimation(), NewDisparityTransform(true, baseline), NewSpatial(), NewTemporal(),
			NewDisparityTransform(false, baseline), chainHoles}
		for _, l := range lines {
			d := frames[l.Number]
			if d == nil {
				t.Fatalf("no depth frame %d", l.Number)
			}
			checkOp(t, "depth", d, l.Ops["depth"])
			names := make([]string, 0, len(single))
			for name := range single {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				out, err := single[name].Process(d)
				if err != nil {
					t.Fatalf("frame %d %s: %v", l.Number, name, err)
				}
				checkOp(t, name, out, l.Ops[name])
				recycle(out)
			}
			out := d
			for _, b := range chain {
				in := out
				var err error
				if out, err = b.Process(in); err != nil {
					t.Fatalf("frame %d chain %s: %v", l.Number, b.Name(), err)
				}
				if in != d {
					recycle(in)
				}
			}
			checkOp(t, "chain", out, l.Ops["chain"])
			recycle(out)
			if t.Failed() {
				t.Fatalf("frame %d differs", l.Number)
			}
		}
	})
}

// TestSmoothRowsInt pins the row passes of the spatial filter on Z16 to
// librealsense's asymmetric rules: the left pass takes a value of 1 as
// valid, the right pass as a hole; holes are filled from the last valid
// value while the run stays under the radius; a neighbour within delta is
// blended with it.
func TestSmoothRowsInt(t *testing.T) {
	for _, c := range []struct {
		name   string
		row    []uint16
		radius int
		want   []uint16
	}{
		{"one is a hole to the right pass", []uint16{100, 1, 100}, 2, []uint16{100, 100, 100}},
		{"no fill without a radius", []uint16{100, 1, 100}, 0, []uint16{100, 1, 100}},
		{"fill runs stop at the radius", []uint16{100, 0, 0, 0, 50}, 2, []uint16{100, 100, 0, 50, 50}},
		{"blend within delta", []uint16{100, 110, 200}, 0, []uint16{103, 105, 200}},
		{"a single column is left alone", []uint16{0}, 2, []uint16{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := slices.Clone(c.row)
			smoothRowsInt(v, len(v), 1, 0.5, 20, c.radius)
			if !slices.Equal(v, c.want) {
				t.Errorf("%v: got %v, want %v", c.row, v, c.want)
			}
		})
	}
}

// TestPersistenceModes checks every persistency mode of the Temporal
// filter against its librealsense name ("Valid in 2/last 4": at least 2
// valid among the 4 newest frames; "Valid in 1/8": among all 8) for every
// 8-frame history, the newest frame in bit 7.
func TestPersistenceModes(t *testing.T) {
	for mode, name := range temporalPersistency {
		var newest, valid int
		switch {
		case name == "Disabled":
			newest, valid = 0, 1
		case name == "Always on":
		default:
			if _, err := fmt.Sscanf(name, "Valid in %d/last %d", &valid, &newest); err != nil {
				if _, err := fmt.Sscanf(name, "Valid in %d/%d", &valid, &newest); err != nil {
					t.Fatalf("mode %d: unknown name %q", mode, name)
				}
			}
		}
		lut := persistenceLUT(mode)
		for h := range 256 {
			n := 0
			for k := range newest {
				n += h >> (7 - k) & 1
			}
			if got, want := lut[h]&1 != 0, n >= valid; got != want {
				t.Errorf("mode %d (%s), history %08b: credible %v, want %v", mode, name, h, got, want)
			}
		}
	}
}

// TestDecimateDepth2: the scale-2 medians by min and max equal those by
// sorting, for squares of 0 to 4 non-zero values, ties included.
func TestDecimateDepth2(t *testing.T) {
	// The widths from 32 on have rows of SIMD (16 outputs and more).
	for _, c := range []struct{ w, h int }{{8, 4}, {64, 48}, {10, 6}, {7, 5}, {100, 40}, {34, 2}} {
		rng := rand.New(rand.NewPCG(uint64(c.w), uint64(c.h)))
		src := make([]byte, 2*c.w*c.h)
		for i := 0; i < len(src); i += 2 {
			v := uint16(0)
			if rng.IntN(3) > 0 {
				v = uint16(1 + rng.IntN(6)) // few values: many ties
				switch rng.IntN(4) {
				case 0, 1:
					v = uint16(rng.Uint32())
				case 2:
					v = 0xffff - uint16(rng.IntN(2)) // the largest values
				}
			}
			src[i], src[i+1] = byte(v), byte(v>>8)
		}
		rw, rh := c.w/2, c.h/2
		pw := (rw + 3) / 4 * 4
		got, want := make([]byte, 2*pw*rh), make([]byte, 2*pw*rh)
		decimateDepth2(src, got, c.w, rw, rh, pw)
		decimateDepthSorted(src, want, c.w, rw, rh, pw, 2)
		if !bytes.Equal(got, want) {
			t.Errorf("%dx%d: medians differ from the sorted ones", c.w, c.h)
		}
	}
}

// TestToMeters: the units transform's row conversion, four values at a
// time and the rest one by one, is value × units for every length.
func TestToMeters(t *testing.T) {
	const units = 0.001
	for n := range 10 {
		src := make([]byte, 2*n)
		for i := range n {
			v := uint16(i*7919 + 1)
			src[2*i], src[2*i+1] = byte(v), byte(v>>8)
		}
		dst := make([]float32, n)
		toMeters(dst, src, units)
		for i := range n {
			if want := units * float32(uint16(i*7919+1)); dst[i] != want {
				t.Errorf("%d values: [%d] = %v, want %v", n, i, dst[i], want)
			}
		}
	}
}

// TestEmpty: hole filling's holes are Z16 zeros and DISPARITY32 +0 only.
func TestEmpty(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		x    any
		want bool
	}{
		{uint16(0), true}, {uint16(1), false}, {uint16(65535), false},
		{float32(0), true}, {negZero, false}, {float32(1e-45), false}, {float32(math.NaN()), false}, {float32(-1), false},
	} {
		var got bool
		switch x := c.x.(type) {
		case uint16:
			got = empty(x)
		case float32:
			got = empty(x)
		}
		if got != c.want {
			t.Errorf("empty(%T %v) = %v, want %v", c.x, c.x, got, c.want)
		}
	}
}

// recursiveFloat is librealsense's recursive filter of disparity step by
// step, the reference of recursiveRow and recursiveColumns: over the n
// values of v at start, start+step, ..., a two-state machine (valid or
// invalid run) that counts its steps.
func recursiveFloat(v []float32, start, step, n int, alpha, delta float32) {
	if n < 2 {
		return
	}
	oma := 1 - alpha
	state := v[start]
	prev := state
	i := start + step
	inn := v[i]
	u := n - 1
	valid := positive(prev)
	for {
		if valid {
			if positive(inn) {
				if d := prev - inn; d < delta && d > -delta {
					state = blend(inn, state, alpha, oma)
					v[i] = state
				} else {
					state = inn
				}
			} else {
				valid = false
			}
			if u--; u <= 0 {
				return
			}
			prev = inn
			i += step
			inn = v[i]
			if valid {
				continue
			}
		}
		// invalid run: the counter steps before the value is looked at.
		if u--; u <= 0 {
			return
		}
		if positive(inn) {
			prev, state = inn, inn
			valid = true
		}
		i += step
		inn = v[i]
	}
}

// TestRecursiveFilter compares the spatial filter's passes over disparity
// (recursiveRow, the same on strips of rows with SIMD where the machine has
// it, and recursiveColumns, with SIMD too) with librealsense's step-by-step
// filter, on random pictures of valid values near each other, zeros,
// negative values, -0, NaN and infinities.
func TestRecursiveFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	special := []float32{0, float32(math.Copysign(0, -1)), -3, float32(math.NaN()), float32(math.Inf(1)), 1e-42}
	fast := 0
	for trial := range 200 {
		w, h := 1+r.IntN(40), 1+r.IntN(12)
		if trial%2 == 0 {
			h = 1 + r.IntN(80) // strips of every height
		}
		alpha := []float32{0.5, 0.25, 1, float32(r.Float64())}[trial%4]
		delta := float32(1 + r.IntN(50))
		v := make([]float32, w*h)
		for i := range v {
			v[i] = float32(100 + r.Float64()*80)
			if r.IntN(5) == 0 {
				v[i] = special[r.IntN(len(special))]
			}
		}
		want := slices.Clone(v)
		for y := range h {
			recursiveFloat(want, y*w, 1, w, alpha, delta)
			recursiveFloat(want, (y+1)*w-1, -1, w, alpha, delta)
		}
		for x := range w {
			recursiveFloat(want, x, w, h, alpha, delta)
			recursiveFloat(want, x+(h-1)*w, -w, h, alpha, delta)
		}
		got := slices.Clone(v)
		y0 := r.IntN(h) // where a part of parallelRows starts
		for y := range y0 {
			recursiveRow(got[y*w:(y+1)*w], alpha, delta)
		}
		y1 := recursiveRowsFast(got, w, y0, h, alpha, delta)
		fast += y1 - y0
		for y := y1; y < h; y++ {
			recursiveRow(got[y*w:(y+1)*w], alpha, delta)
		}
		x0 := r.IntN(w) // two parts, as parallelRows may split them
		orig := make([]float32, w)
		recursiveColumns(got, w, h, 0, x0, alpha, delta, orig[:x0])
		recursiveColumns(got, w, h, x0, w, alpha, delta, orig[x0:])
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d (%dx%d, alpha %v delta %v, rows %d-%d with SIMD): value %d (%d,%d): %v, want %v",
					trial, w, h, alpha, delta, y0, y1, i, i%w, i/w, got[i], want[i])
			}
		}
	}
	if fast == 0 && recursiveRowsFast(make([]float32, 16), 4, 0, 4, 0.5, 20) == 4 {
		t.Error("no row done with SIMD")
	}
}
