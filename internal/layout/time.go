package layout

import (
	"math"
	"regexp"

	"github.com/rsbag/rsbag/msgs"
)

// StaticTime is the bag time of static messages (file version, device and
// sensor info, option descriptions, extrinsics, and anything written at
// capture time 0): ROS TIME_MIN, 0 s + 1 ns (spec §3.1).
var StaticTime = msgs.Time{Sec: 0, Nsec: 1}

// Bag times in nanoseconds (the unit of rosbag.Time).
const (
	// StaticTimeNs is StaticTime in nanoseconds.
	StaticTimeNs uint64 = 1
	// SamplesStartNs is where the reader's time-ordered view of samples
	// starts: (0 s, 2 ns), just after every static message (spec §6.3).
	SamplesStartNs uint64 = 2
)

// fromSec converts seconds to a ROS time the way librealsense does (through
// float64, nanoseconds rounded half away from zero, carried into seconds).
// Negative and NaN inputs give (0, 0); values past the range of a ROS time
// saturate at (2^32-1 s, 999999999 ns).
func fromSec(s float64) msgs.Time {
	if !(s >= 0) {
		return msgs.Time{}
	}
	if s >= 1<<32 {
		return msgs.Time{Sec: math.MaxUint32, Nsec: 999999999}
	}
	sec := uint64(math.Floor(s))
	nsec := uint64(math.Round((s - float64(sec)) * 1e9))
	sec += nsec / 1e9
	nsec %= 1e9
	if sec > math.MaxUint32 {
		return msgs.Time{Sec: math.MaxUint32, Nsec: 999999999}
	}
	return msgs.Time{Sec: uint32(sec), Nsec: uint32(nsec)}
}

// ToROSTime converts a capture time (nanoseconds since the recording's time
// base) to the ROS time of a bag message exactly as librealsense does:
// s = ns/1e9 as float64, sec = floor(s), nsec = round((s-sec)*1e9), carry.
// 0 ns maps to StaticTime (0 s, 1 ns).
func ToROSTime(ns uint64) msgs.Time {
	if ns == 0 {
		return StaticTime
	}
	return fromSec(float64(ns) / 1e9)
}

// FromROSTime is the reader's inverse of ToROSTime: StaticTime gives 0,
// anything else sec*1e9 + nsec.
func FromROSTime(t msgs.Time) uint64 {
	if t == StaticTime {
		return 0
	}
	return uint64(t.Sec)*1e9 + uint64(t.Nsec)
}

// TimeNs returns t in nanoseconds (sec*1e9 + nsec), the value a bag stores.
func TimeNs(t msgs.Time) uint64 { return uint64(t.Sec)*1e9 + uint64(t.Nsec) }

// BagTimeNs returns the bag time, in nanoseconds, at which a message
// captured at captureNs is written: TimeNs(ToROSTime(captureNs)). Because of
// the float64 conversion it can differ from captureNs by a few nanoseconds
// for large values; 0 gives StaticTimeNs.
func BagTimeNs(captureNs uint64) uint64 { return TimeNs(ToROSTime(captureNs)) }

// FrameStamp converts a frame timestamp in milliseconds to the header stamp
// of an Image or Imu (spec §3.2): the ROS time of ms/1000 seconds with the
// rounding of ToROSTime (no static-time special case). Negative or NaN
// timestamps give (0, 0).
func FrameStamp(ms float64) msgs.Time { return fromSec(ms / 1000.0) }

// FrameTimestampMs is the reader's inverse of FrameStamp:
// (sec + 1e-9*nsec) * 1000.
func FrameTimestampMs(t msgs.Time) float64 {
	return (float64(t.Sec) + 1e-9*float64(t.Nsec)) * 1000
}

// NotificationStamp converts a notification timestamp (milliseconds since
// the epoch) to the stored ROS time the way librealsense does, treating the
// value as nanoseconds: the ROS time of ms/1e9 seconds (spec §5.13; e.g.
// 1795239705530 ms → (1795 s, 239705530 ns)).
func NotificationStamp(ms float64) msgs.Time { return fromSec(ms / 1e9) }

// NotificationTimestampMs is the reader's inverse of NotificationStamp:
// sec*1e9 + nsec, giving the original milliseconds as an integer value.
func NotificationTimestampMs(t msgs.Time) float64 { return float64(TimeNs(t)) }

// frameDataRE is the reader's pattern for frame topics (spec §6.1), used
// with search semantics.
var frameDataRE = regexp.MustCompile(`/device_\d+/sensor_\d+/.*_\d+/(image|imu|pose/transform)/data`)

// IsFrameDataTopic reports whether librealsense counts topic as a frame
// topic when it computes the duration of a file (substring match of
// /device_\d+/sensor_\d+/.*_\d+/(image|imu|pose/transform)/data).
func IsFrameDataTopic(topic string) bool { return frameDataRE.MatchString(topic) }
