package layout

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rsbag/rsbag/sensor"
)

// ErrUnknownEncoding is wrapped by ParseEncoding's error.
var ErrUnknownEncoding = errors.New("layout: unknown encoding")

// Encoding returns the StreamInfo/Image encoding string of a format (spec
// §5.14): Z16 mono16, RGB8 rgb8, BGR8 bgr8, RGBA8 rgba8, BGRA8 bgra8, Y8
// 8UC1, Y16 16UC1, RAW8 mono8, UYVY yuv422, any other format its rs2_format
// name (e.g. "YUYV", "MOTION_XYZ32F", "6DOF").
func Encoding(f sensor.Format) string {
	switch f {
	case sensor.FormatZ16:
		return "mono16"
	case sensor.FormatRGB8:
		return "rgb8"
	case sensor.FormatBGR8:
		return "bgr8"
	case sensor.FormatRGBA8:
		return "rgba8"
	case sensor.FormatBGRA8:
		return "bgra8"
	case sensor.FormatY8:
		return "8UC1"
	case sensor.FormatY16:
		return "16UC1"
	case sensor.FormatRAW8:
		return "mono8"
	case sensor.FormatUYVY:
		return "yuv422"
	}
	return f.String()
}

// ParseEncoding returns the format of an encoding string with the reader's
// rules (spec §5.14): mono16 Z16, 8UC1 Y8, 16UC1 Y16, mono8 RAW8, yuv422
// UYVY; otherwise the ASCII upper-case of the string matched against the
// rs2_format names (so rgb8 gives RGB8, yuyv YUYV). Anything else is an
// error wrapping ErrUnknownEncoding.
func ParseEncoding(s string) (sensor.Format, error) {
	switch s {
	case "mono16":
		return sensor.FormatZ16, nil
	case "8UC1":
		return sensor.FormatY8, nil
	case "16UC1":
		return sensor.FormatY16, nil
	case "mono8":
		return sensor.FormatRAW8, nil
	case "yuv422":
		return sensor.FormatUYVY, nil
	}
	if f, ok := sensor.Parse[sensor.Format](asciiUpper(s)); ok {
		return f, nil
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownEncoding, s)
}

func asciiUpper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'a' && c <= 'z' {
					b[j] = c - 'a' + 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Metadata keys that are not rs2_frame_metadata_value names (spec §5.10,
// §5.12, appendix A.4).
const (
	KeySystemTime        = "system_time"        // host time of the frame, ms, FormatFixed
	KeyTimestampDomain   = "timestamp_domain"   // sensor.TimestampDomain name
	KeyFrameTimestamp    = "frame_timestamp"    // pose frame timestamp, ms, FormatFixed
	KeyFrameNumber       = "Frame number"       // pose frame number, decimal
	KeyTrackerConfidence = "Tracker Confidence" // pose, decimal
	KeyMapperConfidence  = "Mapper Confidence"  // pose, decimal
)

// AppendFixed appends v formatted like C's printf("%f"): fixed notation with
// six decimals, correctly rounded ("1534232519732.935547", "0.000000"), and
// "nan", "-nan", "inf", "-inf" for non-finite values. librealsense formats
// system_time, the pose frame_timestamp and version-2 property values so.
func AppendFixed(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case math.IsInf(v, 1):
		return append(b, "inf"...)
	case math.IsInf(v, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, v, 'f', 6, 64)
}

// FormatFixed returns AppendFixed(nil, v) as a string.
func FormatFixed(v float64) string { return string(AppendFixed(nil, v)) }

// ParseFixed parses a metadata float value (system_time, frame_timestamp,
// property values) as the reader does; surrounding spaces are ignored.
func ParseFixed(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("layout: metadata value %q: %w", s, err)
	}
	return v, nil
}
