package sensor

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// normName lowercases s and drops spaces, underscores and dashes, so that
// "System Time", "system_time" and "systemtime" compare equal.
func normName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// lookupName finds s among names: exact name, then the normalized name, then
// (if firstWord) the first word of a name ("system" for "System Time"), then
// a decimal id.
func lookupName(names []string, s string, firstWord bool) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	ns := normName(s)
	for i, n := range names {
		if normName(n) == ns {
			return i, true
		}
	}
	if firstWord {
		for i, n := range names {
			if w, _, _ := strings.Cut(n, " "); normName(w) == ns {
				return i, true
			}
		}
	}
	if id, err := strconv.Atoi(s); err == nil && id >= 0 && id < len(names) {
		return id, true
	}
	return 0, false
}

// flagValue returns a flag.Value that sets *p from the name of a value of
// the enum type E (see Parse), leniently: the exact librealsense name, the
// name in any case without spaces, underscores or dashes ("Laser Power",
// "laser_power", "rgb8", "MOTION_XYZ32F"), for a TimestampDomain its first
// word ("system" for "System Time"), or the decimal id.
func flagValue[E enum](p *E) flag.Value { return enumFlag[E]{p} }

// enumFlag is the flag.Value of flagValue.
type enumFlag[E enum] struct{ p *E }

func (f enumFlag[E]) String() string {
	if f.p == nil {
		return ""
	}
	return fmt.Sprint(*f.p)
}

func (f enumFlag[E]) Set(s string) error {
	_, firstWord := any(*f.p).(TimestampDomain)
	i, ok := lookupName(enumNames[E](), s, firstWord)
	if !ok {
		return fmt.Errorf("sensor: unknown %s %q", enumWhat[E](), s)
	}
	*f.p = E(i)
	return nil
}

// enumWhat names E in errors ("timestamp domain").
func enumWhat[E enum]() string {
	switch any(E(0)).(type) {
	case Stream:
		return "stream"
	case Format:
		return "format"
	case CameraInfo:
		return "camera info"
	case MetadataKey:
		return "metadata key"
	case TimestampDomain:
		return "timestamp domain"
	case Distortion:
		return "distortion model"
	case NotificationCategory:
		return "notification category"
	case Severity:
		return "severity"
	}
	return "option"
}

// bytesPerPixel returns BitsPerPixel/8 (0 for formats without whole bytes
// per pixel).
func (f Format) bytesPerPixel() int {
	b := f.BitsPerPixel()
	if b%8 != 0 {
		return 0
	}
	return b / 8
}

// profileKind returns the kind of stream profile a format belongs to:
// KindMotion for MOTION_RAW, MOTION_XYZ32F and COMBINED_MOTION, KindPose for
// 6DOF, KindVideo otherwise.
func (f Format) profileKind() ProfileKind {
	switch f {
	case FormatMotionRaw, FormatMotionXYZ32F, FormatCombinedMotion:
		return KindMotion
	case Format6DOF:
		return KindPose
	}
	return KindVideo
}

// Parse returns the value of the enum type E (Stream, Format, CameraInfo,
// MetadataKey, TimestampDomain, Distortion, NotificationCategory, Severity
// or Option) whose librealsense name is s, exact match:
// Parse[Option]("Hdr Enabled") is Option(76). Every value of Appendix A has
// its name, including those without an exported constant.
func Parse[E enum](s string) (E, bool) {
	for i, n := range enumNames[E]() {
		if n == s {
			return E(i), true
		}
	}
	return 0, false
}

// Count returns the number of known values of the enum type E (see Parse):
// they are numbered 0 to Count[E]()-1, as in librealsense.
func Count[E enum]() int { return len(enumNames[E]()) }
