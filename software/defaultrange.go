package software

import "github.com/rsbag/rsbag/extensions"

// DefaultRange returns a wide writable range around v (min −1e6, max 1e6,
// step 1, default v), the range the synthetic camera gives its options.
func DefaultRange(v float32) extensions.Range {
	return extensions.Range{Min: -1e6, Max: 1e6, Step: 1, Default: v}
}
