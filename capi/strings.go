package main

/*
#include "shim.h"
*/
import "C"

import (
	"strings"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// unknownValue is librealsense's name of a value outside an enum.
const unknownValue = "UNKNOWN"

// lessScreamy is librealsense's make_less_screamy: "CAMERA_DISCONNECTED"
// becomes "Camera Disconnected".
func lessScreamy(id string) string {
	words := strings.Split(id, "_")
	for i, w := range words {
		if w != "" {
			words[i] = w[:1] + strings.ToLower(w[1:])
		}
	}
	return strings.Join(words, " ")
}

// exceptionIDs are rs2_exception_type's identifiers in order.
var exceptionIDs = [...]string{"UNKNOWN", "CAMERA_DISCONNECTED", "BACKEND", "INVALID_VALUE", "WRONG_API_CALL_SEQUENCE", "NOT_IMPLEMENTED", "DEVICE_IN_RECOVERY_MODE", "IO"}

// logSeverityIDs are rs2_log_severity's identifiers in order.
var logSeverityIDs = [...]string{"DEBUG", "INFO", "WARN", "ERROR", "FATAL", "NONE"}

// playbackStatusIDs are rs2_playback_status's identifiers in order.
var playbackStatusIDs = [...]string{"UNKNOWN", "PLAYING", "PAUSED", "STOPPED"}

// idName returns the less screamy name of ids[v], or UNKNOWN.
func idName(ids []string, v int) *C.char {
	if v < 0 || v >= len(ids) {
		return cstr(unknownValue)
	}
	return cstr(lessScreamy(ids[v]))
}

// enumName returns name() for a value below count, or UNKNOWN.
func enumName(v, count int, name func() string) *C.char {
	if v < 0 || v >= count {
		return cstr(unknownValue)
	}
	return cstr(name())
}

//export rs2_exception_type_to_string
func rs2_exception_type_to_string(t C.rs2_exception_type) *C.char {
	return idName(exceptionIDs[:], int(t))
}

//export rs2_extension_type_to_string
func rs2_extension_type_to_string(t C.rs2_extension) *C.char { return idName(extensionIDs[:], int(t)) }

//export rs2_extension_to_string
func rs2_extension_to_string(t C.rs2_extension) *C.char { return idName(extensionIDs[:], int(t)) }

//export rs2_log_severity_to_string
func rs2_log_severity_to_string(s C.rs2_log_severity) *C.char {
	return idName(logSeverityIDs[:], int(s))
}

//export rs2_playback_status_to_string
func rs2_playback_status_to_string(s C.rs2_playback_status) *C.char {
	return idName(playbackStatusIDs[:], int(s))
}

//export rs2_stream_to_string
func rs2_stream_to_string(s C.rs2_stream) *C.char {
	return enumName(int(s), sensor.Count[sensor.Stream](), sensor.Stream(s).String)
}

//export rs2_format_to_string
func rs2_format_to_string(f C.rs2_format) *C.char {
	return enumName(int(f), sensor.Count[sensor.Format](), sensor.Format(f).String)
}

//export rs2_camera_info_to_string
func rs2_camera_info_to_string(i C.rs2_camera_info) *C.char {
	return enumName(int(i), sensor.Count[sensor.CameraInfo](), sensor.CameraInfo(i).String)
}

//export rs2_option_to_string
func rs2_option_to_string(o C.rs2_option) *C.char {
	return enumName(int(o), sensor.Count[sensor.Option](), sensor.Option(o).String)
}

//export rs2_timestamp_domain_to_string
func rs2_timestamp_domain_to_string(d C.rs2_timestamp_domain) *C.char {
	return enumName(int(d), sensor.Count[sensor.TimestampDomain](), sensor.TimestampDomain(d).String)
}

//export rs2_frame_metadata_to_string
func rs2_frame_metadata_to_string(m C.rs2_frame_metadata_value) *C.char {
	return enumName(int(m), sensor.Count[sensor.MetadataKey](), sensor.MetadataKey(m).String)
}

//export rs2_frame_metadata_value_to_string
func rs2_frame_metadata_value_to_string(m C.rs2_frame_metadata_value) *C.char {
	return rs2_frame_metadata_to_string(m)
}

//export rs2_distortion_to_string
func rs2_distortion_to_string(d C.rs2_distortion) *C.char {
	return enumName(int(d), sensor.Count[sensor.Distortion](), sensor.Distortion(d).String)
}

//export rs2_notification_category_to_string
func rs2_notification_category_to_string(c C.rs2_notification_category) *C.char {
	return enumName(int(c), sensor.Count[sensor.NotificationCategory](), sensor.NotificationCategory(c).String)
}

// playbackStatus is the rs2_playback_status of s (the values agree).
func playbackStatus(s extensions.PlaybackStatus) C.rs2_playback_status {
	return C.rs2_playback_status(s)
}

// optionTypeIDs are rs2_option_type's identifiers in order; librealsense
// 2.56.5 names no RS2_OPTION_TYPE_RECT (its name is empty).
var optionTypeIDs = [...]string{"INTEGER", "FLOAT", "STRING", "BOOLEAN", ""}

//export rs2_option_type_to_string
func rs2_option_type_to_string(t C.rs2_option_type) *C.char {
	return idName(optionTypeIDs[:], int(t))
}
