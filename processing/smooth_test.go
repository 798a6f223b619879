package processing

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSmoothRowsFast compares the row passes of Z16 spatial filtering
// done with SIMD (where the machine has it) with smoothPass, on random
// pictures (zeros, ones and extremes among them, and runs of values close
// together), alphas, deltas and hole-filling radiuses.
func TestSmoothRowsFast(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	vals := []uint16{0, 0, 0, 1, 1, 2, 32767, 32768, 65534, 65535}
	fast := 0
	for trial := range 400 {
		alpha := []float32{0.25, 0.5, 1, 0, float32(r.Float64())}[trial%5]
		delta := uint16(1 + r.IntN(50))
		if trial%7 == 0 {
			delta = uint16(1 + r.IntN(65535))
		}
		radius := []int{0, 2, 4, 8, 16, 0xff}[trial%6]
		w, h := 1+r.IntN(90), 1+r.IntN(80)
		v := make([]uint16, w*h)
		for i := range v {
			switch r.IntN(4) {
			case 0:
				v[i] = vals[r.IntN(len(vals))]
			case 1:
				v[i] = uint16(r.Uint32())
			default:
				if i > 0 {
					v[i] = v[i-1] + uint16(r.IntN(2*int(min(delta, 60))+3)) - min(delta, 60) - 1
				}
			}
		}
		want := slices.Clone(v)
		for y := range h {
			if w >= 2 {
				row := want[y*w : (y+1)*w]
				smoothPass(row, 1, w-1, 1, 1, 1, delta, alpha, radius)
				smoothPass(row, w-2, -1, -1, 2, 0, delta, alpha, radius)
			}
		}
		y0 := r.IntN(h)
		got := slices.Clone(v)
		y1 := smoothRowsFast(got, w, y0, h, alpha, delta, radius)
		fast += y1 - y0
		if y1 < y0 || y1 > h {
			t.Fatalf("trial %d: smoothRowsFast from row %d of %d returned %d", trial, y0, h, y1)
		}
		for i := range got {
			want := want[i]
			if y := i / w; y < y0 || y >= y1 {
				want = v[i] // left alone
			}
			if got[i] != want {
				t.Fatalf("trial %d (alpha %v delta %d radius %d, %dx%d, rows %d-%d): pixel %d,%d is %d, want %d (was %d)",
					trial, alpha, delta, radius, w, h, y0, y1, i%w, i/w, got[i], want, v[i])
			}
		}
	}
	if fast == 0 && smoothRowsFast(make([]uint16, 64), 8, 0, 8, 0.5, 20, 0) == 8 {
		t.Error("no row done fast")
	}
}
