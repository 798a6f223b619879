package layout

import (
	"errors"
	"fmt"

	"github.com/rsbag/rsbag/sensor"
)

// Device is the device index of every topic librealsense writes and reads.
const Device = 0

// StreamKind returns the kind of frames a stream type carries: KindVideo
// (topic element "image") for Depth, Color, Infrared, Fisheye and
// Confidence; KindMotion ("imu") for Gyro, Accel and Motion; KindPose
// ("pose") for Pose. Frames of other streams (Any, Gpio) cannot be written.
func StreamKind(s sensor.Stream) (sensor.ProfileKind, bool) {
	switch s {
	case sensor.StreamDepth, sensor.StreamColor, sensor.StreamInfrared, sensor.StreamFisheye, sensor.StreamConfidence:
		return sensor.KindVideo, true
	case sensor.StreamGyro, sensor.StreamAccel, sensor.StreamMotion:
		return sensor.KindMotion, true
	case sensor.StreamPose:
		return sensor.KindPose, true
	}
	return 0, false
}

// ErrNoFrameTopic is returned for streams whose frames have no topic.
var ErrNoFrameTopic = errors.New("layout: stream type has no frame topic")

// DeviceInfoTopic returns "/device_0/info".
func DeviceInfoTopic() string { return Topic{Kind: KindDeviceInfo}.String() }

// SensorInfoTopic returns "/device_0/sensor_<s>/info".
func SensorInfoTopic(s int) string { return Topic{Kind: KindSensorInfo, Sensor: s}.String() }

// PropertyTopic returns "/device_0/sensor_<s>/property" (file version 2 only).
func PropertyTopic(s int) string { return Topic{Kind: KindProperty, Sensor: s}.String() }

// PostProcessingTopic returns "/device_0/sensor_<s>/post_processing" (file version >= 4).
func PostProcessingTopic(s int) string { return Topic{Kind: KindPostProcessing, Sensor: s}.String() }

// OptionValueTopic returns "/device_0/sensor_<s>/option/<Name>/value" with
// the option name's spaces written as '_'.
func OptionValueTopic(s int, o sensor.Option) string {
	return Topic{Kind: KindOptionValue, Sensor: s, OptionName: o.String()}.String()
}

// OptionDescriptionTopic returns "/device_0/sensor_<s>/option/<Name>/description".
func OptionDescriptionTopic(s int, o sensor.Option) string {
	return Topic{Kind: KindOptionDescription, Sensor: s, OptionName: o.String()}.String()
}

// NotificationTopic returns "/device_0/sensor_<s>/notification/<Category Name>"
// (category name with spaces).
func NotificationTopic(s int, c sensor.NotificationCategory) string {
	return Topic{Kind: KindNotification, Sensor: s, Category: c.String()}.String()
}

// StreamTopic returns the topic of kind k of stream st, index i, on sensor s,
// for the stream kinds (KindStreamInfo ... KindPoseMetadata except
// KindExtrinsics, see ExtrinsicsTopic).
func StreamTopic(k TopicKind, s int, st sensor.Stream, i int) string {
	return Topic{Kind: k, Sensor: s, Stream: st, Index: i}.String()
}

// StreamInfoTopic returns ".../<Stream>_<i>/info".
func StreamInfoTopic(s int, st sensor.Stream, i int) string {
	return StreamTopic(KindStreamInfo, s, st, i)
}

// CameraInfoTopic returns ".../<Stream>_<i>/info/camera_info".
func CameraInfoTopic(s int, st sensor.Stream, i int) string {
	return StreamTopic(KindCameraInfo, s, st, i)
}

// ImuIntrinsicTopic returns ".../<Stream>_<i>/imu_intrinsic".
func ImuIntrinsicTopic(s int, st sensor.Stream, i int) string {
	return StreamTopic(KindImuIntrinsic, s, st, i)
}

// ExtrinsicsTopic returns ".../<Stream>_<i>/tf/<g>".
func ExtrinsicsTopic(s int, st sensor.Stream, i int, group uint32) string {
	return Topic{Kind: KindExtrinsics, Sensor: s, Stream: st, Index: i, Group: group}.String()
}

// PoseTopics returns the pose transform, accel and twist data topics.
func PoseTopics(s int, st sensor.Stream, i int) (transform, accel, twist string) {
	return StreamTopic(KindPoseTransform, s, st, i), StreamTopic(KindPoseAccel, s, st, i),
		StreamTopic(KindPoseTwist, s, st, i)
}

// FrameDataKind returns the data topic kind of a stream's frames:
// KindImageData, KindImuData or KindPoseTransform.
func FrameDataKind(st sensor.Stream) (TopicKind, error) {
	k, ok := StreamKind(st)
	if !ok {
		return KindUnknown, fmt.Errorf("%w: %s", ErrNoFrameTopic, st)
	}
	return [...]TopicKind{sensor.KindVideo: KindImageData, sensor.KindMotion: KindImuData, sensor.KindPose: KindPoseTransform}[k], nil
}

// FrameMetadataKind returns the metadata topic kind of a stream's frames:
// KindImageMetadata, KindImuMetadata or KindPoseMetadata.
func FrameMetadataKind(st sensor.Stream) (TopicKind, error) {
	k, ok := StreamKind(st)
	if !ok {
		return KindUnknown, fmt.Errorf("%w: %s", ErrNoFrameTopic, st)
	}
	return [...]TopicKind{sensor.KindVideo: KindImageMetadata, sensor.KindMotion: KindImuMetadata, sensor.KindPose: KindPoseMetadata}[k], nil
}

// FrameDataTopic returns the frame data topic of a stream (".../image/data",
// ".../imu/data" or ".../pose/transform/data").
func FrameDataTopic(s int, st sensor.Stream, i int) (string, error) {
	k, err := FrameDataKind(st)
	if err != nil {
		return "", err
	}
	return StreamTopic(k, s, st, i), nil
}

// FrameMetadataTopic returns the frame metadata topic of a stream.
func FrameMetadataTopic(s int, st sensor.Stream, i int) (string, error) {
	k, err := FrameMetadataKind(st)
	if err != nil {
		return "", err
	}
	return StreamTopic(k, s, st, i), nil
}
