//go:build cgo

package sensor

// #cgo LDFLAGS: -lm
// #include <math.h>
import "C"

// tanf and atanf are the C library's float functions, which librealsense's
// distortion models call: glibc's are not correctly rounded, and matching
// librealsense bit for bit needs its results.
func tanf(x float32) float32  { return float32(C.tanf(C.float(x))) }
func atanf(x float32) float32 { return float32(C.atanf(C.float(x))) }

// libmTrig reports whether the distortion models' tanf and atanf are the C
// library's (builds with cgo, bit-exact with librealsense on the same C
// library) or Go's rounded to float32 (without cgo: up to 1 ulp apart).
const libmTrig = true
