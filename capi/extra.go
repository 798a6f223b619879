package main

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rsbag/rsbag/extensions"
)

// librealsense's logging: the console and file logs have the errors the
// functions return, as librealsense logs them (rs2_create_error in
// src/rs.cpp); rsbag's library logs nothing else.

// consoleSeverity and fileSeverity are the least severities
// rs2_log_to_console and rs2_log_to_file asked for; logFile is the file.
var (
	consoleSeverity, fileSeverity atomic.Int32
	logMu                         sync.Mutex
	logFile                       *os.File
)

func init() {
	consoleSeverity.Store(C.RS2_LOG_SEVERITY_NONE)
	fileSeverity.Store(C.RS2_LOG_SEVERITY_NONE)
}

//export rs2_log_to_console
func rs2_log_to_console(min C.rs2_log_severity, e **C.rs2_error) {
	defer catch(e, "rs2_log_to_console", func() string { return fmtArgs("min_severity", min) })
	consoleSeverity.Store(int32(min))
}

//export rs2_log_to_file
func rs2_log_to_file(min C.rs2_log_severity, path *C.char, e **C.rs2_error) {
	defer catch(e, "rs2_log_to_file", func() string { return fmtArgs("min_severity", min, "file_path", charArg(unsafe.Pointer(path))) })
	if path == nil {
		failNull("file_path")
	}
	f, err := os.OpenFile(C.GoString(path), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644) // appended to, as librealsense's
	check(err)
	logMu.Lock()
	old := logFile
	logFile = f
	logMu.Unlock()
	if old != nil {
		old.Close()
	}
	fileSeverity.Store(int32(min))
}

//export rs2_reset_logger
func rs2_reset_logger(e **C.rs2_error) {
	defer catch(e, "rs2_reset_logger", nil)
	consoleSeverity.Store(C.RS2_LOG_SEVERITY_NONE)
	fileSeverity.Store(C.RS2_LOG_SEVERITY_NONE)
	logMu.Lock()
	f := logFile
	logFile = nil
	logMu.Unlock()
	if f != nil {
		f.Close()
	}
}

// logError writes the log line of an error to the console and the file,
// where the program asked for errors, in librealsense's format: date,
// time, level, thread, the source line that logs it in librealsense
// (rs.cpp:256), then the function, its arguments, the exception type and
// the message.
func logError(fn, args, msg string, typ C.rs2_exception_type) {
	console, file := consoleSeverity.Load() <= C.RS2_LOG_SEVERITY_ERROR, fileSeverity.Load() <= C.RS2_LOG_SEVERITY_ERROR
	if !console && !file {
		return
	}
	line := fmt.Sprintf(" %s ERROR [%d] (rs.cpp:256) [%s( %s ) %s] %s\n", time.Now().Format("02/01 15:04:05,000"), uint64(C.rsbag_thread_id()),
		fn, args, C.GoString(rs2_exception_type_to_string(typ)), msg)
	if console {
		cs := C.CString(line)
		C.rsbag_log_line(cs)
		C.free(unsafe.Pointer(cs))
	}
	if file {
		logMu.Lock()
		if logFile != nil {
			logFile.WriteString(line) // a log that cannot be written is no error of the call
		}
		logMu.Unlock()
	}
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
	if c, ok := blk.(interface{ Name() string }); ok {
		if k, ok := filterKinds[c.Name()]; ok && k.ext != 0 {
			return cbool(ext == k.ext)
		}
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
