package uvc

import (
	"encoding/binary"
	"fmt"
)

// UVC class-specific request codes (UVC 1.5 Table A-8) and the request types
// addressing an interface (USB 2.0 Table 9-2: class, interface recipient).
const (
	ReqSetCur = 0x01
	ReqGetCur = 0x81
	ReqGetMin = 0x82
	ReqGetMax = 0x83
	ReqGetRes = 0x84
	ReqGetDef = 0x87

	RtClassOut = 0x21 // host-to-device | class | interface
	RtClassIn  = 0xA1 // device-to-host | class | interface

	VsProbeControl  = 0x01 // VS_PROBE_CONTROL, UVC 1.5 Table A-14
	VsCommitControl = 0x02 // VS_COMMIT_CONTROL
)

// ProbeControlSize returns the length of the video probe and commit control
// for a UVC version: 26 bytes in UVC 1.0, 34 in 1.1 and 48 in 1.5 (UVC 1.5
// §4.3.1.1, Table 4-75).
func ProbeControlSize(bcdUVC uint16) int {
	switch {
	case bcdUVC >= 0x0150:
		return 48
	case bcdUVC >= 0x0110:
		return 34
	}
	return 26
}

// Probe is the video probe and commit control (UVC 1.5 Table 4-75); only the
// fields the driver uses are named.
type Probe struct {
	Hint              uint16 // bmHint
	FormatIndex       uint8
	FrameIndex        uint8
	FrameInterval     uint32 // 100 ns units
	MaxVideoFrameSize uint32
	MaxPayloadSize    uint32 // dwMaxPayloadTransferSize
	ClockFrequency    uint32 // UVC 1.1 and later
}

// Marshal returns the n-byte control for p.
func (p Probe) Marshal(n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b[0:], p.Hint)
	b[2] = p.FormatIndex
	b[3] = p.FrameIndex
	binary.LittleEndian.PutUint32(b[4:], p.FrameInterval)
	binary.LittleEndian.PutUint32(b[18:], p.MaxVideoFrameSize)
	binary.LittleEndian.PutUint32(b[22:], p.MaxPayloadSize)
	if n >= 34 {
		binary.LittleEndian.PutUint32(b[26:], p.ClockFrequency)
	}
	return b
}

// ParseProbe decodes a probe or commit control of at least 26 bytes.
func ParseProbe(b []byte) (Probe, error) {
	if len(b) < 26 {
		return Probe{}, fmt.Errorf("usb: probe control is %d bytes, want at least 26", len(b))
	}
	p := Probe{
		Hint: binary.LittleEndian.Uint16(b), FormatIndex: b[2], FrameIndex: b[3],
		FrameInterval:     binary.LittleEndian.Uint32(b[4:]),
		MaxVideoFrameSize: binary.LittleEndian.Uint32(b[18:]),
		MaxPayloadSize:    binary.LittleEndian.Uint32(b[22:]),
	}
	if len(b) >= 34 {
		p.ClockFrequency = binary.LittleEndian.Uint32(b[26:])
	}
	return p, nil
}
