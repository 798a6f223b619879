package sensor

import (
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

// setEnum sets *v to the value named s in names (see lookupName), the
// flag.Value Set of every enum type; what names the enum in the error.
func setEnum[T ~int32](v *T, names []string, s string, firstWord bool, what string) error {
	i, ok := lookupName(names, s, firstWord)
	if !ok {
		return fmt.Errorf("sensor: unknown %s %q", what, s)
	}
	*v = T(i)
	return nil
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

// Set parses a stream name ("Depth", "depth") or id, so that a *Stream is a
// flag.Value.
func (v *Stream) Set(s string) error { return setEnum(v, streamNames[:], s, false, "stream") }

// Set parses a format name ("Z16", "rgb8", "MOTION_XYZ32F") or id, so that a
// *Format is a flag.Value.
func (v *Format) Set(s string) error { return setEnum(v, formatNames[:], s, false, "format") }

// Set parses a timestamp domain name ("System Time", "system_time",
// "system") or id, so that a *TimestampDomain is a flag.Value.
func (v *TimestampDomain) Set(s string) error {
	return setEnum(v, timestampDomainNames[:], s, true, "timestamp domain")
}

// Set parses a distortion model name ("Brown Conrady") or id, so that a
// *Distortion is a flag.Value.
func (v *Distortion) Set(s string) error {
	return setEnum(v, distortionNames[:], s, false, "distortion model")
}

// Set parses an option name ("Laser Power", "laser_power") or id, so that an
// *Option is a flag.Value.
func (v *Option) Set(s string) error { return setEnum(v, optionNames[:], s, false, "option") }

// Set parses a camera-info name ("Serial Number") or id, so that a
// *CameraInfo is a flag.Value.
func (v *CameraInfo) Set(s string) error {
	return setEnum(v, cameraInfoNames[:], s, false, "camera info")
}

// BytesPerPixel returns BitsPerPixel/8 (0 for formats without whole bytes
// per pixel).
func (f Format) BytesPerPixel() int {
	b := f.BitsPerPixel()
	if b%8 != 0 {
		return 0
	}
	return b / 8
}

// ProfileKind returns the kind of stream profile a format belongs to:
// KindMotion for MOTION_RAW, MOTION_XYZ32F and COMBINED_MOTION, KindPose for
// 6DOF, KindVideo otherwise.
func (f Format) ProfileKind() ProfileKind {
	switch f {
	case FormatMotionRaw, FormatMotionXYZ32F, FormatCombinedMotion:
		return KindMotion
	case Format6DOF:
		return KindPose
	}
	return KindVideo
}
