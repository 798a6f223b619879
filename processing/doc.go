// Package processing holds librealsense's processing blocks, computed in Go
// so that a frame processed here equals the frame librealsense 2.56.5
// makes of it: the same algorithms, constants, option names, ranges and
// defaults, and the same float32 arithmetic.
//
// A block is a value with options (SetOption, Option, OptionRange, as a
// sensor's) and a Process method that takes a frame and returns a new frame;
// the input frame is never modified and the output frame is never modified
// after it is returned. Each block's doc says whether it may be used from
// several goroutines at once.
//
// The blocks:
//   - Colorizer: depth to RGB8 with librealsense's ten color maps, histogram
//     equalization, min/max distance and visual presets.
package processing
