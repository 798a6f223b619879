package msgs

// Vector3 is geometry_msgs/Vector3.
type Vector3 struct {
	X float64 `ros:"x"`
	Y float64 `ros:"y"`
	Z float64 `ros:"z"`
}

// Quaternion is geometry_msgs/Quaternion.
type Quaternion struct {
	X float64 `ros:"x"`
	Y float64 `ros:"y"`
	Z float64 `ros:"z"`
	W float64 `ros:"w"`
}

// Transform is geometry_msgs/Transform (extrinsics on tf topics, pose transforms).
type Transform struct {
	Translation Vector3    `ros:"translation"`
	Rotation    Quaternion `ros:"rotation"`
}

// Accel is geometry_msgs/Accel (pose acceleration).
type Accel struct {
	Linear  Vector3 `ros:"linear"`
	Angular Vector3 `ros:"angular"`
}

// Twist is geometry_msgs/Twist (pose velocity).
type Twist struct {
	Linear  Vector3 `ros:"linear"`
	Angular Vector3 `ros:"angular"`
}
