package layout

import "github.com/rsbag/rsbag/sensor"

// D400ProductLine is the "Product Line" camera info of a D400 camera.
const D400ProductLine = "D400"

// d400ProductIDs are the D400 product ids seen in the reference bags
// (real/single_depth_color_640x480.bag: 0B07; the D435I of the synthetic
// bags: 0B3A). A "Product Line" of "D400" also counts.
var d400ProductIDs = map[string]bool{"0B07": true, "0B3A": true}

// Sensor names of a D400 that select sensor kinds (spec §6.2, §5.7).
const (
	SensorStereo     = "Stereo Module"
	SensorCodedLight = "Coded-Light Depth Sensor"
	SensorRGB        = "RGB Camera"
	SensorMotion     = "Motion Module"
)

// IsD400 reports whether info describes a D400 camera.
func IsD400(info sensor.Info) bool {
	return info[sensor.CameraInfoProductLine] == D400ProductLine || d400ProductIDs[info[sensor.CameraInfoProductId]]
}

// D400SensorName reports whether name is a sensor name a D400 bag may hold
// in a file version without post-processing topics (before 4): readers
// derive the recommended filters of such a bag's sensors from their names
// and refuse a name they do not know.
func D400SensorName(name string) bool {
	switch name {
	case SensorStereo, SensorCodedLight, SensorRGB, SensorMotion:
		return true
	}
	return false
}
