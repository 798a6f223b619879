package extensions

import "github.com/rsbag/rsbag/sensor"

// OptionSpec describes one option of a sensor: its value, range,
// description and whether it is read-only.
type OptionSpec struct {
	Option      sensor.Option
	Value       float32
	Range       Range
	Description string
	ReadOnly    bool
}
