package sensor

import "math/bits"

// Metadata holds the frame metadata values a frame carries, keyed by
// MetadataKey. The zero value holds nothing. It is a value type: copying a
// Metadata copies its contents, and it never allocates.
type Metadata struct {
	set    uint64
	values [len(metadataKeyNames)]int64
}

// Set stores v under k. Keys outside the known range are ignored.
func (m *Metadata) Set(k MetadataKey, v int64) {
	if k < 0 || int(k) >= len(metadataKeyNames) {
		return
	}
	m.set |= 1 << uint(k)
	m.values[k] = v
}

// Get returns the value stored under k and whether there is one.
func (m *Metadata) Get(k MetadataKey) (int64, bool) {
	if k < 0 || int(k) >= len(metadataKeyNames) || m.set&(1<<uint(k)) == 0 {
		return 0, false
	}
	return m.values[k], true
}

// Range calls f for every stored value in ascending key order (the order in
// which librealsense writes them) until f returns false.
func (m *Metadata) Range(f func(k MetadataKey, v int64) bool) {
	for s := m.set; s != 0; s &= s - 1 {
		k := MetadataKey(bits.TrailingZeros64(s))
		if !f(k, m.values[k]) {
			return
		}
	}
}

// Pose is a 6-DoF pose sample (rs2_pose).
type Pose struct {
	Translation         [3]float32 // meters
	Velocity            [3]float32 // m/s
	Acceleration        [3]float32 // m/s²
	Rotation            [4]float32 // quaternion x, y, z, w
	AngularVelocity     [3]float32 // rad/s
	AngularAcceleration [3]float32 // rad/s²
	TrackerConfidence   uint32
	MapperConfidence    uint32
}

// Frame is one sample of a stream: an image, a motion sample or a pose.
//
// A Frame handed to a Handler is immutable; see the package documentation.
type Frame struct {
	Profile *StreamProfile

	Number       uint64          // frame number
	TimestampMs  float64         // frame timestamp, milliseconds, in Domain
	Domain       TimestampDomain // clock of TimestampMs
	SystemTimeMs float64         // host time at arrival, milliseconds since the epoch (0 if unknown)
	Metadata     Metadata

	// Data is the frame payload: Stride×Height image bytes for video frames,
	// 3 little-endian float32 (x, y, z) for motion frames, and the 84-byte
	// rs2_pose layout (see EncodePose) for pose frames.
	Data []byte

	// Video frames.
	Width, Height int
	Stride        int     // bytes per row
	BPP           int     // bits per pixel
	DepthUnits    float32 // meters per unit for depth frames, 0 otherwise

	// Motion frames: the sample as three floats (also in Data).
	Motion [3]float32

	// Pose frames (also in Data).
	Pose Pose
}
