package msgs

//go:generate go run ./internal/gen -in ../testdata/spec/realsense-msgdefs.json -out types_gen.go -codecs codecs_gen.go

// Type describes a ROS message type as written into a bag's connection
// header: the type name, the md5sum and the full message definition text
// (with its dependencies). The values come from realsense-msgdefs.json.
type Type struct {
	Name       string // "sensor_msgs/Image"
	MD5        string // 32 lowercase hex digits
	Definition string // exact message_definition text
}

// String returns the type name.
func (t *Type) String() string { return t.Name }

// Types returns the descriptors of every known message type, sorted by name.
func Types() []*Type {
	out := make([]*Type, len(allTypes))
	copy(out, allTypes[:])
	return out
}

// LookupType returns the descriptor of the ROS type name (e.g. "std_msgs/UInt32").
func LookupType(name string) (*Type, bool) {
	for _, t := range allTypes {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// LookupMD5 returns the descriptors whose md5sum is md5. librealsense
// identifies message types by md5sum alone; geometry_msgs/Accel and
// geometry_msgs/Twist share one, so more than one descriptor can match.
func LookupMD5(md5 string) []*Type {
	var out []*Type
	for _, t := range allTypes {
		if t.MD5 == md5 {
			out = append(out, t)
		}
	}
	return out
}

// New returns a new zero message of the ROS type name, or nil if the type is
// not known.
func New(name string) Message {
	switch name {
	case KeyValueType.Name:
		return new(KeyValue)
	case AccelType.Name:
		return new(Accel)
	case QuaternionType.Name:
		return new(Quaternion)
	case TransformType.Name:
		return new(Transform)
	case TwistType.Name:
		return new(Twist)
	case Vector3Type.Name:
		return new(Vector3)
	case LegacyExtrinsicsType.Name:
		return new(LegacyExtrinsics)
	case LegacyFrameInfoType.Name:
		return new(LegacyFrameInfo)
	case LegacyMetadataType.Name:
		return new(LegacyMetadata)
	case LegacyMotionIntrinsicsType.Name:
		return new(LegacyMotionIntrinsics)
	case LegacyMotionStreamInfoType.Name:
		return new(LegacyMotionStreamInfo)
	case LegacyPoseType.Name:
		return new(LegacyPose)
	case LegacyStreamExtrinsicsType.Name:
		return new(LegacyStreamExtrinsics)
	case LegacyStreamInfoType.Name:
		return new(LegacyStreamInfo)
	case LegacyVendorDataType.Name:
		return new(LegacyVendorData)
	case ImuIntrinsicType.Name:
		return new(ImuIntrinsic)
	case NotificationType.Name:
		return new(Notification)
	case StreamInfoType.Name:
		return new(StreamInfo)
	case LogType.Name:
		return new(Log)
	case CameraInfoType.Name:
		return new(CameraInfo)
	case ImageType.Name:
		return new(Image)
	case ImuType.Name:
		return new(Imu)
	case RegionOfInterestType.Name:
		return new(RegionOfInterest)
	case TimeReferenceType.Name:
		return new(TimeReference)
	case Float32Type.Name:
		return new(Float32)
	case HeaderType.Name:
		return new(Header)
	case StringType.Name:
		return new(String)
	case StdTimeType.Name:
		return new(StdTime)
	case UInt32Type.Name:
		return new(UInt32)
	}
	return nil
}
