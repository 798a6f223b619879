package playback

import (
	"sync/atomic"

	"github.com/rsbag/rsbag/sensor"
)

var uidCounter atomic.Int64

// nextUID returns a process-unique stream profile id.
func nextUID() int { return int(uidCounter.Add(1)) }

// rigid is a float32 rigid transform in the rs2_extrinsics layout.
type rigid = sensor.Extrinsics

// mulVec computes M·x = (col0·x0 + col1·x1) + col2·x2 in float32, the
// operation order librealsense uses (README "Extrinsics").
func mulVec(r *[9]float32, x [3]float32) [3]float32 {
	var out [3]float32
	for i := 0; i < 3; i++ {
		a := r[i] * x[0]
		b := r[3+i] * x[1]
		c := r[6+i] * x[2]
		out[i] = (a + b) + c
	}
	return out
}

// compose returns (R1, t1)·(R2, t2) = (R1·R2, R1·t2 + t1).
func compose(a, b rigid) rigid {
	var out rigid
	for j := 0; j < 3; j++ {
		col := mulVec(&a.Rotation, [3]float32{b.Rotation[3*j], b.Rotation[3*j+1], b.Rotation[3*j+2]})
		copy(out.Rotation[3*j:], col[:])
	}
	t := mulVec(&a.Rotation, b.Translation)
	for i := range t {
		out.Translation[i] = t[i] + a.Translation[i]
	}
	return out
}

// inverse returns (R, t)⁻¹ = (Rᵀ, (Rᵀ·t)·(-1)).
func inverse(a rigid) rigid {
	var out rigid
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			out.Rotation[3*j+i] = a.Rotation[3*i+j]
		}
	}
	t := mulVec(&out.Rotation, a.Translation)
	for i := range t {
		out.Translation[i] = t[i] * -1
	}
	return out
}

// fromTransform converts a recorded tf (translation + quaternion) to a
// rigid transform with the standard quaternion→matrix formula of spec §5.8,
// evaluated in float64 and rounded to float32 (this reproduces librealsense's
// reported extrinsics bit for bit, TestGolden).
func fromTransform(tf *transformMsg) rigid {
	x, y, z, w := tf.Rotation[0], tf.Rotation[1], tf.Rotation[2], tf.Rotation[3]
	m := [9]float64{
		1 - 2*y*y - 2*z*z, 2*x*y + 2*z*w, 2*x*z - 2*y*w,
		2*x*y - 2*z*w, 1 - 2*x*x - 2*z*z, 2*y*z + 2*x*w,
		2*x*z + 2*y*w, 2*y*z - 2*x*w, 1 - 2*x*x - 2*y*y,
	}
	var r rigid
	for i := range m {
		r.Rotation[i] = float32(m[i])
	}
	for i := range r.Translation {
		r.Translation[i] = float32(tf.Translation[i])
	}
	return r
}

// streamLess orders streams by (sensor index, stream type, stream index).
func streamLess(a, b streamKey) bool {
	if a.sensor != b.sensor {
		return a.sensor < b.sensor
	}
	if a.stream != b.stream {
		return a.stream < b.stream
	}
	return a.index < b.index
}

type profilePair struct{ from, to *sensor.StreamProfile }

// deriveExtrinsics registers the extrinsics between every pair of streams
// of the same tf group (spec §5.8): of each unordered pair only the
// direction from the later stream to the earlier one is computed, as
// pose(earlier)·pose(later)⁻¹; the other direction is its inverse.
func deriveExtrinsics(streams []*recStream) map[profilePair]sensor.Extrinsics {
	out := map[profilePair]sensor.Extrinsics{}
	for i, a := range streams {
		if a.tf == nil || a.profile == nil {
			continue
		}
		for _, b := range streams[i+1:] {
			if b.tf == nil || b.profile == nil || b.tfGroup != a.tfGroup {
				continue
			}
			later, earlier := a, b
			if streamLess(a.key, b.key) {
				later, earlier = b, a
			}
			e := compose(fromTransform(earlier.tf), inverse(fromTransform(later.tf)))
			out[profilePair{later.profile, earlier.profile}] = e
			out[profilePair{earlier.profile, later.profile}] = inverse(e)
		}
	}
	return out
}
