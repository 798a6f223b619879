package synthscript

import "fmt"

// Bounds of the stream profiles this module accepts from a caller (flags,
// synthetic cameras): the largest profile of any RealSense camera, with
// headroom. A request outside them is refused with an error up front,
// before anything is allocated for it.
const (
	// MaxVideoSide bounds a video width or height: 4 times the largest
	// side of librealsense 2.56.5's D400/D500 resolution list
	// (src/ds/ds-private.h resolutions_list: 1920x1080 up to 1152x1152),
	// rounded up to a power of two. A Z16 frame of 8192x8192 is 128 MiB.
	MaxVideoSide = 8192
	// MaxVideoFPS bounds a video frame rate: over 3 times the 300 fps
	// librealsense's own tests allow a stream profile
	// (unit-tests/unit-tests-internal.cpp: REQUIRE(profile.fps() <= 300)).
	MaxVideoFPS = 1000
	// MaxMotionFPS bounds an accel, gyro or pose rate: 10 times the
	// fastest IMU rate librealsense knows (odr IMU_FPS_400 in
	// src/ds/ds-motion-common.h).
	MaxMotionFPS = 4000
)

// CheckVideo checks a requested video size and rate against the bounds.
func CheckVideo(width, height, fps int) error {
	switch {
	case width <= 0 || height <= 0 || width > MaxVideoSide || height > MaxVideoSide:
		return fmt.Errorf("size %dx%d: width and height must be in [1, %d]", width, height, MaxVideoSide)
	case fps <= 0 || fps > MaxVideoFPS:
		return fmt.Errorf("fps %d: must be in [1, %d]", fps, MaxVideoFPS)
	}
	return nil
}

// CheckMotion checks a requested motion or pose rate (0 is off).
func CheckMotion(fps int) error {
	if fps < 0 || fps > MaxMotionFPS {
		return fmt.Errorf("rate %d Hz: must be in [0, %d]", fps, MaxMotionFPS)
	}
	return nil
}
