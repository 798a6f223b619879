package msgs

//go:generate go run ./internal/gen -in ../testdata/spec/realsense-msgdefs.json -out types_gen.go -codecs codecs_gen.go -legacy ../internal/legacymsgs

// Type describes a ROS message type as written into a bag's connection
// header: the type name, the md5sum and the full message definition text
// (with its dependencies), and the codec of its messages. The values of this
// package's types come from realsense-msgdefs.json.
//
// A message type of one's own is a struct whose Type method returns a Type
// with all six fields set; the codec functions are given messages of that
// type only (the package functions Size, Append, Marshal and Unmarshal call
// them through the message's Type).
type Type struct {
	Name       string // "sensor_msgs/Image"
	MD5        string // 32 lowercase hex digits
	Definition string // exact message_definition text

	// Size returns the number of bytes Append appends for m.
	Size func(m Message) int
	// Append appends the ROS1 serialization of m to b. It does not
	// allocate when b has Size(m) bytes of spare capacity.
	Append func(b []byte, m Message) []byte
	// Unmarshal decodes a serialized message into m, replacing every
	// field.
	Unmarshal func(b []byte, m Message) error
}

// String returns the type name.
func (t *Type) String() string { return t.Name }

// types returns the descriptors of every known message type, sorted by name.
func types() []*Type {
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

// lookupMD5 returns the descriptors whose md5sum is md5. librealsense
// identifies message types by md5sum alone; geometry_msgs/Accel and
// geometry_msgs/Twist share one, so more than one descriptor can match.
func lookupMD5(md5 string) []*Type {
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
	case keyValueType.Name:
		return new(KeyValue)
	case accelType.Name:
		return new(Accel)
	case quaternionType.Name:
		return new(Quaternion)
	case transformType.Name:
		return new(Transform)
	case twistType.Name:
		return new(Twist)
	case vector3Type.Name:
		return new(Vector3)
	case imuIntrinsicType.Name:
		return new(ImuIntrinsic)
	case notificationType.Name:
		return new(Notification)
	case streamInfoType.Name:
		return new(StreamInfo)
	case logType.Name:
		return new(Log)
	case cameraInfoType.Name:
		return new(CameraInfo)
	case imageType.Name:
		return new(Image)
	case imuType.Name:
		return new(Imu)
	case regionOfInterestType.Name:
		return new(RegionOfInterest)
	case timeReferenceType.Name:
		return new(TimeReference)
	case float32Type.Name:
		return new(Float32)
	case headerType.Name:
		return new(Header)
	case stringType.Name:
		return new(String)
	case stdTimeType.Name:
		return new(StdTime)
	case uInt32Type.Name:
		return new(UInt32)
	}
	return nil
}
