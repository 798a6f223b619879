// Package legacymsgs holds the realsense_legacy_msgs message types of file
// version 1 (topic /FILE_VERSION), which only the reader of old bags
// decodes: playback and the reader of a bag's description. Like package
// msgs' types, they are generated from testdata/spec/realsense-msgdefs.json
// (go generate ./msgs writes both packages); their fields of msgs types are
// decoded by package msgs, and a short or malformed message gives a
// *msgs.DecodeError.
package legacymsgs

import "github.com/rsbag/rsbag/msgs"

// Extrinsics is realsense_legacy_msgs/extrinsics.
type Extrinsics struct {
	Rotation    [9]float32 `ros:"rotation"`
	Translation [3]float32 `ros:"translation"`
}

// Metadata is realsense_legacy_msgs/metadata. Data is a view of the
// input after Unmarshal.
type Metadata struct {
	MetadataType uint32 `ros:"type"` // field "type"; Type is the descriptor method
	Data         []byte `ros:"data"`
}

// FrameInfo is realsense_legacy_msgs/frame_info.
type FrameInfo struct {
	SystemTime      uint64     `ros:"system_time"`
	FrameMetadata   []Metadata `ros:"frame_metadata"`
	TimeStampDomain uint32     `ros:"time_stamp_domain"`
}

// MotionIntrinsics is realsense_legacy_msgs/motion_intrinsics.
type MotionIntrinsics struct {
	Data           [12]float32 `ros:"data"`
	NoiseVariances [3]float32  `ros:"noise_variances"`
	BiasVariances  [3]float32  `ros:"bias_variances"`
}

// StreamExtrinsics is realsense_legacy_msgs/stream_extrinsics.
type StreamExtrinsics struct {
	Extrinsics       Extrinsics `ros:"extrinsics"`
	ReferencePointID uint64     `ros:"reference_point_id"`
}

// MotionStreamInfo is realsense_legacy_msgs/motion_stream_info.
type MotionStreamInfo struct {
	MotionType       string           `ros:"motion_type"`
	Fps              uint32           `ros:"fps"`
	StreamIntrinsics MotionIntrinsics `ros:"stream_intrinsics"`
	StreamExtrinsics StreamExtrinsics `ros:"stream_extrinsics"`
}

// Pose is realsense_legacy_msgs/pose (timestamp in ms).
type Pose struct {
	Translation         msgs.Vector3    `ros:"translation"`
	Rotation            msgs.Quaternion `ros:"rotation"`
	Velocity            msgs.Vector3    `ros:"velocity"`
	AngularVelocity     msgs.Vector3    `ros:"angular_velocity"`
	Acceleration        msgs.Vector3    `ros:"acceleration"`
	AngularAcceleration msgs.Vector3    `ros:"angular_acceleration"`
	Timestamp           uint64          `ros:"timestamp"`
	SystemTimestamp     uint64          `ros:"system_timestamp"`
}

// StreamInfo is realsense_legacy_msgs/stream_info.
type StreamInfo struct {
	StreamType       string           `ros:"stream_type"`
	Fps              uint32           `ros:"fps"`
	CameraInfo       msgs.CameraInfo  `ros:"camera_info"`
	StreamExtrinsics StreamExtrinsics `ros:"stream_extrinsics"`
	Width            uint32           `ros:"width"`
	Height           uint32           `ros:"height"`
	Encoding         string           `ros:"encoding"`
}

// VendorData is realsense_legacy_msgs/vendor_data.
type VendorData struct {
	Name  string `ros:"name"`
	Value string `ros:"value"`
}
