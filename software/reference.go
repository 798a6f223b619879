package software

import (
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// DefaultRange returns a wide writable range around v (min −1e6, max 1e6,
// step 1, default v), the range the synthetic camera gives its options.
func DefaultRange(v float32) extensions.Range {
	return extensions.Range{Min: -1e6, Max: 1e6, Step: 1, Default: v}
}

// ReferenceNames lists the reference bags ReferenceConfig knows.
var ReferenceNames = []string{
	"depth_color", "depth_color_ir2_uncompressed", "motion_accel_gyro", "pose",
	"options_pause_notify", "metadata_rich",
}

// ReferenceConfig returns the configuration matching the rsgen command line
// of a reference bag of testdata/librealsense (name without ".bag"). Speed is
// 0 and no pause callbacks are set; set Speed 1 to pace like rsgen and
// OnPause/OnResume to pause a recorder. The bag-level option
// --no-compress has no counterpart here.
func ReferenceConfig(name string) (SyntheticConfig, bool) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	switch name {
	case "depth_color":
		return SyntheticConfig{Depth: &Video{Width: 424, Height: 240, FPS: 30}, Color: &Video{Width: 424, Height: 240, FPS: 30},
			Frames: 30, Metadata: MetadataBasic}, true
	case "depth_color_ir2_uncompressed":
		return SyntheticConfig{Depth: &Video{Width: 256, Height: 144, FPS: 30}, Color: &Video{Width: 320, Height: 180, FPS: 30},
			Infrared: &Video{Width: 256, Height: 144, FPS: 30}, InfraredCount: 2, Frames: 12, Metadata: MetadataBasic}, true
	case "motion_accel_gyro":
		return SyntheticConfig{AccelFPS: 250, GyroFPS: 200, Duration: ms(1500), Metadata: MetadataBasic,
			Info: map[sensor.CameraInfo]string{sensor.CameraInfoName: "Intel RealSense D435I", sensor.CameraInfoProductId: "0B3A"}}, true
	case "pose":
		return SyntheticConfig{PoseFPS: 200, Duration: ms(1000), Metadata: MetadataBasic,
			Info: map[sensor.CameraInfo]string{
				sensor.CameraInfoName: "Intel RealSense T265", sensor.CameraInfoProductId: "0B37",
				sensor.CameraInfoProductLine: "T200", sensor.CameraInfoSerialNumber: "905312110116",
				sensor.CameraInfoFirmwareVersion: "0.2.0.951", sensor.CameraInfoRecommendedFirmwareVersion: "",
				sensor.CameraInfoAdvancedMode: "", sensor.CameraInfoDebugOpCode: "", sensor.CameraInfoCameraLocked: "",
				sensor.CameraInfoAsicSerialNumber: "", sensor.CameraInfoFirmwareUpdateId: "",
				sensor.CameraInfoUsbTypeDescriptor: "3.1",
			}}, true
	case "options_pause_notify":
		return SyntheticConfig{Depth: &Video{Width: 256, Height: 144, FPS: 30}, Color: &Video{Width: 320, Height: 180, FPS: 30},
			Frames: 45, Metadata: MetadataBasic,
			Set: []OptionValue{{"depth", sensor.OptionExposure, 20000}, {"depth", sensor.OptionLaserPower, 210}, {"color", sensor.OptionGain, 80}},
			Changes: []OptionChangeAt{
				{ms(400), OptionValue{"depth", sensor.OptionExposure, 33000}},
				{ms(400), OptionValue{"depth", sensor.OptionAsicTemperature, 41.5}},
				{ms(1100), OptionValue{"color", sensor.OptionBrightness, 12}},
			},
			Notifications: []NotificationAt{
				{ms(200), "depth", "depth hardware event at 200 ms"},
				{ms(1200), "color", "color hardware event at 1200 ms"},
			},
			PauseAt: ms(500), ResumeAt: ms(900),
			SensorStart: map[string]time.Duration{"color": ms(100)},
		}, true
	case "metadata_rich":
		bc := sensor.DistortionBrownConrady
		return SyntheticConfig{Depth: &Video{Width: 256, Height: 144, FPS: 15}, Color: &Video{Width: 320, Height: 180, FPS: 15},
			Infrared: &Video{Width: 256, Height: 144, FPS: 15}, InfraredCount: 1, Frames: 20, Metadata: MetadataRich,
			Domains:          map[sensor.Stream]sensor.TimestampDomain{sensor.StreamColor: sensor.TimestampDomainSystemTime, sensor.StreamInfrared: sensor.TimestampDomainGlobalTime},
			FirstFrameNumber: 1000, GapEvery: 4, ColorDistortion: &bc}, true
	}
	return SyntheticConfig{}, false
}
