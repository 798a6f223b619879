package processing

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRoundInt32 compares roundInt32 with rounding in float64 (to nearest,
// ties to even; the integer indefinite value out of range and for NaN) on
// ties, the edges of its fast range and random values of every magnitude.
func TestRoundInt32(t *testing.T) {
	want := func(x float32) int32 {
		r := math.RoundToEven(float64(x))
		if !(r >= math.MinInt32 && r <= math.MaxInt32) {
			return math.MinInt32
		}
		return int32(r)
	}
	xs := []float32{0, -0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1279.5, 1280.5, 719.5,
		1 << 22, -(1 << 22), 1<<22 - 0.5, -(1<<22 - 0.5), 1<<22 + 1, 1 << 23, 1<<23 + 1,
		2147483520, 2147483648, -2147483648, -2147483904, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		xs = append(xs, math.Float32frombits(r.Uint32()), float32(r.NormFloat64()*2000), float32(r.IntN(1<<23))/2-(1<<21))
	}
	for _, x := range xs {
		if got, w := roundInt32(x), want(x); got != w {
			t.Errorf("roundInt32(%v) = %d, want %d", x, got, w)
		}
	}
}
