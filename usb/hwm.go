package usb

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
)

// Firmware command channel ("HW monitor") of D400 cameras. Facts from
// librealsense's public source:
//   - src/hw-monitor.h and src/hw-monitor.cpp (fill_usb_buffer): a command is
//     a 2-byte little-endian length that excludes the first 4 bytes, the
//     2-byte magic 0xCDAB, a 4-byte opcode, four 4-byte parameters, then
//     the command data: 24 bytes without data, at most 1024 in all
//     (HW_MONITOR_BUFFER_SIZE). The reply starts with the 4-byte opcode
//     echoed on success or a negative error code; the command's data follows.
//   - src/platform/uvc-option.cpp (command_transfer_over_xu::send_receive):
//     over the depth extension unit the command is written with SET_CUR to
//     control DS5_HWMONITOR (selector 1, src/ds/ds-private.h) zero-padded to
//     1024 bytes and the reply read back with GET_CUR of 1024 bytes; the
//     number of reply bytes after the opcode is the uint32 at offset 1020
//     (HW_MONITOR_DATA_SIZE_OFFSET).
const (
	hwmMagic        = 0xCDAB
	hwmBufferSize   = 1024
	hwmHeaderSize   = 24
	hwmSizeOffset   = 1020
	hwmXUSelector   = 1 // DS5_HWMONITOR
	hwmOpcodeLength = 4
)

// Firmware command opcodes (librealsense src/ds/ds-private.h, enum fw_cmd).
const (
	hwmMRD          = 0x01 // read a register: param1 address, param2 address+4
	hwmGLD          = 0x0F // legacy firmware log (the Debug Op Code camera info)
	hwmGVD          = 0x10 // camera details
	hwmGETINTCAL    = 0x15 // read a calibration table: param1 table id
	hwmSETADV       = 0x2B // write an advanced-mode control: param1 control, data the control
	hwmGETADV       = 0x2C // read an advanced-mode control: param1 control, param2 mode
	hwmUAMG         = 0x30 // advanced-mode status
	hwmMMER         = 0x4F // motion-module EEPROM read: param1 offset, param2 size
	hwmRECPARAMSGET = 0x7E // rectified intrinsics per resolution (fw 5.11.9.5 and later)
)

// hwmCommand returns the 1024-byte SET_CUR payload that carries firmware
// command op with its parameters and data, as the depth extension unit
// expects it. It fails when data does not fit.
func hwmCommand(op uint8, p1, p2, p3, p4 uint32, data []byte) ([]byte, error) {
	if hwmHeaderSize+len(data) > hwmBufferSize {
		return nil, fmt.Errorf("usb: firmware command %#02x: %d data bytes exceed the %d-byte buffer", op, len(data), hwmBufferSize-hwmHeaderSize)
	}
	b := make([]byte, hwmBufferSize)
	binary.LittleEndian.PutUint16(b[0:], uint16(hwmHeaderSize+len(data)-4))
	binary.LittleEndian.PutUint16(b[2:], hwmMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(op))
	for i, p := range []uint32{p1, p2, p3, p4} {
		binary.LittleEndian.PutUint32(b[8+4*i:], p)
	}
	copy(b[hwmHeaderSize:], data)
	return b, nil
}

// HWMError is a firmware command the camera refused: Code is the negative
// status it returned instead of the opcode.
type HWMError struct {
	Op   uint8
	Code int32
}

func (e *HWMError) Error() string {
	return fmt.Sprintf("usb: firmware command %#02x failed with status %d", e.Op, e.Code)
}

// parseHWMReply checks a 1024-byte GET_CUR reply to command op and returns
// the command's data (a view of b).
func parseHWMReply(op uint8, b []byte) ([]byte, error) {
	if len(b) < hwmBufferSize {
		return nil, fmt.Errorf("usb: firmware command %#02x: reply of %d bytes, want %d", op, len(b), hwmBufferSize)
	}
	got := binary.LittleEndian.Uint32(b)
	if got != uint32(op) {
		return nil, &HWMError{Op: op, Code: int32(got)}
	}
	n := binary.LittleEndian.Uint32(b[hwmSizeOffset:])
	if n > hwmSizeOffset-hwmOpcodeLength {
		return nil, fmt.Errorf("usb: firmware command %#02x: reply claims %d data bytes, at most %d fit", op, n, hwmSizeOffset-hwmOpcodeLength)
	}
	return b[hwmOpcodeLength : hwmOpcodeLength+int(n)], nil
}

// hwm is the firmware command channel of one camera: the depth extension
// unit of a VideoControl interface.
type hwm struct {
	mu   sync.Mutex // one command at a time: SET_CUR and GET_CUR pair up
	h    usbio.Handle
	intf int // VideoControl interface
	unit int // depth extension unit id
}

// command sends op and returns a copy of the reply data.
func (c *hwm) command(ctx context.Context, op uint8, p1, p2, p3, p4 uint32, data []byte) ([]byte, error) {
	out, err := hwmCommand(op, p1, p2, p3, p4, data)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := usbio.Setup{RequestType: uvc.RtClassOut, Request: uvc.ReqSetCur, Value: hwmXUSelector << 8, Index: uint16(c.unit)<<8 | uint16(c.intf)}
	if _, err := c.h.Control(ctx, s, out); err != nil {
		return nil, fmt.Errorf("usb: firmware command %#02x: SET_CUR: %w", op, err)
	}
	in := make([]byte, hwmBufferSize)
	s.RequestType, s.Request = uvc.RtClassIn, uvc.ReqGetCur
	n, err := c.h.Control(ctx, s, in)
	if err != nil {
		return nil, fmt.Errorf("usb: firmware command %#02x: GET_CUR: %w", op, err)
	}
	d, err := parseHWMReply(op, in[:n])
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), d...), nil
}
