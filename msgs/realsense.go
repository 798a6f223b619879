package msgs

// StreamInfo is realsense_msgs/StreamInfo (one per recorded stream profile).
// librealsense stores is_recommended as 2 for default profiles; the raw byte
// is kept so that re-encoding gives the original bytes.
type StreamInfo struct {
	Fps           uint32 `ros:"fps"`
	Encoding      string `ros:"encoding"`
	IsRecommended Bool   `ros:"is_recommended"`
}

// ImuIntrinsic is realsense_msgs/ImuIntrinsic (motion stream intrinsics).
type ImuIntrinsic struct {
	Data           [12]float32 `ros:"data"` // 3x4 row-major: scale/cross-axis, bias in column 3
	NoiseVariances [3]float32  `ros:"noise_variances"`
	BiasVariances  [3]float32  `ros:"bias_variances"`
}

// Notification is realsense_msgs/Notification. librealsense stores the
// notification's millisecond timestamp as if it were nanoseconds (see
// internal/layout); this type stores the Time as given.
type Notification struct {
	Timestamp      Time   `ros:"timestamp"`
	Category       string `ros:"category"`
	Severity       string `ros:"severity"`
	Description    string `ros:"description"`
	SerializedData string `ros:"serialized_data"`
}
