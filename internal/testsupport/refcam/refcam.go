// Package refcam holds the synthetic camera's configurations that reproduce
// the reference bags of testdata/librealsense (the rsgen command lines), for
// the tests and tools that compare against them.
package refcam

import (
	"time"

	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// Names lists the reference bags Config knows.
var Names = []string{
	"depth_color", "depth_color_ir2_uncompressed", "motion_accel_gyro", "pose",
	"options_pause_notify", "metadata_rich",
}

// Config returns the configuration matching the rsgen command line
// of a reference bag of testdata/librealsense (name without ".bag"). Speed is
// 0 and no pause callbacks are set; set Speed 1 to pace like rsgen and
// OnPause/OnResume of its script (synthscript.Of) to pause a recorder. The
// bag-level option --no-compress has no counterpart here.
func Config(name string) (software.SyntheticConfig, bool) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	switch name {
	case "depth_color":
		return software.SyntheticConfig{Depth: &software.Video{Width: 424, Height: 240, FPS: 30}, Color: &software.Video{Width: 424, Height: 240, FPS: 30},
			Frames: 30, Metadata: software.MetadataBasic}, true
	case "depth_color_ir2_uncompressed":
		return software.SyntheticConfig{Depth: &software.Video{Width: 256, Height: 144, FPS: 30}, Color: &software.Video{Width: 320, Height: 180, FPS: 30},
			Infrared: &software.Video{Width: 256, Height: 144, FPS: 30}, InfraredCount: 2, Frames: 12, Metadata: software.MetadataBasic}, true
	case "motion_accel_gyro":
		return software.SyntheticConfig{AccelFPS: 250, GyroFPS: 200, Duration: ms(1500), Metadata: software.MetadataBasic,
			Info: map[sensor.CameraInfo]string{sensor.CameraInfoName: "Intel RealSense D435I", sensor.CameraInfoProductId: "0B3A"}}, true
	case "pose":
		return software.SyntheticConfig{PoseFPS: 200, Duration: ms(1000), Metadata: software.MetadataBasic,
			Info: map[sensor.CameraInfo]string{
				sensor.CameraInfoName: "Intel RealSense T265", sensor.CameraInfoProductId: "0B37",
				sensor.CameraInfoProductLine: "T200", sensor.CameraInfoSerialNumber: "905312110116",
				sensor.CameraInfoFirmwareVersion: "0.2.0.951", sensor.CameraInfoRecommendedFirmwareVersion: "",
				sensor.CameraInfoAdvancedMode: "", sensor.CameraInfoDebugOpCode: "", sensor.CameraInfoCameraLocked: "",
				sensor.CameraInfoAsicSerialNumber: "", sensor.CameraInfoFirmwareUpdateId: "",
				sensor.CameraInfoUsbTypeDescriptor: "3.1",
			}}, true
	case "options_pause_notify":
		cfg := software.SyntheticConfig{Depth: &software.Video{Width: 256, Height: 144, FPS: 30}, Color: &software.Video{Width: 320, Height: 180, FPS: 30},
			Frames: 45, Metadata: software.MetadataBasic,
			SensorStart: map[string]time.Duration{"color": ms(100)},
		}
		*synthscript.Of(&cfg) = synthscript.Script{
			Set: []synthscript.OptionValue{{Sensor: "depth", Option: sensor.OptionExposure, Value: 20000}, {Sensor: "depth", Option: sensor.OptionLaserPower, Value: 210}, {Sensor: "color", Option: sensor.OptionGain, Value: 80}},
			Changes: []synthscript.OptionChangeAt{
				{At: ms(400), OptionValue: synthscript.OptionValue{Sensor: "depth", Option: sensor.OptionExposure, Value: 33000}},
				{At: ms(400), OptionValue: synthscript.OptionValue{Sensor: "depth", Option: sensor.OptionAsicTemperature, Value: 41.5}},
				{At: ms(1100), OptionValue: synthscript.OptionValue{Sensor: "color", Option: sensor.OptionBrightness, Value: 12}},
			},
			Notifications: []synthscript.NotificationAt{
				{At: ms(200), Sensor: "depth", Description: "depth hardware event at 200 ms"},
				{At: ms(1200), Sensor: "color", Description: "color hardware event at 1200 ms"},
			},
			PauseAt: ms(500), ResumeAt: ms(900),
		}
		return cfg, true
	case "metadata_rich":
		bc := sensor.DistortionBrownConrady
		return software.SyntheticConfig{Depth: &software.Video{Width: 256, Height: 144, FPS: 15}, Color: &software.Video{Width: 320, Height: 180, FPS: 15},
			Infrared: &software.Video{Width: 256, Height: 144, FPS: 15}, InfraredCount: 1, Frames: 20, Metadata: software.MetadataRich,
			Domains:          map[sensor.Stream]sensor.TimestampDomain{sensor.StreamColor: sensor.TimestampDomainSystemTime, sensor.StreamInfrared: sensor.TimestampDomainGlobalTime},
			FirstFrameNumber: 1000, GapEvery: 4, ColorDistortion: &bc}, true
	}
	return software.SyntheticConfig{}, false
}
