// Package uvc parses the USB Video Class wire formats the usb driver reads:
// the class-specific descriptors of a raw configuration descriptor, the
// probe/commit control, and the payload header of each transfer.
package uvc

import (
	"encoding/binary"
	"fmt"
)

// Descriptor types (USB 2.0 specification, Table 9-5; USB 3.0 adds the
// interface association descriptor, 0x0B; UVC 1.5 §3.4 / Table A-4 defines
// CS_INTERFACE 0x24 and CS_ENDPOINT 0x25).
const (
	DescConfig       = 0x02
	DescInterface    = 0x04
	DescEndpoint     = 0x05
	DescIAD          = 0x0B
	DescCSInterface  = 0x24
	DescCSEndpoint   = 0x25
	ClassVideo       = 0x0E // UVC 1.5 Table A-1 CC_VIDEO
	ClassHID         = 0x03 // HID 1.11 §4.1
	SubclassVC       = 0x01 // UVC 1.5 Table A-2 SC_VIDEOCONTROL
	SubclassVS       = 0x02 // UVC 1.5 Table A-2 SC_VIDEOSTREAMING
	ConfigHeaderSize = 9    // USB 2.0 Table 9-10
)

// Walk calls f for every descriptor of a configuration descriptor after
// checking the configuration header and every bLength.
func Walk(raw []byte, f func(off int, d []byte) error) error {
	if len(raw) < ConfigHeaderSize || raw[1] != DescConfig {
		return fmt.Errorf("usb: configuration descriptor: %d bytes without a configuration header", len(raw))
	}
	total := int(binary.LittleEndian.Uint16(raw[2:]))
	if total > len(raw) {
		return fmt.Errorf("usb: configuration descriptor: wTotalLength %d exceeds the %d bytes read", total, len(raw))
	}
	raw = raw[:total]
	for off := 0; off < len(raw); {
		n := int(raw[off])
		if n < 2 || off+n > len(raw) {
			return fmt.Errorf("usb: configuration descriptor: bad bLength %d at offset %d of %d", n, off, len(raw))
		}
		if err := f(off, raw[off:off+n]); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// UVC class-specific VideoControl interface descriptor subtypes (UVC 1.5
// Table A-5).
const (
	VcHeader         = 0x01
	VcInputTerminal  = 0x02
	VcOutputTerminal = 0x03
	VcSelectorUnit   = 0x04
	VcProcessingUnit = 0x05
	VcExtensionUnit  = 0x06
)

// UVC class-specific VideoStreaming interface descriptor subtypes (UVC 1.5
// Table A-6).
const (
	vsInputHeader        = 0x01
	vsFormatUncompressed = 0x04
	vsFrameUncompressed  = 0x05
	vsFormatMJPEG        = 0x06
	vsFrameMJPEG         = 0x07
	vsFormatFrameBased   = 0x10
	vsFrameFrameBased    = 0x11
	terminalTypeCamera   = 0x0201 // ITT_CAMERA, UVC 1.5 Table B-2
	IntervalUnitsPerSec  = 10_000_000
)

// GUID is a 16-byte GUID in USB (little-endian first three fields) order.
type GUID [16]byte

// String formats g as 8-4-4-4-12 hex digits.
func (g GUID) String() string {
	return fmt.Sprintf("%08X-%04X-%04X-%X-%X", binary.LittleEndian.Uint32(g[0:]), binary.LittleEndian.Uint16(g[4:]),
		binary.LittleEndian.Uint16(g[6:]), g[8:10], g[10:])
}

// FourCC returns the fourcc of a UVC format GUID: formats are named by
// GUIDs "XXXXXXXX-0000-0010-8000-00AA00389B71" whose first field is the
// fourcc (UVC 1.5 Payload_uncompressed §2.2, Table 2-1). ok is false for
// GUIDs of another shape.
func (g GUID) FourCC() (string, bool) {
	tail := [12]byte{0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}
	if [12]byte(g[4:]) != tail {
		return "", false
	}
	return string(g[:4]), true
}

// FrameDesc is one frame (resolution) descriptor of a format.
type FrameDesc struct {
	Index           int
	Width, Height   int
	MaxFrameSize    int      // dwMaxVideoFrameBufferSize (uncompressed only; else 0)
	BytesPerLine    int      // dwBytesPerLine (frame-based only; else 0)
	DefaultInterval uint32   // 100 ns units
	Intervals       []uint32 // discrete intervals, 100 ns units
}

// FormatDesc is one format descriptor of a VideoStreaming interface.
type FormatDesc struct {
	Index        int
	GUID         GUID
	FourCC       string
	BitsPerPixel int
	DefaultFrame int
	FrameBased   bool
	Frames       []FrameDesc
}

// StreamingInterface is a UVC VideoStreaming interface.
type StreamingInterface struct {
	Interface int
	Endpoint  uint8 // bEndpointAddress of the VS input header
	Formats   []FormatDesc
}

// Unit is a UVC unit or terminal with controls.
type Unit struct {
	ID       int
	Type     int  // VcInputTerminal, VcProcessingUnit, VcExtensionUnit
	GUID     GUID // extension units only
	Controls []byte
}

// ControlInterface is a UVC VideoControl interface with its streaming
// interfaces.
type ControlInterface struct {
	Interface  int
	UVCVersion uint16 // bcdUVC, e.g. 0x0110
	ClockHz    uint32
	Units      []Unit
	Streams    []StreamingInterface
}

// Unit returns the unit with the given type (and GUID for extension units).
func (c *ControlInterface) Unit(typ int, guid *GUID) (Unit, bool) {
	for _, u := range c.Units {
		if u.Type == typ && (guid == nil || u.GUID == *guid) {
			return u, true
		}
	}
	return Unit{}, false
}

// ParseUVC parses the UVC class-specific descriptors of a raw configuration
// descriptor (UVC 1.5 §3.7 VideoControl and §3.9 VideoStreaming interface
// descriptors): one ControlInterface per VideoControl interface, with the
// VideoStreaming interfaces its header lists.
func ParseUVC(raw []byte) ([]ControlInterface, error) {
	var (
		vcs      []ControlInterface
		vs       = map[int]*StreamingInterface{}
		vsOrder  []int
		owner    = map[int]int{} // VS interface -> index in vcs
		curIntf  = -1
		curClass uint8
		curSub   uint8
		curVS    *StreamingInterface
		curFmt   *FormatDesc
	)
	err := Walk(raw, func(off int, d []byte) error {
		bad := func(what string, want int) error {
			return fmt.Errorf("usb: %s descriptor at offset %d is %d bytes, want %d", what, off, len(d), want)
		}
		switch d[1] {
		case DescInterface:
			if len(d) < 9 {
				return bad("interface", 9)
			}
			curIntf, curClass, curSub = int(d[2]), d[5], d[6]
			curVS, curFmt = nil, nil
			if curClass == ClassVideo && curSub == SubclassVS && d[3] == 0 {
				if _, ok := vs[curIntf]; !ok {
					vs[curIntf] = &StreamingInterface{Interface: curIntf}
					vsOrder = append(vsOrder, curIntf)
				}
				curVS = vs[curIntf]
			}
			return nil
		case DescCSInterface:
		default:
			return nil
		}
		if curClass != ClassVideo || len(d) < 3 {
			return nil
		}
		if curSub == SubclassVC {
			switch d[2] {
			case VcHeader:
				if len(d) < 12 || len(d) < 12+int(d[11]) {
					return bad("VC header", 12)
				}
				vcs = append(vcs, ControlInterface{Interface: curIntf, UVCVersion: binary.LittleEndian.Uint16(d[3:]),
					ClockHz: binary.LittleEndian.Uint32(d[7:])})
				for _, n := range d[12 : 12+int(d[11])] {
					owner[int(n)] = len(vcs) - 1
				}
			case VcInputTerminal:
				if len(vcs) == 0 || len(d) < 8 {
					return bad("input terminal", 8)
				}
				u := Unit{ID: int(d[3]), Type: VcInputTerminal}
				if binary.LittleEndian.Uint16(d[4:]) == terminalTypeCamera && len(d) >= 15 && len(d) >= 15+int(d[14]) {
					u.Controls = append([]byte(nil), d[15:15+int(d[14])]...)
				}
				vcs[len(vcs)-1].Units = append(vcs[len(vcs)-1].Units, u)
			case VcProcessingUnit:
				if len(vcs) == 0 || len(d) < 8 || len(d) < 8+int(d[7]) {
					return bad("processing unit", 10)
				}
				vcs[len(vcs)-1].Units = append(vcs[len(vcs)-1].Units,
					Unit{ID: int(d[3]), Type: VcProcessingUnit, Controls: append([]byte(nil), d[8:8+int(d[7])]...)})
			case VcExtensionUnit:
				if len(vcs) == 0 || len(d) < 24 {
					return bad("extension unit", 24)
				}
				p := int(d[21])
				if len(d) < 23+p || len(d) < 23+p+int(d[22+p]) {
					return bad("extension unit", 24+p)
				}
				n := int(d[22+p])
				u := Unit{ID: int(d[3]), Type: VcExtensionUnit, Controls: append([]byte(nil), d[23+p:23+p+n]...)}
				copy(u.GUID[:], d[4:20])
				vcs[len(vcs)-1].Units = append(vcs[len(vcs)-1].Units, u)
			}
			return nil
		}
		if curSub != SubclassVS || curVS == nil {
			return nil
		}
		switch d[2] {
		case vsInputHeader:
			if len(d) < 13 {
				return bad("VS input header", 13)
			}
			curVS.Endpoint = d[6]
		case vsFormatUncompressed, vsFormatFrameBased:
			if len(d) < 27 {
				return bad("VS format", 27)
			}
			f := FormatDesc{Index: int(d[3]), BitsPerPixel: int(d[21]), DefaultFrame: int(d[22]), FrameBased: d[2] == vsFormatFrameBased}
			copy(f.GUID[:], d[5:21])
			if cc, ok := f.GUID.FourCC(); ok {
				f.FourCC = cc
			}
			curVS.Formats = append(curVS.Formats, f)
			curFmt = &curVS.Formats[len(curVS.Formats)-1]
		case vsFormatMJPEG:
			if len(d) < 11 {
				return bad("VS MJPEG format", 11)
			}
			curVS.Formats = append(curVS.Formats, FormatDesc{Index: int(d[3]), FourCC: "MJPG", DefaultFrame: int(d[6])})
			curFmt = &curVS.Formats[len(curVS.Formats)-1]
		case vsFrameUncompressed, vsFrameFrameBased, vsFrameMJPEG:
			if curFmt == nil {
				return fmt.Errorf("usb: frame descriptor at offset %d without a format", off)
			}
			if len(d) < 26 {
				return bad("VS frame", 26)
			}
			fr := FrameDesc{Index: int(d[3]), Width: int(binary.LittleEndian.Uint16(d[5:])), Height: int(binary.LittleEndian.Uint16(d[7:]))}
			var at int // offset of dwDefaultFrameInterval
			if d[2] == vsFrameFrameBased {
				at = 17 // no dwMaxVideoFrameBufferSize (UVC 1.5 Payload_frame_based Table 3-2)
			} else {
				fr.MaxFrameSize = int(binary.LittleEndian.Uint32(d[17:]))
				at = 21
			}
			fr.DefaultInterval = binary.LittleEndian.Uint32(d[at:])
			n := int(d[at+4])
			ivs := at + 5
			if d[2] == vsFrameFrameBased {
				fr.BytesPerLine = int(binary.LittleEndian.Uint32(d[at+5:]))
				ivs += 4
			}
			if n == 0 {
				n = 3 // continuous: min, max, step
			}
			if len(d) < ivs+4*n {
				return bad("VS frame", ivs+4*n)
			}
			for i := 0; i < n; i++ {
				fr.Intervals = append(fr.Intervals, binary.LittleEndian.Uint32(d[ivs+4*i:]))
			}
			if d[at+4] == 0 {
				fr.Intervals = continuous(fr.Intervals[0], fr.Intervals[1], fr.Intervals[2])
			}
			curFmt.Frames = append(curFmt.Frames, fr)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range vsOrder {
		i, ok := owner[n]
		if !ok {
			continue
		}
		vcs[i].Streams = append(vcs[i].Streams, *vs[n])
	}
	return vcs, nil
}

// continuous expands a continuous interval range into the intervals of whole
// frame rates it contains.
func continuous(lo, hi, step uint32) []uint32 {
	var out []uint32
	for _, fps := range []uint32{90, 60, 30, 15, 6} {
		iv := IntervalUnitsPerSec / fps
		if iv >= lo && iv <= hi && (step == 0 || (iv-lo)%step == 0) {
			out = append(out, iv)
		}
	}
	return out
}

// DepthXU is the GUID of the D400 depth extension unit (librealsense's
// public src/ds/ds-private.h, depth_xu: C9606CCB-594C-4D25-AF47-CCC496435995).
var DepthXU = GUID{0xCB, 0x6C, 0x60, 0xC9, 0x4C, 0x59, 0x25, 0x4D, 0xAF, 0x47, 0xCC, 0xC4, 0x96, 0x43, 0x59, 0x95}
