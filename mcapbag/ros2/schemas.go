package ros2

import "strings"

// The ROS 2 message definitions of the types the ros2 profile writes: the
// field lines of the .msg files (comments dropped) of ros2/common_interfaces
// (std_msgs, sensor_msgs, geometry_msgs), ros2/rcl_interfaces
// (builtin_interfaces), ros2/geometry2 (tf2_msgs) and
// realsense2_camera_msgs of the realsense-ros wrapper 4.55.1.
var definitions = map[string]msgDef{
	"builtin_interfaces/msg/Time": {text: "int32 sec\nuint32 nanosec\n"},
	"std_msgs/msg/Header": {
		text: "builtin_interfaces/Time stamp\nstring frame_id\n",
		deps: []string{"builtin_interfaces/msg/Time"},
	},
	"sensor_msgs/msg/Image": {
		text: "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n",
		deps: []string{"std_msgs/msg/Header"},
	},
	"sensor_msgs/msg/RegionOfInterest": {text: "uint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n"},
	"sensor_msgs/msg/CameraInfo": {
		text: "std_msgs/Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] d\nfloat64[9]  k\nfloat64[9]  r\nfloat64[12] p\nuint32 binning_x\nuint32 binning_y\nRegionOfInterest roi\n",
		deps: []string{"std_msgs/msg/Header", "sensor_msgs/msg/RegionOfInterest"},
	},
	"geometry_msgs/msg/Vector3":    {text: "float64 x\nfloat64 y\nfloat64 z\n"},
	"geometry_msgs/msg/Quaternion": {text: "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"},
	"sensor_msgs/msg/Imu": {
		text: "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\ngeometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n",
		deps: []string{"std_msgs/msg/Header", "geometry_msgs/msg/Quaternion", "geometry_msgs/msg/Vector3"},
	},
	"geometry_msgs/msg/Transform": {
		text: "Vector3 translation\nQuaternion rotation\n",
		deps: []string{"geometry_msgs/msg/Vector3", "geometry_msgs/msg/Quaternion"},
	},
	"geometry_msgs/msg/TransformStamped": {
		text: "std_msgs/Header header\nstring child_frame_id\nTransform transform\n",
		deps: []string{"std_msgs/msg/Header", "geometry_msgs/msg/Transform"},
	},
	"tf2_msgs/msg/TFMessage": {
		text: "geometry_msgs/TransformStamped[] transforms\n",
		deps: []string{"geometry_msgs/msg/TransformStamped"},
	},
	"realsense2_camera_msgs/msg/Metadata": {
		text: "std_msgs/Header header\nstring json_data\n",
		deps: []string{"std_msgs/msg/Header"},
	},
	"realsense2_camera_msgs/msg/Extrinsics": {text: "float64[9] rotation\nfloat64[3] translation\n"},
	"realsense2_camera_msgs/msg/IMUInfo": {
		text: "std_msgs/Header header\nfloat64[12] data\nfloat64[3] noise_variances\nfloat64[3] bias_variances\n",
		deps: []string{"std_msgs/msg/Header"},
	},
}

// msgDef is one message definition and the types its fields use directly.
type msgDef struct {
	text string
	deps []string
}

// Message type names of the ros2 profile.
const (
	imageType      = "sensor_msgs/msg/Image"
	cameraInfoType = "sensor_msgs/msg/CameraInfo"
	imuType        = "sensor_msgs/msg/Imu"
	tfMessageType  = "tf2_msgs/msg/TFMessage"
	metadataType   = "realsense2_camera_msgs/msg/Metadata"
	extrinsicsType = "realsense2_camera_msgs/msg/Extrinsics"
	imuInfoType    = "realsense2_camera_msgs/msg/IMUInfo"
)

// schemaText returns the ros2msg schema of typ as rosbag2 stores it in
// MCAP files: the type's definition followed by the definitions of every
// type it uses, each after a line of 80 '=' and a line "MSG: pkg/Name", in
// depth-first order of first use.
func schemaText(typ string) string {
	var b strings.Builder
	b.WriteString(definitions[typ].text)
	seen := map[string]bool{typ: true}
	var walk func(string)
	walk = func(t string) {
		for _, d := range definitions[t].deps {
			if seen[d] {
				continue
			}
			seen[d] = true
			b.WriteString(strings.Repeat("=", 80))
			b.WriteString("\nMSG: ")
			b.WriteString(strings.Replace(d, "/msg/", "/", 1))
			b.WriteString("\n")
			b.WriteString(definitions[d].text)
			walk(d)
		}
	}
	walk(typ)
	return b.String()
}
