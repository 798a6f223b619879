package playback

import (
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/description"
	"github.com/rsbag/rsbag/internal/extrinsics"
	"github.com/rsbag/rsbag/sensor"
)

type profilePair struct{ from, to *sensor.StreamProfile }

// deriveExtrinsics registers the extrinsics between every ordered pair of
// streams of the same tf group, derived by internal/extrinsics from
// the recorded pin→stream transforms (spec §5.8, README "Extrinsics"),
// which it also returns.
func deriveExtrinsics(streams []*description.Stream) (map[profilePair]sensor.Extrinsics, []extensions.PinnedExtrinsics) {
	var pinned []extensions.PinnedExtrinsics
	for _, s := range streams {
		if s.Pin != nil && s.Profile != nil {
			pinned = append(pinned, extensions.PinnedExtrinsics{Key: extKey(s.Key), Group: s.TFGroup, FromPin: *s.Pin})
		}
	}
	g := extrinsics.NewGraph(pinned)
	out := map[profilePair]sensor.Extrinsics{}
	for _, a := range streams {
		for _, b := range streams {
			if a == b || a.Profile == nil || b.Profile == nil {
				continue
			}
			if e, ok := g.Extrinsics(extKey(a.Key), extKey(b.Key)); ok {
				out[profilePair{a.Profile, b.Profile}] = e
			}
		}
	}
	return out, pinned
}

func extKey(k description.Key) extensions.StreamKey {
	return extensions.StreamKey{Sensor: k.Sensor, Stream: k.Stream, Index: k.Index}
}
