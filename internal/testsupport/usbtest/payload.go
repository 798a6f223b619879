package usbtest

import "encoding/binary"

// Payload header bits (UVC 1.5 Table 2-5).
const (
	FID = 0x01
	EOF = 0x02
	PTS = 0x04
	SCR = 0x08
	ERR = 0x40
	EOH = 0x80
)

// Payload builds one UVC payload: a 12-byte header (bHeaderLength,
// bmHeaderInfo with PTS and SCR present, PTS, SCR) plus the metadata blocks
// inside the header, then data. bits adds FID/EOF/ERR.
func Payload(bits uint8, pts uint32, meta []byte, data []byte) []byte {
	hl := 12 + len(meta)
	p := make([]byte, hl, hl+len(data))
	p[0] = byte(hl)
	p[1] = bits | PTS | SCR | EOH
	binary.LittleEndian.PutUint32(p[2:], pts)
	binary.LittleEndian.PutUint32(p[6:], pts) // SCR STC
	copy(p[12:], meta)
	return append(p, data...)
}

// Metadata block ids (librealsense src/metadata.h, md_type).
const (
	MDDepthControl  = 0x80000000
	MDCaptureTiming = 0x80000001
	MDConfiguration = 0x80000002
	MDRGBControl    = 0x80000005
)

// Block builds a RealSense metadata block: md_header (type, size including
// the header), version 1, flags, then the uint32 fields.
func Block(id uint32, flags uint32, fields ...uint32) []byte {
	b := make([]byte, 16+4*len(fields))
	binary.LittleEndian.PutUint32(b, id)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	binary.LittleEndian.PutUint32(b[8:], 1)
	binary.LittleEndian.PutUint32(b[12:], flags)
	for i, f := range fields {
		binary.LittleEndian.PutUint32(b[16+4*i:], f)
	}
	return b
}

// CaptureTiming builds the 40-byte capture-timing block with frame counter,
// sensor timestamp (µs) and exposure (µs) valid.
func CaptureTiming(counter, sensorTS, exposure uint32) []byte {
	return Block(MDCaptureTiming, 1<<0|1<<1|1<<3, counter, sensorTS, 0, exposure, 0, 0)
}

// HIDReport builds a 32-byte IMU input report (librealsense
// src/hid/hid-types.h, REALSENSE_HID_REPORT).
func HIDReport(id uint8, timestampUs uint64, x, y, z int16) []byte {
	b := make([]byte, 32)
	b[0] = id
	binary.LittleEndian.PutUint64(b[2:], timestampUs)
	binary.LittleEndian.PutUint16(b[10:], uint16(x))
	binary.LittleEndian.PutUint16(b[12:], uint16(y))
	binary.LittleEndian.PutUint16(b[14:], uint16(z))
	return b
}
