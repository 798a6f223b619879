// Package processing holds librealsense's processing blocks, computed in Go
// so that a frame processed here equals the frame librealsense 2.56.5
// makes of it: the same algorithms, constants, option names, ranges and
// defaults, and the same float32 arithmetic.
//
// A block is a value with options (SetOption, Option, OptionRange, as a
// sensor's) and a Process method that takes a frame and returns a new frame;
// the input frame is never modified and the output frame is never modified
// after it is returned. Every block is safe for concurrent use.
//
// The blocks (the SSE paths of librealsense's x86-64 build where it has
// them, operation by operation in float32):
//   - Colorizer: depth to RGB8 with librealsense's ten color maps, histogram
//     equalization, min/max distance and visual presets.
//   - Align: depth into another camera's picture, or another camera's
//     picture into depth's; ProcessSet aligns a frameset's frames as
//     librealsense's align block picks them.
//   - PointCloud: vertices in meters, texture coordinates after MapTo,
//     occlusion removal; Points.WritePLY saves a cloud as librealsense's
//     export_to_ply does.
//   - NewDecimation, NewThreshold, NewDisparityTransform, NewSpatial,
//     NewTemporal, NewHoleFilling, NewUnitsTransform: the depth
//     post-processing filters.
//   - NewRotation, NewSequenceIDFilter, HDRMerge: the other blocks a sensor
//     recommends; RecommendedBlocks builds a sensor's list.
//
// The blocks that take one frame are returned as a Block. Frames a
// filter's stream options (OptionStreamFilter, ...) do not select pass
// through unchanged, as in librealsense. Every error about a frame wraps
// ErrFrame; an error about an option wraps a sensor's option errors:
// extensions.ErrUnsupportedOption for an option the block does not have,
// extensions.ErrOutOfRange for a value outside its range.
//
// Every block has librealsense's Frames Queue Size option
// (sensor.OptionFramesQueueSize). In librealsense it is the size of the
// block's frame pool: while a program holds that many of a block's
// outputs, the block gives none. A Go block has no pool (its outputs are
// garbage collected) and only keeps the value; librealsense2.so, this
// module's C library, applies it as librealsense does.
package processing
