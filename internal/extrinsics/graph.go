// Package extrinsics derives the extrinsics between the streams of a device
// from the pin→stream transforms a bag's tf topics store, as librealsense
// playback does: for device.Snapshot and the playback and software devices.
package extrinsics

import (
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// Graph derives the extrinsics of every ordered pair of streams
// from per-stream pin→stream transforms, as librealsense playback does: for
// streams A and B of one group, A→B = (pin→B)·(pin→A)⁻¹ is computed for the
// direction where A is the later of the two in (sensor index, stream type,
// stream index) order, and the other direction is reported as the inverse of
// that. Streams of different groups, and streams without an entry, have no
// extrinsics. A graph is immutable and safe for concurrent use.
type Graph struct {
	pinned map[extensions.StreamKey]extensions.PinnedExtrinsics
}

// NewGraph builds a graph. If a key appears twice, the first entry is used
// (as the reader uses the first tf of a stream).
func NewGraph(streams []extensions.PinnedExtrinsics) *Graph {
	g := &Graph{pinned: make(map[extensions.StreamKey]extensions.PinnedExtrinsics, len(streams))}
	for _, s := range streams {
		if _, dup := g.pinned[s.Key]; !dup {
			g.pinned[s.Key] = s
		}
	}
	return g
}

// Extrinsics returns the transform from one stream to another and whether it
// is available. A stream to itself is the identity if the stream has an entry.
func (g *Graph) Extrinsics(from, to extensions.StreamKey) (sensor.Extrinsics, bool) {
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
