package msgs

// Types of file version 1 (topic /FILE_VERSION), read-only in practice.

// LegacyExtrinsics is realsense_legacy_msgs/extrinsics.
type LegacyExtrinsics struct {
	Rotation    [9]float32 `ros:"rotation"`
	Translation [3]float32 `ros:"translation"`
}

// LegacyMetadata is realsense_legacy_msgs/metadata. Data is a view of the
// input after Unmarshal.
type LegacyMetadata struct {
	MetadataType uint32 `ros:"type"` // field "type"; Type is the descriptor method
	Data         []byte `ros:"data"`
}

// LegacyFrameInfo is realsense_legacy_msgs/frame_info.
type LegacyFrameInfo struct {
	SystemTime      uint64           `ros:"system_time"`
	FrameMetadata   []LegacyMetadata `ros:"frame_metadata"`
	TimeStampDomain uint32           `ros:"time_stamp_domain"`
}

// LegacyMotionIntrinsics is realsense_legacy_msgs/motion_intrinsics.
type LegacyMotionIntrinsics struct {
	Data           [12]float32 `ros:"data"`
	NoiseVariances [3]float32  `ros:"noise_variances"`
	BiasVariances  [3]float32  `ros:"bias_variances"`
}

// LegacyStreamExtrinsics is realsense_legacy_msgs/stream_extrinsics.
type LegacyStreamExtrinsics struct {
	Extrinsics       LegacyExtrinsics `ros:"extrinsics"`
	ReferencePointID uint64           `ros:"reference_point_id"`
}

// LegacyMotionStreamInfo is realsense_legacy_msgs/motion_stream_info.
type LegacyMotionStreamInfo struct {
	MotionType       string                 `ros:"motion_type"`
	Fps              uint32                 `ros:"fps"`
	StreamIntrinsics LegacyMotionIntrinsics `ros:"stream_intrinsics"`
	StreamExtrinsics LegacyStreamExtrinsics `ros:"stream_extrinsics"`
}

// LegacyPose is realsense_legacy_msgs/pose (timestamp in ms).
type LegacyPose struct {
	Translation         Vector3    `ros:"translation"`
	Rotation            Quaternion `ros:"rotation"`
	Velocity            Vector3    `ros:"velocity"`
	AngularVelocity     Vector3    `ros:"angular_velocity"`
	Acceleration        Vector3    `ros:"acceleration"`
	AngularAcceleration Vector3    `ros:"angular_acceleration"`
	Timestamp           uint64     `ros:"timestamp"`
	SystemTimestamp     uint64     `ros:"system_timestamp"`
}

// LegacyStreamInfo is realsense_legacy_msgs/stream_info.
type LegacyStreamInfo struct {
	StreamType       string                 `ros:"stream_type"`
	Fps              uint32                 `ros:"fps"`
	CameraInfo       CameraInfo             `ros:"camera_info"`
	StreamExtrinsics LegacyStreamExtrinsics `ros:"stream_extrinsics"`
	Width            uint32                 `ros:"width"`
	Height           uint32                 `ros:"height"`
	Encoding         string                 `ros:"encoding"`
}

// LegacyVendorData is realsense_legacy_msgs/vendor_data.
type LegacyVendorData struct {
	Name  string `ros:"name"`
	Value string `ros:"value"`
}
