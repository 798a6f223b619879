package optionset

// Option descriptions librealsense gives the options it creates itself; bags
// written by librealsense carry these texts.
const (
	// DescriptionCustomOption is the description of an option added with
	// rs2::software_sensor::add_option.
	DescriptionCustomOption = "A simple custom option for a processing block or software device"
	// DescriptionReadOnlyCustomOption is the description of an option added
	// with rs2::software_sensor::add_read_only_option.
	DescriptionReadOnlyCustomOption = "A simple read-only custom option for a software device"
	// DescriptionBypassReadOnly is the description of the Stereo Baseline
	// option of a software depth sensor.
	DescriptionBypassReadOnly = "bypass sensor read only option"
	// DescriptionFramesQueueSize is the description of the Frames Queue Size
	// option librealsense adds to every sensor.
	DescriptionFramesQueueSize = "Max number of frames you can hold at a given time. Increasing this number will reduce frame drops but increase latency, and vice versa"
)
