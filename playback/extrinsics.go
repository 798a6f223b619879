package playback

import (
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// nextUID returns a process-unique stream profile id.
func nextUID() int { return sensor.NextUID() }

// rigid is a float32 rigid transform in the rs2_extrinsics layout.
type rigid = sensor.Extrinsics

// fromTransform converts a recorded tf (translation + quaternion) to a
// rigid transform with the standard quaternion→matrix formula of spec §5.8,
// evaluated in float64 and rounded to float32 (this reproduces librealsense's
// reported extrinsics bit for bit, TestGolden).
func fromTransform(tf *msgs.Transform) rigid {
	x, y, z, w := tf.Rotation.X, tf.Rotation.Y, tf.Rotation.Z, tf.Rotation.W
	m := [9]float64{
		1 - 2*y*y - 2*z*z, 2*x*y + 2*z*w, 2*x*z - 2*y*w,
		2*x*y - 2*z*w, 1 - 2*x*x - 2*z*z, 2*y*z + 2*x*w,
		2*x*z + 2*y*w, 2*y*z - 2*x*w, 1 - 2*x*x - 2*y*y,
	}
	var r rigid
	for i := range m {
		r.Rotation[i] = float32(m[i])
	}
	r.Translation = [3]float32{float32(tf.Translation.X), float32(tf.Translation.Y), float32(tf.Translation.Z)}
	return r
}

type profilePair struct{ from, to *sensor.StreamProfile }

// deriveExtrinsics registers the extrinsics between every ordered pair of
// streams of the same tf group, derived by extensions.ExtrinsicsGraph from
// the recorded pin→stream transforms (spec §5.8, README "Extrinsics"),
// which it also returns.
func deriveExtrinsics(streams []*recStream) (map[profilePair]sensor.Extrinsics, []extensions.PinnedExtrinsics) {
	var pinned []extensions.PinnedExtrinsics
	for _, s := range streams {
		if s.pin != nil && s.profile != nil {
			pinned = append(pinned, extensions.PinnedExtrinsics{Key: extKey(s.key), Group: s.tfGroup, FromPin: *s.pin})
		}
	}
	g := extensions.NewExtrinsicsGraph(pinned)
	out := map[profilePair]sensor.Extrinsics{}
	for _, a := range streams {
		for _, b := range streams {
			if a == b || a.profile == nil || b.profile == nil {
				continue
			}
			if e, ok := g.Extrinsics(extKey(a.key), extKey(b.key)); ok {
				out[profilePair{a.profile, b.profile}] = e
			}
		}
	}
	return out, pinned
}

func extKey(k streamKey) extensions.StreamKey {
	return extensions.StreamKey{Sensor: k.sensor, Stream: k.stream, Index: k.index}
}
