//go:build !cgo

package sensor

import "math"

// tanf and atanf without cgo: float64 results rounded to float32, which
// can differ from a C library's float functions in the last bit.
func tanf(x float32) float32  { return float32(math.Tan(float64(x))) }
func atanf(x float32) float32 { return float32(math.Atan(float64(x))) }

// libmTrig reports whether the distortion models' tanf and atanf are the C
// library's (builds with cgo, bit-exact with librealsense on the same C
// library) or Go's rounded to float32 (without cgo: up to 1 ulp apart).
const libmTrig = false
