package legacymsgs

import "github.com/rsbag/rsbag/msgs"

//go:generate sh -c "cd ../../msgs && go generate"

// Types returns the descriptors of the realsense_legacy_msgs types, sorted
// by name.
func Types() []*msgs.Type {
	out := make([]*msgs.Type, len(allTypes))
	copy(out, allTypes[:])
	return out
}

// LookupType returns the descriptor of the ROS type name (e.g.
// "realsense_legacy_msgs/pose").
func LookupType(name string) (*msgs.Type, bool) {
	for _, t := range allTypes {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// New returns a new zero message of the ROS type name, or nil if the type is
// not one of this package's.
func New(name string) msgs.Message {
	switch name {
	case extrinsicsType.Name:
		return new(Extrinsics)
	case frameInfoType.Name:
		return new(FrameInfo)
	case metadataType.Name:
		return new(Metadata)
	case motionIntrinsicsType.Name:
		return new(MotionIntrinsics)
	case motionStreamInfoType.Name:
		return new(MotionStreamInfo)
	case poseType.Name:
		return new(Pose)
	case streamExtrinsicsType.Name:
		return new(StreamExtrinsics)
	case streamInfoType.Name:
		return new(StreamInfo)
	case vendorDataType.Name:
		return new(VendorData)
	}
	return nil
}
