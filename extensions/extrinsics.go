package extensions

import (
	"fmt"

	"github.com/rsbag/rsbag/sensor"
)

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
		return sensor.IdentityExtrinsics(), true
	}
	if to.Less(from) {
		// from is the later stream: computed directly.
		return b.FromPin.Compose(a.FromPin.Inverse()), true
	}
	later := a.FromPin.Compose(b.FromPin.Inverse()) // to → from
	return later.Inverse(), true
}
