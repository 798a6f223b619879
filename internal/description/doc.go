// Package description reads the static device description of a RealSense
// bag (spec §6.2), of every file version: the device and sensor info, the
// options with their recorded changes, the stream profiles in uid order
// with their intrinsics and extrinsics, the recommended processing blocks,
// and the span of the frames. It is the one reader of a bag's description
// topics; it tolerates what librealsense's reader tolerates (bytes after a
// message, foreign types on RealSense topics, a corrupt chunk holding the
// first or last frame) and refuses, with an error naming the bag and the
// topic, what librealsense refuses. Playback reads a bag with Read; a tool
// that reads every message anyway (rs-record info, the MCAP export's device
// metadata) hands the description messages of its own pass to a Collector,
// the same interpretation without a second pass.
package description
