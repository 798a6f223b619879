package processing

import (
	"github.com/rsbag/rsbag/sensor"
	"math"
	"math/rand/v2"
	"slices"
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

// TestAlignRowFast compares a row projected with SIMD (where the machine
// has it: AVX-512, AVX2 and SSE2; AVX2 and SSE2; SSE2 alone) with the
// same row projected pixel by pixel in Go, on random depth (zeros, and
// values whose points fall behind the camera or out of the int32 range
// among them), rays and camera parameters.
func TestAlignRowFast(t *testing.T) {
	defer func(avx2, avx512 bool) { useAVX2, useAVX512 = avx2, avx512 }(useAVX2, useAVX512)
	for _, c := range [][2]bool{{useAVX2, useAVX512}, {useAVX2, false}, {false, false}} {
		useAVX2, useAVX512 = c[0], c[1]
		testAlignRowFast(t)
	}
}

func testAlignRowFast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		var m alignProj
		for i := range m.r {
			m.r[i] = float32(r.NormFloat64())
		}
		for i := range m.t {
			m.t[i] = float32(r.NormFloat64() * 0.05)
		}
		m.fx, m.fy = float32(200+r.Float64()*1500), float32(200+r.Float64()*1500)
		m.ppx, m.ppy = float32(r.Float64()*1280), float32(r.Float64()*720)
		if trial%4 == 0 { // nearly the identity, as real extrinsics are
			m.r = [9]float32{1, 1e-3, -2e-3, -1e-3, 1, 5e-4, 2e-3, -5e-4, 1}
		}
		if trial%2 == 1 {
			m.distort = true
			for i := range m.c {
				m.c[i] = float32(r.NormFloat64() * 0.1)
			}
		}
		m.fill()
		w := 1 + r.IntN(67)
		z, rx, ry := make([]uint16, w), make([]float32, w), make([]float32, w)
		ry0 := float32(r.NormFloat64())
		for i := range z {
			if r.IntN(5) > 0 {
				z[i] = uint16(r.Uint32())
			}
			rx[i], ry[i] = float32(r.NormFloat64()), ry0
		}
		units := []float32{0.001, 0.0001, 1e-45, -0.001, 1e30}[trial%5]
		got, want := make([][2]int32, w), make([][2]int32, w)
		m.row(z, units, rx, nil, ry0, true, got)
		m.row(z, units, rx, ry, 0, false, want)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d (AVX2 %v, AVX-512 %v): pixel %d of %d (z %d): %v, want %v", trial, useAVX2, useAVX512, i, w, z[i], got[i], want[i])
			}
		}
	}
}

// TestTexRowFast compares vertices, texture coordinates and columns computed with SIMD
// (where the machine has it) with those mapped vertex by vertex in Go, on
// random depth, rays and camera parameters of every distortion model.
func TestTexRowFast(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	models := []sensor.Distortion{sensor.DistortionNone, sensor.DistortionBrownConrady, sensor.DistortionModifiedBrownConrady, sensor.DistortionInverseBrownConrady}
	defer func(avx2, avx512 bool) { useAVX2, useAVX512 = avx2, avx512 }(useAVX2, useAVX512)
	features := [][2]bool{{useAVX2, useAVX512}, {useAVX2, false}, {false, false}}
	cleanRows := 0 // rows with clean pixels (see rowFast)
	for trial := range 200 {
		e := sensor.Extrinsics{Rotation: [9]float32{1, 1e-3, -2e-3, -1e-3, 1, 5e-4, 2e-3, -5e-4, 1}}
		if trial%3 == 0 {
			for i := range e.Rotation {
				e.Rotation[i] = float32(r.NormFloat64())
			}
		}
		for i := range e.Translation {
			e.Translation[i] = float32(r.NormFloat64() * 0.05)
		}
		in := sensor.Intrinsics{Width: 1 + r.IntN(1920), Height: 1 + r.IntN(1080), Model: models[trial%len(models)],
			FX: float32(200 + r.Float64()*1500), FY: float32(200 + r.Float64()*1500)}
		in.PPX, in.PPY = float32(r.Float64())*float32(in.Width), float32(r.Float64())*float32(in.Height)
		for i := range in.Coeffs {
			in.Coeffs[i] = float32(r.NormFloat64() * 0.1)
		}
		tm := newTexMapper(&e, &in)
		w := 1 + r.IntN(67)
		z, xs := make([]byte, 2*w), make([]float32, w)
		y := float32(r.NormFloat64())
		units := []float32{0.001, 0.0001, 1e-45, -0.001}[trial%4]
		verts := make([][3]float32, w)
		for i := range xs {
			if r.IntN(5) > 0 {
				z[2*i], z[2*i+1] = byte(r.Uint32()), byte(r.Uint32())
			}
			xs[i] = float32(r.NormFloat64())
		}
		if trial%5 == 1 {
			// columns mostly increasing along the row
			e = sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
			tm = newTexMapper(&e, &in)
			for i := range xs {
				xs[i] = float32(i-w/2) / 100
			}
			units = 0.001
		}
		vertexRowSep(verts, z, xs, y, units)
		var gotPx, wantPx []float32
		if trial%2 == 0 {
			gotPx, wantPx = make([]float32, w), make([]float32, w)
		}
		got, want := make([][2]float32, w), make([][2]float32, w)
		gotVerts := make([][3]float32, w)
		tm.row(verts, want, wantPx, 0)
		for _, c := range features {
			useAVX2, useAVX512 = c[0], c[1]
			n, clean := tm.rowFast(z, xs, y, units, got, gotPx, gotVerts)
			vertexRowSep(gotVerts[n:], z[2*n:], xs[n:], y, units)
			tm.row(gotVerts, got, gotPx, n)
			if wantClean := 0; gotPx != nil {
				wantClean = cleanPixels(monotone(verts, wantPx), n)
				if clean != wantClean {
					t.Fatalf("trial %d (AVX2 %v, AVX-512 %v): %d of %d pixels clean, want %d", trial, useAVX2, useAVX512, clean, w, wantClean)
				}
				cleanRows += min(clean, 1)
			}
			for i, v := range gotVerts {
				if math.Float32bits(v[0]) != math.Float32bits(verts[i][0]) || math.Float32bits(v[1]) != math.Float32bits(verts[i][1]) ||
					math.Float32bits(v[2]) != math.Float32bits(verts[i][2]) {
					t.Fatalf("trial %d (AVX2 %v, AVX-512 %v): vertex %d of %d (z %d): %v, want %v", trial, useAVX2, useAVX512, i, w, int(z[2*i])|int(z[2*i+1])<<8, v, verts[i])
				}
			}
			for i := range got {
				if math.Float32bits(got[i][0]) != math.Float32bits(want[i][0]) || math.Float32bits(got[i][1]) != math.Float32bits(want[i][1]) ||
					(gotPx != nil && math.Float32bits(gotPx[i]) != math.Float32bits(wantPx[i])) {
					t.Fatalf("trial %d (%v, AVX2 %v, AVX-512 %v): pixel %d of %d (z %d): %v, want %v", trial, in.Model, useAVX2, useAVX512, i, w, int(z[2*i])|int(z[2*i+1])<<8, got[i], want[i])
				}
			}
			if gotPx != nil {
				// occlusion removal from the first pixel not known clean
				occl, wantOccl := slices.Clone(gotVerts), slices.Clone(verts)
				removeOccluded(occl, asBytes(occl), gotPx, clean)
				removeOccluded(wantOccl, asBytes(wantOccl), wantPx, 0)
				if !slices.Equal(occl, wantOccl) {
					t.Fatalf("trial %d (AVX2 %v, AVX-512 %v): occlusion removal from pixel %d: %v, want %v", trial, useAVX2, useAVX512, clean, occl, wantOccl)
				}
			}
			clear(got)
			clear(gotVerts)
			clear(gotPx)
		}
	}
	if useAVX512 && cleanRows < 5 {
		t.Errorf("%d rows with clean pixels, want at least 5", cleanRows)
	}
}

// cleanPixels returns the clean pixels rowFast reports for a row of n
// pixels done with SIMD, mono of which are left alone by occlusion
// removal: the groups of sixteen (AVX-512) or eight (AVX2) before the one
// of pixel mono, and none with SSE2 only.
func cleanPixels(mono, n int) int {
	switch {
	case useAVX512 && n >= 16:
		return min(mono&^15, n&^15)
	case useAVX2 && n >= 8:
		return min(mono&^7, n&^7)
	}
	return 0
}

// monotone returns the index of the first vertex of verts, of nonzero
// depth, whose texture column px is not above -1 and the columns of those
// before it, or len(verts).
func monotone(verts [][3]float32, px []float32) int {
	maxX := float32(-1)
	for i, v := range verts {
		if v[2] == 0 {
			continue
		}
		if !(px[i] > maxX) {
			return i
		}
		maxX = px[i]
	}
	return len(verts)
}

// TestBlendRowsFast compares the column blend of Z16 spatial filtering
// done with SIMD (where the machine has it) with the Go blend, on random
// rows (zeros and extremes among them), alphas and deltas.
func TestBlendRowsFast(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := []uint16{0, 1, 2, 32767, 32768, 65534, 65535}
	for trial := range 500 {
		alpha := []float32{0.25, 0.5, 1, 0, float32(r.Float64())}[trial%5]
		delta := uint16(1 + r.IntN(65535))
		if trial%3 == 0 {
			delta = uint16(1 + r.IntN(50))
		}
		w := 1 + r.IntN(70)
		row, other := make([]uint16, w), make([]uint16, w)
		for i := range row {
			row[i], other[i] = uint16(r.Uint32()), uint16(r.Uint32())
			if r.IntN(3) == 0 {
				row[i] = vals[r.IntN(len(vals))]
			}
			if r.IntN(3) == 0 {
				other[i] = row[i] + uint16(r.IntN(9)) - 4
			}
		}
		valid := trial%2 == 1
		oma := 1 - alpha
		want := slices.Clone(row)
		for x, a := range want {
			if b := other[x]; (!valid || a >= 1 && b >= 1) && absDiff(a, b) < delta {
				want[x] = uint16(blend(float32(a), float32(b), alpha, oma) + 0.5)
			}
		}
		got := slices.Clone(row)
		n := blendRowsFast(got, other, blendConsts(alpha, oma, delta), valid)
		if !slices.Equal(got[:n], want[:n]) {
			t.Fatalf("trial %d (alpha %v delta %d valid %v): %v, want %v (from %v and %v)", trial, alpha, delta, valid, got[:n], want[:n], row[:n], other[:n])
		}
	}
}

// TestU16FloatsFast compares depth turned into disparity or meters with
// SIMD (where the machine has it) with the Go division or product, on
// random rows (zeros among them) and factors.
func TestU16FloatsFast(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 300 {
		factor := []float32{1, 3.5e4, float32(r.NormFloat64() * 1e5), 1e-40, float32(math.Inf(1))}[trial%5]
		w := 1 + r.IntN(70)
		src := make([]byte, 2*w)
		for i := range w {
			if r.IntN(4) > 0 {
				src[2*i], src[2*i+1] = byte(r.Uint32()), byte(r.Uint32())
			}
		}
		got := make([]float32, w)
		divide := trial%2 == 0
		n := u16FloatsFast(src, got, factor, divide)
		for x := range n {
			var want float32
			v := uint16(src[2*x]) | uint16(src[2*x+1])<<8
			if !divide {
				want = factor * float32(v)
			} else if v != 0 {
				want = factor / float32(v)
			}
			if math.Float32bits(got[x]) != math.Float32bits(want) {
				t.Fatalf("trial %d (factor %v): value %d of %d: %v, want %v", trial, factor, x, w, got[x], want)
			}
		}
	}
}

// TestThresholdRow compares thresholded rows (SIMD where the machine has
// it, through the kept values' bounds) with the threshold of each value's
// distance in float32, on random rows, depth units and ranges, the ends
// of the ranges among the values.
func TestThresholdRow(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 300 {
		units := []float32{0.001, 0.0001, 1e-5, float32(r.Float64() * 0.01), 0, -0.001}[trial%6]
		lo, hi := float32(r.Float64()*4), float32(r.Float64()*16)
		if trial%7 == 0 {
			lo, hi = hi, lo // an empty range
		}
		w := 1 + r.IntN(70)
		src := make([]byte, 2*w)
		for i := range w {
			v := uint16(r.Uint32())
			switch r.IntN(4) {
			case 0:
				v = 0
			case 1:
				if units != 0 { // a value at an end of the range
					v = uint16(min(float64([]float32{lo, hi}[r.IntN(2)]/units), 65535)) + uint16(r.IntN(3)) - 1
				}
			}
			src[2*i], src[2*i+1] = byte(v), byte(v>>8)
		}
		var kv keptValues
		k := kv.of(units, lo, hi)
		if !k.interval {
			t.Fatalf("trial %d (units %v, %v to %v): the kept values are not an interval", trial, units, lo, hi)
		}
		got := make([]byte, 2*w)
		for i := range got {
			got[i] = 0xee // every byte is written
		}
		thresholdRow(got, src, k.lo, k.span, k.none)
		for x := range w {
			v := uint16(src[2*x]) | uint16(src[2*x+1])<<8
			want := v
			if d := units * float32(v); !(d >= lo && d <= hi) {
				want = 0
			}
			if g := uint16(got[2*x]) | uint16(got[2*x+1])<<8; g != want {
				t.Fatalf("trial %d (units %v, %v to %v): value %d of %d (%d): %d, want %d", trial, units, lo, hi, x, w, v, g, want)
			}
		}
	}
}

// TestTemporalFast compares the temporal filter's step on Z16 with SIMD
// (where the machine has it) with the Go step, on random pixels (zeros,
// values near their last ones, the largest values), histories, frame
// bits, persistency modes, alphas and deltas: the outputs, last values and
// histories.
func TestTemporalFast(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	value := func(near uint16) uint16 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return 0xffff - uint16(r.IntN(3))
		case 2:
			return uint16(r.Uint32())
		}
		return near + uint16(r.IntN(41)) - 20
	}
	for trial := range 300 {
		n := 1 + r.IntN(70)
		alpha := []float32{0.4, 0, 1, float32(r.Float64())}[trial%4]
		delta := uint16(1 + r.IntN(100))
		lut := persistenceLUT(r.IntN(len(persistenceRules)))
		mask := uint8(1) << r.IntN(8)
		cur, last, hist := make([]uint16, n), make([]uint16, n), make([]uint8, n)
		for i := range n {
			last[i] = value(uint16(1000 + r.IntN(100)))
			cur[i] = value(last[i])
			hist[i] = uint8(r.Uint32())
		}
		wc, wl, wh := slices.Clone(cur), slices.Clone(last), slices.Clone(hist)
		temporal(wc, wl, wh, &lut, mask, alpha, float32(delta))
		done := temporalFast(cur, last, hist, &lut, mask, alpha, delta)
		temporal(cur[done:], last[done:], hist[done:], &lut, mask, alpha, float32(delta))
		if !slices.Equal(cur, wc) || !slices.Equal(last, wl) || !slices.Equal(hist, wh) {
			t.Fatalf("trial %d (alpha %v delta %d bit %#x, %d of %d by SIMD):\noutput %v\nwant   %v\nlast %v\nwant %v\nhistory %v\nwant    %v",
				trial, alpha, delta, mask, done, n, cur, wc, last, wl, hist, wh)
		}
	}
}

// TestScatterNearestFast compares the placement of depth rows with SIMD
// (where the machine has it) with the placement pixel by pixel in Go, on
// the same pictures: random rows of runs of pixels side by side, two
// columns wide, as 1:1 alignments give (broken by gaps, zero depth, other
// rows and other widths), and of random rectangles, some past the
// picture's edges, on pictures of every size from one column on.
func TestScatterNearestFast(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := range 400 {
		w, h := 1+r.IntN(40), 1+r.IntN(12)
		if trial%3 == 0 {
			w = 4 + r.IntN(5)
		}
		got := make([]uint16, w*h)
		for i := range got {
			if r.IntN(3) == 0 {
				got[i] = uint16(r.Uint32())
			}
		}
		want := slices.Clone(got)
		for range 1 + r.IntN(4) {
			n := 1 + r.IntN(70)
			z, tl, br := make([]uint16, n), make([][2]int32, n), make([][2]int32, n)
			x, y0, rows := int32(r.IntN(w+4))-2, int32(r.IntN(h+2))-1, int32(1+r.IntN(3))
			for i := range n {
				z[i] = uint16(r.Uint32())
				if r.IntN(4) == 0 {
					z[i] = []uint16{0, 1, 2, 0xfffe, 0xffff}[r.IntN(5)]
				}
				switch r.IntN(12) {
				case 0: // a random rectangle, maybe empty or past an edge
					tl[i] = [2]int32{int32(r.IntN(w+8)) - 4, int32(r.IntN(h+8)) - 4}
					br[i] = [2]int32{tl[i][0] + int32(r.IntN(7)) - 1, tl[i][1] + int32(r.IntN(5)) - 1}
					continue
				case 1: // the run jumps
					x, y0, rows = int32(r.IntN(w+4))-2, int32(r.IntN(h+2))-1, int32(1+r.IntN(3))
				case 2: // one pixel on other rows
					tl[i], br[i] = [2]int32{x, y0 + 1}, [2]int32{x + 1, y0 + rows}
					x++
					continue
				case 3: // one pixel of another width
					tl[i], br[i] = [2]int32{x, y0}, [2]int32{x + int32(r.IntN(4)) - 1, y0 + rows - 1}
					x++
					continue
				}
				tl[i], br[i] = [2]int32{x, y0}, [2]int32{x + 1, y0 + rows - 1}
				x++
			}
			scatterNearest(got, z, tl, br, w, h)
			scatterNearestGo(want, z, tl, br, w, h)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d (%dx%d): z %v\ntl %v\nbr %v\ngot  %v\nwant %v", trial, w, h, z, tl, br, got, want)
			}
		}
	}
}

// TestGatherRGB compares the pixels gathered for align to depth in RGB8
// or BGR8 (in assembly where the machine has it) with those gathered
// pixel by pixel in Go, on random depth (zeros among it) and coordinates
// (outside the picture on every side among them), over old bytes: every
// byte is written.
func TestGatherRGB(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for trial := range 300 {
		w, h := 1+r.IntN(30), 1+r.IntN(10)
		src := make([]byte, 3*w*h)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		n := 1 + r.IntN(50)
		z, px := make([]uint16, n), make([][2]int32, n)
		for i := range z {
			if r.IntN(5) > 0 {
				z[i] = uint16(r.Uint32())
			}
			px[i] = [2]int32{int32(r.IntN(w+6)) - 3, int32(r.IntN(h+6)) - 3}
			if r.IntN(10) == 0 {
				px[i][r.IntN(2)] = []int32{math.MinInt32, math.MaxInt32, -1}[r.IntN(3)]
			}
		}
		got, want := make([]byte, 3*n), make([]byte, 3*n)
		for i := range got {
			got[i], want[i] = 0xee, 0xee
		}
		gatherRGB(got, src, z, px, w, h)
		gatherRGBGo(want, src, z, px, w, h)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%dx%d): z %v px %v\ngot  %v\nwant %v", trial, w, h, z, px, got, want)
		}
	}
}

// TestTexRowClean checks, on rows whose texture columns increase but for a
// few that fall back (behind a pixel of the same group of sixteen or of
// an earlier one), with zero depths among them, that rowFast finds the
// pixels occlusion removal leaves alone, and that removeOccluded from
// there removes what it removes from the first pixel.
func TestTexRowClean(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	in := sensor.Intrinsics{Width: 640, Height: 480, FX: 1, FY: 1}
	e := sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
	tm := newTexMapper(&e, &in)
	defer func(avx2, avx512 bool) { useAVX2, useAVX512 = avx2, avx512 }(useAVX2, useAVX512)
	features := [][2]bool{{useAVX2, useAVX512}, {useAVX2, false}, {false, false}}
	cleanRows := map[[2]bool]int{} // by features, the rows with clean pixels
	for trial := range 2000 {
		w := 16 + r.IntN(200)
		z, xs := make([]byte, 2*w), make([]float32, w)
		start := float32(r.IntN(5)) - 3 // below -1 in some rows
		for i := range xs {
			xs[i] = start + float32(i)
			// a half, two thirds, three quarters or all of nonzero depth
			if trial%4 == 3 || r.IntN(2+trial%3) > 0 {
				z[2*i], z[2*i+1] = byte(1+r.IntN(255)), byte(r.IntN(8))
			}
		}
		if trial%4 == 0 { // a run of zero depths, maybe a group of sixteen or more
			at, n := 1+r.IntN(w-1), 8+r.IntN(32)
			clear(z[2*at : 2*min(w, at+n)])
			if at+n < w && trial%8 == 0 { // and behind the pixel before it
				xs[at+n] = xs[at-1] - 0.25
			}
		}
		for range r.IntN(3) {
			j := 1 + r.IntN(w-1)
			last := j - 1 // the last pixel of nonzero depth before j
			for last > 0 && z[2*last] == 0 && z[2*last+1] == 0 {
				last--
			}
			switch r.IntN(3) {
			case 0: // behind an earlier pixel, maybe of an earlier group
				xs[j] = xs[j-1-r.IntN(min(j, 40))] - 0.5
			case 1: // behind that last pixel only
				xs[j] = xs[last] - 0.25
			case 2: // at its column
				xs[j] = xs[last]
			}
		}
		verts, wantPx := make([][3]float32, w), make([]float32, w)
		vertexRowSep(verts, z, xs, 0.1, 0.001)
		tm.row(verts, make([][2]float32, w), wantPx, 0)
		want := slices.Clone(verts)
		removeOccluded(want, asBytes(want), wantPx, 0)
		for _, c := range features {
			useAVX2, useAVX512 = c[0], c[1]
			got, gotPx, gotVerts := make([][2]float32, w), make([]float32, w), make([][3]float32, w)
			n, clean := tm.rowFast(z, xs, 0.1, 0.001, got, gotPx, gotVerts)
			vertexRowSep(gotVerts[n:], z[2*n:], xs[n:], 0.1, 0.001)
			tm.row(gotVerts, got, gotPx, n)
			if want := cleanPixels(monotone(verts, wantPx), n); clean != want {
				t.Fatalf("trial %d (AVX2 %v, AVX-512 %v): %d of %d pixels clean, want %d (columns %v)", trial, useAVX2, useAVX512, clean, w, want, wantPx)
			}
			cleanRows[c] += min(clean, 1)
			removeOccluded(gotVerts, asBytes(gotVerts), gotPx, clean)
			if !slices.Equal(gotVerts, want) {
				t.Fatalf("trial %d (AVX2 %v, AVX-512 %v): occlusion removal from pixel %d: %v, want %v", trial, useAVX2, useAVX512, clean, gotVerts, want)
			}
		}
	}
	for c, rows := range cleanRows {
		if (c[0] || c[1]) && rows < 300 {
			t.Errorf("AVX2 %v, AVX-512 %v: %d rows with clean pixels, want at least 300", c[0], c[1], rows)
		}
	}
}
