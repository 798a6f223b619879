package usb

import (
	"context"
	"encoding/binary"
	"fmt"
)

// UVC class-specific request codes (UVC 1.5 Table A-8) and the request types
// addressing an interface (USB 2.0 Table 9-2: class, interface recipient).
const (
	reqSetCur = 0x01
	reqGetCur = 0x81
	reqGetMin = 0x82
	reqGetMax = 0x83
	reqGetRes = 0x84
	reqGetDef = 0x87

	rtClassOut = 0x21 // host-to-device | class | interface
	rtClassIn  = 0xA1 // device-to-host | class | interface

	vsProbeControl  = 0x01 // VS_PROBE_CONTROL, UVC 1.5 Table A-14
	vsCommitControl = 0x02 // VS_COMMIT_CONTROL
)

// probeControlSize returns the length of the video probe and commit control
// for a UVC version: 26 bytes in UVC 1.0, 34 in 1.1 and 48 in 1.5 (UVC 1.5
// §4.3.1.1, Table 4-75).
func probeControlSize(bcdUVC uint16) int {
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

// parseProbe decodes a probe or commit control of at least 26 bytes.
func parseProbe(b []byte) (Probe, error) {
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

// negotiate runs the UVC probe/commit sequence (UVC 1.5 §4.3.1.1.1) on
// VideoStreaming interface intf: GET_MAX probe, SET_CUR probe with the
// wanted format, frame and interval, GET_CUR probe for what the device
// accepted, SET_CUR commit of that. It returns the committed control.
func negotiate(ctx context.Context, h Handle, intf int, bcdUVC uint16, want Probe) (Probe, error) {
	n := probeControlSize(bcdUVC)
	buf := make([]byte, n)
	probe := uint16(vsProbeControl) << 8
	idx := uint16(intf)
	if _, err := h.Control(ctx, Setup{rtClassIn, reqGetMax, probe, idx}, buf); err != nil {
		return Probe{}, fmt.Errorf("usb: interface %d: probe GET_MAX: %w", intf, err)
	}
	want.Hint = 1 // dwFrameInterval is fixed (bmHint bit 0)
	if _, err := h.Control(ctx, Setup{rtClassOut, reqSetCur, probe, idx}, want.Marshal(n)); err != nil {
		return Probe{}, fmt.Errorf("usb: interface %d: probe SET_CUR: %w", intf, err)
	}
	got, err := h.Control(ctx, Setup{rtClassIn, reqGetCur, probe, idx}, buf)
	if err != nil {
		return Probe{}, fmt.Errorf("usb: interface %d: probe GET_CUR: %w", intf, err)
	}
	p, err := parseProbe(buf[:got])
	if err != nil {
		return Probe{}, fmt.Errorf("usb: interface %d: probe GET_CUR: %w", intf, err)
	}
	if p.FormatIndex != want.FormatIndex || p.FrameIndex != want.FrameIndex {
		return Probe{}, fmt.Errorf("usb: interface %d: device probed format %d frame %d, want %d/%d",
			intf, p.FormatIndex, p.FrameIndex, want.FormatIndex, want.FrameIndex)
	}
	if _, err := h.Control(ctx, Setup{rtClassOut, reqSetCur, uint16(vsCommitControl) << 8, idx}, buf[:got]); err != nil {
		return Probe{}, fmt.Errorf("usb: interface %d: commit SET_CUR: %w", intf, err)
	}
	return p, nil
}
