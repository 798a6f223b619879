package layout

// Extrinsics groups are the <g> of a bag's tf topics (spec §5.8).
// librealsense numbers them from a base that depends on the kind of device:
const (
	// FirstGroupLive is the first group of a live camera: the recording of
	// a real D435 (testdata/librealsense/real) has tf/0.
	FirstGroupLive uint32 = 0
	// FirstGroupSoftware is the first group of a software device: every
	// synthetic reference bag of testdata/librealsense has tf/1.
	FirstGroupSoftware uint32 = 1
)

// GroupNumbering is implemented by devices (or wrappers of devices) that know
// how librealsense numbers the extrinsics groups of their kind. It matters
// only for devices that are not a device.ExtrinsicsSource, whose groups
// device.Capture derives.
type GroupNumbering interface {
	// FirstExtrinsicsGroup returns the number of the first group.
	FirstExtrinsicsGroup() uint32
}

// FirstExtrinsicsGroup returns the number librealsense gives the first
// extrinsics group of the device d: d's own if it implements GroupNumbering,
// else FirstGroupLive (a device that says nothing is taken for a live
// camera).
func FirstExtrinsicsGroup(d any) uint32 {
	if g, ok := d.(GroupNumbering); ok {
		return g.FirstExtrinsicsGroup()
	}
	return FirstGroupLive
}
