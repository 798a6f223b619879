package usb

import (
	"encoding/binary"
	"fmt"

	"github.com/rsbag/rsbag/sensor"
)

// UVC payload header bits (UVC 1.5 §2.4.3.3, Table 2-5).
const (
	hdrFID = 0x01
	hdrEOF = 0x02
	hdrPTS = 0x04
	hdrSCR = 0x08
	hdrSTI = 0x20
	hdrERR = 0x40
	hdrEOH = 0x80

	// uvcHeaderSize is the header with PTS and SCR: bHeaderLength,
	// bmHeaderInfo, 4-byte PTS, 6-byte SCR. RealSense metadata follows it
	// inside the header (librealsense src/metadata.h, metadata_raw).
	uvcHeaderSize = 12
)

// PayloadHeader is a parsed UVC payload header.
type PayloadHeader struct {
	Length   int // bHeaderLength
	Info     uint8
	PTS      uint32
	SCR      uint64 // 48 bits: STC (32) and SOF (16)
	HasPTS   bool
	HasSCR   bool
	Metadata []byte // bytes after the 12-byte header, within bHeaderLength
}

// FID returns the frame-id bit.
func (h PayloadHeader) FID() bool { return h.Info&hdrFID != 0 }

// EOF reports the end-of-frame bit.
func (h PayloadHeader) EOF() bool { return h.Info&hdrEOF != 0 }

// Err reports the error bit.
func (h PayloadHeader) Err() bool { return h.Info&hdrERR != 0 }

// parsePayloadHeader parses the header at the start of a payload.
func parsePayloadHeader(p []byte) (PayloadHeader, error) {
	if len(p) < 2 {
		return PayloadHeader{}, fmt.Errorf("usb: payload of %d bytes has no header", len(p))
	}
	h := PayloadHeader{Length: int(p[0]), Info: p[1]}
	if h.Length < 2 || h.Length > len(p) {
		return h, fmt.Errorf("usb: payload header length %d outside the %d-byte payload", h.Length, len(p))
	}
	at := 2
	if h.Info&hdrPTS != 0 {
		if h.Length < at+4 {
			return h, fmt.Errorf("usb: payload header of %d bytes too short for PTS", h.Length)
		}
		h.PTS, h.HasPTS = binary.LittleEndian.Uint32(p[at:]), true
		at += 4
	}
	if h.Info&hdrSCR != 0 {
		if h.Length < at+6 {
			return h, fmt.Errorf("usb: payload header of %d bytes too short for SCR", h.Length)
		}
		h.SCR = uint64(binary.LittleEndian.Uint32(p[at:])) | uint64(binary.LittleEndian.Uint16(p[at+4:]))<<32
		h.HasSCR = true
		at += 6
	}
	if h.Length > uvcHeaderSize && at == uvcHeaderSize {
		h.Metadata = p[uvcHeaderSize:h.Length]
	}
	return h, nil
}

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
