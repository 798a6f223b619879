package sensor

import "math"

// flt32Epsilon is C's FLT_EPSILON, the bound librealsense's geometry uses
// for "zero" radii and coefficients.
const flt32Epsilon = 0x1p-23

// The geometry below follows librealsense's rs2_project_point_to_pixel,
// rs2_deproject_pixel_to_point, rs2_transform_point_to_point and rs2_fov
// (src/rs.cpp) operation by operation in float32. Every product is
// converted to float32 before it is added, which keeps Go from fusing a
// multiply and an add (it may on arm64 and with GOAMD64=v3) and so gives
// the results of librealsense's x86-64 build on every platform. tanf and
// atanf are the C library's when cgo is available (libm.go), as
// librealsense calls them; else tan and atan in float64, rounded.

func mul(a, b float32) float32 { return float32(a * b) }

// Project returns the pixel at which the point p (meters, in the camera's
// coordinates) appears, distorted by the intrinsics' model.
func (in *Intrinsics) Project(p [3]float32) [2]float32 {
	x, y := p[0]/p[2], p[1]/p[2]
	c := &in.Coeffs
	switch in.Model {
	case DistortionModifiedBrownConrady, DistortionInverseBrownConrady:
		r2 := mul(x, x) + mul(y, y)
		f := 1 + mul(c[0], r2) + mul(mul(c[1], r2), r2) + mul(mul(mul(c[4], r2), r2), r2)
		x, y = mul(x, f), mul(y, f)
		dx := x + mul(mul(mul(2, c[2]), x), y) + mul(c[3], r2+mul(mul(2, x), x))
		dy := y + mul(mul(mul(2, c[3]), x), y) + mul(c[2], r2+mul(mul(2, y), y))
		x, y = dx, dy
	case DistortionBrownConrady:
		r2 := mul(x, x) + mul(y, y)
		f := 1 + mul(c[0], r2) + mul(mul(c[1], r2), r2) + mul(mul(mul(c[4], r2), r2), r2)
		xf, yf := mul(x, f), mul(y, f)
		dx := xf + mul(mul(mul(2, c[2]), x), y) + mul(c[3], r2+mul(mul(2, x), x))
		dy := yf + mul(mul(mul(2, c[3]), x), y) + mul(c[2], r2+mul(mul(2, y), y))
		x, y = dx, dy
	case DistortionFtheta:
		r := float32(math.Sqrt(float64(mul(x, x) + mul(y, y))))
		if r < flt32Epsilon {
			r = flt32Epsilon
		}
		rd := mul(1/c[0], atanf(mul(mul(2, r), tanf(c[0]/2))))
		x, y = mul(x, rd/r), mul(y, rd/r)
	case DistortionKannalaBrandt4:
		r := float32(math.Sqrt(float64(mul(x, x) + mul(y, y))))
		if r < flt32Epsilon {
			r = flt32Epsilon
		}
		theta := atanf(r)
		t2 := mul(theta, theta)
		series := 1 + mul(t2, c[0]+mul(t2, c[1]+mul(t2, c[2]+mul(t2, c[3]))))
		rd := mul(theta, series)
		x, y = mul(x, rd/r), mul(y, rd/r)
	}
	return [2]float32{mul(x, in.FX) + in.PPX, mul(y, in.FY) + in.PPY}
}

// distortionZero reports whether every coefficient is within FLT_EPSILON of
// zero.
func (in *Intrinsics) distortionZero() bool {
	for _, c := range in.Coeffs {
		if c >= flt32Epsilon || c <= -flt32Epsilon {
			return false
		}
	}
	return true
}

// Deproject returns the point (meters, in the camera's coordinates) seen at
// pixel px at the given depth (meters), undistorting by the intrinsics'
// model. A forward-distorted model (modified Brown-Conrady) cannot be
// undistorted; as librealsense's release build does, its coefficients are
// then ignored.
func (in *Intrinsics) Deproject(px [2]float32, depth float32) [3]float32 {
	x := (px[0] - in.PPX) / in.FX
	y := (px[1] - in.PPY) / in.FY
	xo, yo := x, y
	c := &in.Coeffs
	if !in.distortionZero() {
		switch in.Model {
		case DistortionInverseBrownConrady:
			for range 10 {
				r2 := mul(x, x) + mul(y, y)
				icdist := 1 / (1 + mul(mul(mul(c[4], r2)+c[1], r2)+c[0], r2))
				xq, yq := x/icdist, y/icdist
				dx := mul(mul(mul(2, c[2]), xq), yq) + mul(c[3], r2+mul(mul(2, xq), xq))
				dy := mul(mul(mul(2, c[3]), xq), yq) + mul(c[2], r2+mul(mul(2, yq), yq))
				x, y = mul(xo-dx, icdist), mul(yo-dy, icdist)
			}
		case DistortionBrownConrady:
			for range 10 {
				r2 := mul(x, x) + mul(y, y)
				icdist := 1 / (1 + mul(mul(mul(c[4], r2)+c[1], r2)+c[0], r2))
				dx := mul(mul(mul(2, c[2]), x), y) + mul(c[3], r2+mul(mul(2, x), x))
				dy := mul(mul(mul(2, c[3]), x), y) + mul(c[2], r2+mul(mul(2, y), y))
				x, y = mul(xo-dx, icdist), mul(yo-dy, icdist)
			}
		}
	}
	switch in.Model {
	case DistortionKannalaBrandt4:
		rd := float32(math.Sqrt(float64(mul(x, x) + mul(y, y))))
		if rd < flt32Epsilon {
			rd = flt32Epsilon
		}
		theta, t2 := rd, mul(rd, rd)
		for range 4 {
			f := mul(theta, 1+mul(t2, c[0]+mul(t2, c[1]+mul(t2, c[2]+mul(t2, c[3]))))) - rd
			if f < flt32Epsilon && f > -flt32Epsilon {
				break
			}
			df := 1 + mul(t2, mul(3, c[0])+mul(t2, mul(5, c[1])+mul(t2, mul(7, c[2])+mul(mul(9, t2), c[3]))))
			theta -= f / df
			t2 = mul(theta, theta)
		}
		r := tanf(theta)
		x, y = mul(x, r/rd), mul(y, r/rd)
	case DistortionFtheta:
		rd := float32(math.Sqrt(float64(mul(x, x) + mul(y, y))))
		if rd < flt32Epsilon {
			rd = flt32Epsilon
		}
		var r float32
		if c[0] >= flt32Epsilon || c[0] <= -flt32Epsilon {
			r = tanf(mul(c[0], rd)) / atanf(mul(2, tanf(c[0]/2)))
		}
		x, y = mul(x, r/rd), mul(y, r/rd)
	}
	return [3]float32{mul(depth, x), mul(depth, y), depth}
}

// Transform returns p moved from the coordinates of the extrinsics' source
// stream to those of its target (rotation stored column-major, as
// rs2_extrinsics).
func (e *Extrinsics) Transform(p [3]float32) [3]float32 {
	r, t := &e.Rotation, &e.Translation
	return [3]float32{
		mul(r[0], p[0]) + mul(r[3], p[1]) + mul(r[6], p[2]) + t[0],
		mul(r[1], p[0]) + mul(r[4], p[1]) + mul(r[7], p[2]) + t[1],
		mul(r[2], p[0]) + mul(r[5], p[1]) + mul(r[8], p[2]) + t[2],
	}
}

// degreesPerRadian is the constant rs2_fov uses.
const degreesPerRadian = 57.2957795

// FOV returns the horizontal and vertical field of view in degrees.
func (in *Intrinsics) FOV() [2]float32 {
	atan2 := func(y, x float32) float32 { return float32(math.Atan2(float64(y), float64(x))) }
	h := atan2(in.PPX+0.5, in.FX) + atan2(float32(in.Width)-(in.PPX+0.5), in.FX)
	v := atan2(in.PPY+0.5, in.FY) + atan2(float32(in.Height)-(in.PPY+0.5), in.FY)
	return [2]float32{mul(h, degreesPerRadian), mul(v, degreesPerRadian)}
}
