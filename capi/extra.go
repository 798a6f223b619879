package main

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/processing"
)

// librealsense's logging: the console log has the errors the functions
// return, as librealsense logs them (rs2_create_error in src/rs.cpp);
// rsbag's library has no other log, so the file log stays empty.

// consoleSeverity is the least severity rs2_log_to_console asked for.
var consoleSeverity atomic.Int32

func init() { consoleSeverity.Store(C.RS2_LOG_SEVERITY_NONE) }

//export rs2_log_to_console
func rs2_log_to_console(min C.rs2_log_severity, e **C.rs2_error) { consoleSeverity.Store(int32(min)) }

//export rs2_log_to_file
func rs2_log_to_file(min C.rs2_log_severity, path *C.char, e **C.rs2_error) {}

//export rs2_reset_logger
func rs2_reset_logger(e **C.rs2_error) { consoleSeverity.Store(C.RS2_LOG_SEVERITY_NONE) }

// logError writes the console log's line of an error, if the program asked
// for errors there, in librealsense's format: date, time, level, thread,
// the source line that logs it in librealsense (rs.cpp:256), then the
// function, its arguments, the exception type and the message.
func logError(fn, args, msg string, typ C.rs2_exception_type) {
	if consoleSeverity.Load() > C.RS2_LOG_SEVERITY_ERROR {
		return
	}
	line := fmt.Sprintf(" %s ERROR [%d] (rs.cpp:256) [%s( %s ) %s] %s\n", time.Now().Format("02/01 15:04:05,000"), uint64(C.rsbag_thread_id()),
		fn, args, C.GoString(rs2_exception_type_to_string(typ)), msg)
	cs := C.CString(line)
	C.rsbag_log_line(cs)
	C.free(unsafe.Pointer(cs))
}

//export rs2_is_processing_block_extendable_to
func rs2_is_processing_block_extendable_to(p *C.rs2_processing_block, ext C.rs2_extension, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_is_processing_block_extendable_to", func() string { return fmtArgs("f", ptrArg(unsafe.Pointer(p)), "extension_type", ext) })
	b := blockOf(p, "f")
	b.mu.Lock()
	blk, disparity := b.b, b.opts
	b.mu.Unlock()
	if blk == nil {
		blk = disparity
	}
	switch blk.(type) {
	case *processing.Decimation:
		return cbool(ext == C.RS2_EXTENSION_DECIMATION_FILTER)
	case *processing.Threshold:
		return cbool(ext == C.RS2_EXTENSION_THRESHOLD_FILTER)
	case *processing.DisparityTransform:
		return cbool(ext == C.RS2_EXTENSION_DISPARITY_FILTER)
	case *processing.Spatial:
		return cbool(ext == C.RS2_EXTENSION_SPATIAL_FILTER)
	case *processing.Temporal:
		return cbool(ext == C.RS2_EXTENSION_TEMPORAL_FILTER)
	case *processing.HoleFilling:
		return cbool(ext == C.RS2_EXTENSION_HOLE_FILLING_FILTER)
	case *processing.Rotation:
		return cbool(ext == C.RS2_EXTENSION_ROTATION_FILTER)
	}
	return 0
}

//export rs2_get_frame_sensor
func rs2_get_frame_sensor(p *C.rs2_frame, e **C.rs2_error) (r *C.rs2_sensor) {
	defer catch(e, "rs2_get_frame_sensor", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p))) })
	ref := frameOf(p, "frame")
	f := single(p, "frame")
	i := -1
	if ref.o != nil && f.Profile != nil {
		i = ref.o.sensorIndex(f.Profile)
	}
	if i < 0 {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "frame has no sensor")
	}
	return (*C.rs2_sensor)(newHandle(&sensorHandle{o: ref.o.acquire(), s: ref.o.dev.Sensors()[i], index: i}))
}

//export rs2_depth_stereo_frame_get_baseline
func rs2_depth_stereo_frame_get_baseline(p *C.rs2_frame, e **C.rs2_error) (r C.float) {
	defer catch(e, "rs2_depth_stereo_frame_get_baseline", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	ref := frameOf(p, "frame_ref")
	f := single(p, "frame_ref")
	if f.Profile == nil || !isDisparity(f.Profile) {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::disparity_frame\" interface! ")
	}
	if ref.o != nil {
		for _, s := range ref.o.dev.Sensors() {
			if ds, ok := s.(extensions.DepthStereoSensor); ok {
				return C.float(ds.StereoBaselineMM())
			}
		}
	}
	fail(C.RS2_EXCEPTION_TYPE_COUNT, "the frame's device has no stereo baseline")
	return 0
}

//export rs2_get_stream_profile_name
func rs2_get_stream_profile_name(p *C.rs2_stream_profile, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_stream_profile_name", func() string { return fmtArgs("profile", profileArg(unsafe.Pointer(p))) })
	// A bag does not record the names some cameras give their profiles:
	// the wrapper then names the stream (stream_name()).
	lookup[*profileEntry](unsafe.Pointer(p), "profile")
	return cstr("")
}
