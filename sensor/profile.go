package sensor

import "fmt"

// ProfileKind tells which of the per-kind fields of a StreamProfile apply.
type ProfileKind uint8

// Kinds of stream profile.
const (
	KindVideo  ProfileKind = iota // width, height and intrinsics
	KindMotion                    // motion intrinsics
	KindPose                      // no intrinsics
)

// String returns "video", "motion" or "pose".
func (k ProfileKind) String() string {
	switch k {
	case KindVideo:
		return "video"
	case KindMotion:
		return "motion"
	case KindPose:
		return "pose"
	}
	return fmt.Sprintf("ProfileKind(%d)", uint8(k))
}

// Intrinsics are the pinhole intrinsics of a video stream (rs2_intrinsics).
type Intrinsics struct {
	Width, Height int
	PPX, PPY      float32 // principal point, pixels
	FX, FY        float32 // focal length, pixels
	Model         Distortion
	Coeffs        [5]float32
}

// MotionIntrinsics are the intrinsics of a motion stream
// (rs2_motion_device_intrinsic): a row-major 3×4 scale/cross-axis/bias matrix
// and noise and bias variances per axis.
type MotionIntrinsics struct {
	Data           [3][4]float32
	NoiseVariances [3]float32
	BiasVariances  [3]float32
}

// Extrinsics is a rigid transform between two streams (rs2_extrinsics):
// Rotation is a column-major 3×3 matrix, Translation in meters.
type Extrinsics struct {
	Rotation    [9]float32
	Translation [3]float32
}

// StreamProfile describes one stream a sensor can produce. Profiles are
// shared by pointer: frames point at the profile they were produced for.
// A profile must not be modified after it has been handed out.
type StreamProfile struct {
	Stream  Stream
	Index   int
	UID     int // unique id within the process
	Format  Format
	FPS     int
	Default bool
	Kind    ProfileKind

	// Video profiles.
	Width, Height int
	Intrinsics    Intrinsics

	// Motion profiles.
	MotionIntrinsics MotionIntrinsics
}

// Name returns "Stream/index", e.g. "Depth/0", as librealsense tools print it.
func (p *StreamProfile) Name() string { return fmt.Sprintf("%s/%d", p.Stream, p.Index) }

// String describes the profile, e.g. "Depth/0 Z16 848x480@30".
func (p *StreamProfile) String() string {
	if p.Kind == KindVideo {
		return fmt.Sprintf("%s/%d %s %dx%d@%d", p.Stream, p.Index, p.Format, p.Width, p.Height, p.FPS)
	}
	return fmt.Sprintf("%s/%d %s @%d", p.Stream, p.Index, p.Format, p.FPS)
}

// Same reports whether p and q describe the same stream configuration
// (everything but UID and Default).
func (p *StreamProfile) Same(q *StreamProfile) bool {
	return p.Stream == q.Stream && p.Index == q.Index && p.Format == q.Format && p.FPS == q.FPS &&
		p.Kind == q.Kind && p.Width == q.Width && p.Height == q.Height
}
