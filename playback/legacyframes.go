package playback

import (
	"encoding/binary"
	"math"

	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/sensor"
)

// The frames of file version 1 (spec §10).

// legacyInfo is what a version-1 frame_info message adds to its frame.
type legacyInfo struct {
	systemTimeMs float64
	domain       sensor.TimestampDomain
	metadata     sensor.Metadata
}

// legacyDomainSystem is the time_stamp_domain value of system time; 0 and
// 1 are the hardware clock (spec §10).
const legacyDomainSystem = 2

// decodeLegacyInfo converts a frame_info message: metadata values are the
// little-endian integers of their bytes (at most 8), keyed by their
// rs2_frame_metadata_value type.
func decodeLegacyInfo(fi *legacymsgs.FrameInfo) legacyInfo {
	li := legacyInfo{systemTimeMs: float64(fi.SystemTime), domain: sensor.TimestampDomainHardwareClock}
	if fi.TimeStampDomain == legacyDomainSystem {
		li.domain = sensor.TimestampDomainSystemTime
	}
	for _, md := range fi.FrameMetadata {
		if md.MetadataType > math.MaxInt32 || len(md.Data) > 8 {
			continue
		}
		var b [8]byte
		copy(b[:], md.Data)
		li.metadata.Set(sensor.MetadataKey(md.MetadataType), int64(binary.LittleEndian.Uint64(b[:])))
	}
	return li
}

// legacyPoseFrame builds the frame of a realsense_legacy_msgs/pose message
// (timestamps in milliseconds).
func legacyPoseFrame(st *stream, p *legacymsgs.Pose) *sensor.Frame {
	f := &sensor.Frame{Profile: st.profile, TimestampMs: float64(p.Timestamp),
		SystemTimeMs: float64(p.SystemTimestamp)}
	q := p.Rotation
	f.Pose = sensor.Pose{Translation: f32x3(p.Translation), Velocity: f32x3(p.Velocity),
		Acceleration: f32x3(p.Acceleration), Rotation: [4]float32{float32(q.X), float32(q.Y), float32(q.Z), float32(q.W)},
		AngularVelocity: f32x3(p.AngularVelocity), AngularAcceleration: f32x3(p.AngularAcceleration)}
	return f
}
