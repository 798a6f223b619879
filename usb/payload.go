package usb

import (
	"encoding/binary"

	"github.com/rsbag/rsbag/sensor"
)

// RealSense metadata block ids and sizes (librealsense src/metadata.h:
// md_type, md_capture_timing, md_depth_control, md_rgb_control,
// md_configuration). md_size counts the 8-byte md_header too.
const (
	mdDepthControl  = 0x80000000
	mdCaptureTiming = 0x80000001
	mdConfiguration = 0x80000002
	mdRGBControl    = 0x80000005
	mdCaptureStats  = 0x00000003
)

// Metadata attribute bits (librealsense src/metadata.h,
// md_capture_timing_attributes, md_depth_control_attributes,
// md_rgb_control_attributes).
const (
	ctFrameCounter    = 1 << 0
	ctSensorTimestamp = 1 << 1
	ctExposure        = 1 << 3

	dcGain        = 1 << 0
	dcExposure    = 1 << 1
	dcLaserPower  = 1 << 2
	dcAEMode      = 1 << 3
	dcExpPriority = 1 << 4
	dcROI         = 1 << 5
	dcPreset      = 1 << 6
	dcEmitterMode = 1 << 7
	dcLEDPower    = 1 << 8
)

// frameMeta is what the metadata blocks of one frame carry.
type frameMeta struct {
	captureValid bool
	counter      uint32
	hasCounter   bool
	md           sensor.Metadata
	width        int // from the configuration block, 0 if absent
	height       int
}

// parseMetadata parses the RealSense metadata blocks of a payload header into
// m. Unknown blocks are skipped; a block whose size runs past the end stops
// parsing.
func parseMetadata(b []byte, m *frameMeta) {
	u32 := func(b []byte, field int) int64 { return int64(binary.LittleEndian.Uint32(b[field:])) }
	for len(b) >= 8 {
		id := binary.LittleEndian.Uint32(b)
		size := int(binary.LittleEndian.Uint32(b[4:]))
		if size < 8 || size > len(b) {
			return
		}
		blk := b[:size]
		b = b[size:]
		if len(blk) < 16 {
			continue
		}
		flags := binary.LittleEndian.Uint32(blk[12:])
		set := func(bit uint32, k sensor.MetadataKey, field int) {
			if flags&bit != 0 && field+4 <= len(blk) {
				m.md.Set(k, u32(blk, field))
			}
		}
		switch id {
		case mdCaptureTiming: // version, flags, frame_counter, sensor_timestamp, readout, exposure, interval, latency
			if size != 40 {
				continue
			}
			m.captureValid = true
			if flags&ctFrameCounter != 0 {
				m.counter, m.hasCounter = binary.LittleEndian.Uint32(blk[16:]), true
				m.md.Set(sensor.MetadataKeyFrameCounter, int64(m.counter))
			}
			set(ctSensorTimestamp, sensor.MetadataKeySensorTimestamp, 20)
		case mdDepthControl: // version, flags, gain, exposure, laser_power, ae_mode, exp_priority, roi l r t b, preset, emitter mode, led power
			set(dcGain, sensor.MetadataKeyGainLevel, 16)
			set(dcExposure, sensor.MetadataKeyActualExposure, 20)
			set(dcLaserPower, sensor.MetadataKeyFrameLaserPower, 24)
			set(dcAEMode, sensor.MetadataKeyAutoExposure, 28)
			set(dcExpPriority, sensor.MetadataKeyExposurePriority, 32)
			set(dcROI, sensor.MetadataKeyExposureRoiLeft, 36)
			set(dcROI, sensor.MetadataKeyExposureRoiRight, 40)
			set(dcROI, sensor.MetadataKeyExposureRoiTop, 44)
			set(dcROI, sensor.MetadataKeyExposureRoiBottom, 48)
			set(dcPreset, sensor.MetadataKeyPreset, 52)
			set(dcEmitterMode, sensor.MetadataKeyFrameEmitterMode, 56)
			if v, ok := m.md.Get(sensor.MetadataKeyFrameEmitterMode); ok {
				// librealsense: laser power mode is 1 when emitter mode == 1, else 0.
				lp := int64(0)
				if v == 1 {
					lp = 1
				}
				m.md.Set(sensor.MetadataKeyFrameLaserPowerMode, lp)
			}
			set(dcLEDPower, sensor.MetadataKeyFrameLedPower, 60)
		case mdRGBControl: // version, flags, then 14 uint32 controls in attribute-bit order
			keys := []sensor.MetadataKey{
				sensor.MetadataKeyBrightness, sensor.MetadataKeyContrast, sensor.MetadataKeySaturation,
				sensor.MetadataKeySharpness, sensor.MetadataKeyAutoExposure, sensor.MetadataKeyAutoWhiteBalanceTemperature,
				sensor.MetadataKeyGainLevel, sensor.MetadataKeyBacklightCompensation, sensor.MetadataKeyGamma,
				sensor.MetadataKeyHue, sensor.MetadataKeyActualExposure, sensor.MetadataKeyManualWhiteBalance,
				sensor.MetadataKeyPowerLineFrequency, sensor.MetadataKeyLowLightCompensation,
			}
			for i, k := range keys {
				set(1<<uint(i), k, 16+4*i)
			}
		case mdConfiguration: // version, flags, hw_type u8, sku_id u8, cookie u32, format u16, width u16, height u16, fps u16, trigger u16, calib u16
			if len(blk) >= 32 {
				if flags&(1<<4) != 0 {
					m.width = int(binary.LittleEndian.Uint16(blk[24:]))
				}
				if flags&(1<<5) != 0 {
					m.height = int(binary.LittleEndian.Uint16(blk[26:]))
				}
			}
		}
	}
}
