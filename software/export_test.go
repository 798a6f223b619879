package software

// SynthPose is synthPose, for the external tests of the reference bags.
var SynthPose = synthPose

// SoftwareSensors is softwareSensors, for the external tests.
func (d *Device) SoftwareSensors() []*Sensor { return d.softwareSensors() }
