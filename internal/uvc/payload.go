package uvc

import (
	"encoding/binary"
	"fmt"
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

// ParsePayloadHeader parses the header at the start of a payload.
func ParsePayloadHeader(p []byte) (PayloadHeader, error) {
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
