package extensions

import (
	"fmt"

	"github.com/rsbag/rsbag/sensor"
)

// The functions below compute with rigid transforms exactly as librealsense
// does, in float32 with one rounding per operation, so that derived
// extrinsics (including their negative zeros) match librealsense bit for bit.
// Rotations are column-major 3×3 matrices (sensor.Extrinsics.Rotation: column
// j is Rotation[3j:3j+3]).

// IdentityExtrinsics returns the identity transform.
func IdentityExtrinsics() sensor.Extrinsics {
	return sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
}

// mulVec returns M·x = (col0·x0 + col1·x1) + col2·x2, each product and sum
// rounded to float32 (the explicit conversions forbid fused multiply-add).
func mulVec(m *[9]float32, x [3]float32) [3]float32 {
	var r [3]float32
	for i := 0; i < 3; i++ {
		a := float32(m[i] * x[0])
		b := float32(m[3+i] * x[1])
		c := float32(m[6+i] * x[2])
		r[i] = float32(float32(a+b) + c)
	}
	return r
}

// transpose returns Mᵀ.
func transpose(m *[9]float32) [9]float32 {
	var t [9]float32
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			t[3*c+r] = m[3*r+c]
		}
	}
	return t
}

// InverseExtrinsics returns (R, t)⁻¹ = (Rᵀ, (Rᵀ·t)·(−1)).
func InverseExtrinsics(e sensor.Extrinsics) sensor.Extrinsics {
	rt := transpose(&e.Rotation)
	v := mulVec(&rt, e.Translation)
	for i := range v {
		v[i] = float32(v[i] * -1)
	}
	return sensor.Extrinsics{Rotation: rt, Translation: v}
}

// ComposeExtrinsics returns (R1, t1)·(R2, t2) = (R1·R2, R1·t2 + t1): the
// transform that applies b first, then a.
func ComposeExtrinsics(a, b sensor.Extrinsics) sensor.Extrinsics {
	var out sensor.Extrinsics
	for j := 0; j < 3; j++ {
		col := mulVec(&a.Rotation, [3]float32{b.Rotation[3*j], b.Rotation[3*j+1], b.Rotation[3*j+2]})
		copy(out.Rotation[3*j:3*j+3], col[:])
	}
	v := mulVec(&a.Rotation, b.Translation)
	for i := range v {
		out.Translation[i] = float32(v[i] + a.Translation[i])
	}
	return out
}

// StreamKey identifies a stream of a device for extrinsics: profiles of the
// same stream (different formats or rates) share their extrinsics.
type StreamKey struct {
	Sensor int           // sensor index in the device
	Stream sensor.Stream // stream type
	Index  int           // stream index
}

// String returns "Stream/index@sensor".
func (k StreamKey) String() string { return fmt.Sprintf("%s/%d@%d", k.Stream, k.Index, k.Sensor) }

// Less orders keys by (sensor index, rs2_stream value, stream index), the
// order librealsense playback uses to pick the direction it computes.
func (k StreamKey) Less(o StreamKey) bool {
	if k.Sensor != o.Sensor {
		return k.Sensor < o.Sensor
	}
	if k.Stream != o.Stream {
		return k.Stream < o.Stream
	}
	return k.Index < o.Index
}

// PinnedExtrinsics is the extrinsics of one stream as a bag stores them: the
// transform from its group's reference ("pin") stream to the stream. The pin
// itself has the identity.
type PinnedExtrinsics struct {
	Key     StreamKey
	Group   uint32            // extrinsics group (the <g> of the tf topic)
	FromPin sensor.Extrinsics // pin → Key
}

// ExtrinsicsGraph derives the extrinsics of every ordered pair of streams
// from per-stream pin→stream transforms, as librealsense playback does: for
// streams A and B of one group, A→B = (pin→B)·(pin→A)⁻¹ is computed for the
// direction where A is the later of the two in (sensor index, stream type,
// stream index) order, and the other direction is reported as the inverse of
// that. Streams of different groups, and streams without an entry, have no
// extrinsics. A graph is immutable and safe for concurrent use.
type ExtrinsicsGraph struct {
	pinned map[StreamKey]PinnedExtrinsics
}

// NewExtrinsicsGraph builds a graph. If a key appears twice, the first entry
// is used (as the reader uses the first tf of a stream).
func NewExtrinsicsGraph(streams []PinnedExtrinsics) *ExtrinsicsGraph {
	g := &ExtrinsicsGraph{pinned: make(map[StreamKey]PinnedExtrinsics, len(streams))}
	for _, s := range streams {
		if _, dup := g.pinned[s.Key]; !dup {
			g.pinned[s.Key] = s
		}
	}
	return g
}

// Pinned returns the entry of k and whether there is one.
func (g *ExtrinsicsGraph) Pinned(k StreamKey) (PinnedExtrinsics, bool) {
	p, ok := g.pinned[k]
	return p, ok
}

// Extrinsics returns the transform from one stream to another and whether it
// is available. A stream to itself is the identity if the stream has an entry.
func (g *ExtrinsicsGraph) Extrinsics(from, to StreamKey) (sensor.Extrinsics, bool) {
	a, okA := g.pinned[from]
	b, okB := g.pinned[to]
	if !okA || !okB || a.Group != b.Group {
		return sensor.Extrinsics{}, false
	}
	if from == to {
		return IdentityExtrinsics(), true
	}
	if to.Less(from) {
		// from is the later stream: computed directly.
		return ComposeExtrinsics(b.FromPin, InverseExtrinsics(a.FromPin)), true
	}
	later := ComposeExtrinsics(a.FromPin, InverseExtrinsics(b.FromPin)) // to → from
	return InverseExtrinsics(later), true
}
