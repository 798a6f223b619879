package usbtest

import (
	"encoding/binary"
	"hash/crc32"
	"math"

	"github.com/rsbag/rsbag/internal/usbio"
)

// Firmware describes the firmware replies of a scripted D400 camera. The
// byte layouts are those of librealsense's public source: the command
// channel in src/hw-monitor.cpp and src/platform/uvc-option.cpp, GVD
// offsets in src/ds/ds-private.h (gvd_fields), the calibration tables in
// src/ds/d400/d400-private.h (d400_coefficients_table,
// d400_rgb_calibration_table) and src/ds/ds-private.h (table_header,
// ds_rect_resolutions, new_calibration_item, depth_table_control). The
// values are made up to resemble a D435 and are documented on
// DefaultFirmware; they are not read from a camera.
type Firmware struct {
	Version    [4]uint8 // major, minor, patch, build
	Serial     [6]byte  // optic module serial (GVD offset 48)
	ASICSerial [6]byte  // GVD offset 64
	Locked     bool
	Advanced   bool   // UAMG reports advanced mode
	DepthUnits uint32 // µm per depth unit in the advanced-mode depth table

	BaselineMM float32        // coefficients table baseline, signed as stored
	Rect       [16][4]float32 // rect_params: fx, fy, ppx, ppy per ds_rect_resolutions slot
	RectItems  []RectItem     // RECPARAMSGET reply (firmware 5.11.9.5 and later)

	ColorCalib    [2]uint16  // calib_width, calib_height
	ColorK        [9]float32 // normalized intrinsic, column-major
	ColorCoeffs   [5]float32
	ColorRotation [9]float32 // rotation_matrix_rect, column-major
	ColorTransMM  [3]float32 // translation_rect, mm

	// IMU is the motion-module calibration table the MMER command returns;
	// nil for a product without an IMU (no MMER command is scripted).
	IMU *IMUTable
}

// IMUTable is a depth-module v2 IMU calibration table (librealsense
// src/ds/ds-private.h, dm_v2_eeprom).
type IMUTable struct {
	ID                                uint16 // first two bytes; 0x0101 for this layout
	ExtrinsicValid, IntrinsicValid    bool
	DepthToIMURotation                [9]float32 // column-major
	DepthToIMUTranslation             [3]float32 // meters
	AccelSensitivity, GyroSensitivity [9]float32 // column-major
	AccelBias                         [3]float32 // m/s²
	GyroBias                          [3]float32 // deg/s, as stored
}

// DefaultIMUTable is the table of the scripted D435i after a user IMU
// calibration (rs-imu-calibration writes the intrinsics and leaves the
// extrinsics invalid, so librealsense uses its CAD values): accel
// sensitivity diagonal 1.0021, 0.9987, 1.0043 with 0.002 and -0.001
// cross-axis terms, bias (0.12, -0.05, 0.31) m/s²; gyro sensitivity the
// identity, bias (0.1, -0.2, 0.05) deg/s. The extrinsic block holds a
// translation that must be ignored.
func DefaultIMUTable() *IMUTable {
	return &IMUTable{
		ID: 0x0101, IntrinsicValid: true,
		DepthToIMURotation:    [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1},
		DepthToIMUTranslation: [3]float32{0.5, 0.5, 0.5},
		AccelSensitivity:      [9]float32{1.0021, 0.002, 0, -0.001, 0.9987, 0, 0, 0, 1.0043},
		AccelBias:             [3]float32{0.12, -0.05, 0.31},
		GyroSensitivity:       [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1},
		GyroBias:              [3]float32{0.1, -0.2, 0.05},
	}
}

// Bytes returns the 520-byte MMER reply: the 324-byte dm_v2_eeprom (outer
// header with the id as version, calib info header, calibration table
// header, flags, depth_to_imu, accel and gyro intrinsics, 96 reserved
// bytes, a 32-byte serial table) zero-padded to the size of
// eeprom_imu_table, the outer CRC covering everything after its header.
func (t *IMUTable) Bytes() []byte {
	var b []byte
	b = append(b, make([]byte, 32)...) // calib info header, calibration table header
	flag := func(v bool) byte {
		if v {
			return 1
		}
		return 0
	}
	b = append(b, flag(t.ExtrinsicValid), flag(t.IntrinsicValid), 0, 0)
	b = putF32s(b, t.DepthToIMURotation[:]...)
	b = putF32s(b, t.DepthToIMUTranslation[:]...)
	b = putF32s(b, t.AccelSensitivity[:]...)
	b = putF32s(b, t.AccelBias[:]...)
	b = putF32s(b, t.GyroSensitivity[:]...)
	b = putF32s(b, t.GyroBias[:]...)
	b = append(b, make([]byte, 96+32)...)
	b = append(b, make([]byte, 520-16-len(b))...)
	h := binary.LittleEndian.AppendUint16(nil, t.ID)
	h = binary.LittleEndian.AppendUint16(h, 0)
	h = binary.LittleEndian.AppendUint32(h, 308) // dm_v2_calib_info
	h = binary.LittleEndian.AppendUint32(h, 0)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(b))
	return append(h, b...)
}

// RectItem is one RECPARAMSGET entry.
type RectItem struct {
	Width, Height    uint16
	FX, FY, PPX, PPY float32
}

// RectResolutions are the ds_rect_resolutions slots (width, height); the
// reserved slots 10 and 11 are zero.
var RectResolutions = [16][2]int{
	{1920, 1080}, {1280, 720}, {640, 480}, {848, 480}, {640, 360}, {424, 240}, {320, 240}, {480, 270},
	{1280, 800}, {960, 540}, {0, 0}, {0, 0}, {640, 400}, {576, 576}, {720, 720}, {1152, 1152},
}

// DefaultFirmware returns the firmware of the scripted D435i:
//   - firmware 5.16.0.1, optic serial 012345678901 (the USB serial of
//     D435iDesc), ASIC serial 033142536475, unlocked, advanced mode on with
//     1000 µm (0.001 m) depth units;
//   - baseline -50.0 mm (a D435's 50 mm stereo baseline; librealsense
//     reports its absolute value and uses the signed value for the
//     depth→Infrared/2 translation);
//   - rect_params of every 16:9-like slot fx = fy = 643·h/720,
//     ppx = w/2 + 0.5, ppy = h/2 - 0.25 (a D435 has fx ≈ 640 at 1280x720);
//     the DS5U slots (576x576 and up) are zero, so librealsense substitutes
//     ideal values;
//   - RECPARAMSGET entries for 1280x720 and 848x480 whose focal lengths are
//     0.5 px larger than the table's, so a test can tell which source won;
//   - RGB calibrated at 1920x1080 with fx = fy = 1380 px, ppx = 961,
//     ppy = 541.5 (normalized: 2f/w, 2p/w - 1), Brown coefficients
//     0.1, -0.25, 0.001, -0.0005, 0.08, a rotation of about 0.29° about z
//     (cos 0.9999875, sin 0.005) and translation (14.7, 0.1, 0.45) mm;
//   - the IMU table of DefaultIMUTable.
func DefaultFirmware() Firmware {
	fw := Firmware{
		Version:    [4]uint8{5, 16, 0, 1},
		Serial:     [6]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0x01},
		ASICSerial: [6]byte{0x03, 0x31, 0x42, 0x53, 0x64, 0x75},
		Advanced:   true,
		DepthUnits: 1000,
		BaselineMM: -50,
		ColorCalib: [2]uint16{1920, 1080},
		ColorK: [9]float32{2 * 1380.0 / 1920, 0, 2*961.0/1920 - 1,
			0, 2 * 1380.0 / 1080, 2*541.5/1080 - 1,
			0, 0, 1},
		ColorCoeffs:   [5]float32{0.1, -0.25, 0.001, -0.0005, 0.08},
		ColorRotation: [9]float32{0.9999875, 0.005, 0, -0.005, 0.9999875, 0, 0, 0, 1},
		ColorTransMM:  [3]float32{14.7, 0.1, 0.45},
		IMU:           DefaultIMUTable(),
	}
	for i, r := range RectResolutions[:13] {
		if r[0] == 0 {
			continue
		}
		f := float32(643 * float64(r[1]) / 720)
		fw.Rect[i] = [4]float32{f, f, float32(r[0])/2 + 0.5, float32(r[1])/2 - 0.25}
	}
	for _, i := range []int{1, 3} {
		r, p := RectResolutions[i], fw.Rect[i]
		fw.RectItems = append(fw.RectItems, RectItem{uint16(r[0]), uint16(r[1]), p[0] + 0.5, p[1] + 0.5, p[2], p[3]})
	}
	return fw
}

// Depth extension unit of D435Config: unit 3 on VideoControl interface 0.
const (
	depthXUUnit = 3
	depthVCIntf = 0
)

// Command returns the 1024-byte SET_CUR buffer of firmware command op as
// the camera receives it (librealsense src/hw-monitor.cpp,
// hw_monitor::fill_usb_buffer): the uint16 length of what follows the
// first 4 bytes, the magic 0xCDAB, the uint32 opcode, four uint32
// parameters (the fake's commands use two), then data, zero-padded.
func Command(op uint8, p1, p2 uint32, data []byte) []byte {
	b := make([]byte, 1024)
	binary.LittleEndian.PutUint16(b[0:], uint16(24+len(data)-4))
	binary.LittleEndian.PutUint16(b[2:], 0xCDAB)
	binary.LittleEndian.PutUint32(b[4:], uint32(op))
	binary.LittleEndian.PutUint32(b[8:], p1)
	binary.LittleEndian.PutUint32(b[12:], p2)
	copy(b[24:], data)
	return b
}

// HWM returns the two control transfers of one firmware command over the
// depth extension unit (SET_CUR of the command, GET_CUR of reply).
func HWM(op uint8, p1, p2 uint32, reply []byte) []IO {
	w := Command(op, p1, p2, nil)
	s := usbio.Setup{RequestType: 0x21, Request: 0x01, Value: 1 << 8, Index: depthXUUnit<<8 | depthVCIntf}
	g := s
	g.RequestType, g.Request = 0xA1, 0x81
	return []IO{{Op: OpControl, Setup: s, W: w}, {Op: OpControl, Setup: g, R: reply}}
}

// HWMData is HWM for a command that carries data (SET_ADV).
func HWMData(op uint8, p1, p2 uint32, data, reply []byte) []IO {
	ios := HWM(op, p1, p2, reply)
	ios[0].W = Command(op, p1, p2, data)
	return ios
}

// DepthTable is the advanced-mode depth table control (librealsense
// src/ds/ds-private.h, depth_table_control).
type DepthTable struct {
	Units                               uint32 // µm per depth unit
	ClampMin, ClampMax                  int32
	DisparityMultiplier, DisparityShift int32
}

// Bytes returns the 20-byte little-endian table.
func (t DepthTable) Bytes() []byte {
	b := binary.LittleEndian.AppendUint32(nil, t.Units)
	for _, v := range []int32{t.ClampMin, t.ClampMax, t.DisparityMultiplier, t.DisparityShift} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// DepthTableOp returns the GET_ADV of the depth table control with query
// mode (0 value, 1 minimum, 2 maximum) answered with t.
func DepthTableOp(mode uint32, t DepthTable) []IO {
	return HWM(OpGETADV, 9, mode, HWMReply(OpGETADV, t.Bytes()))
}

// HWMReply returns a 1024-byte GET_CUR reply carrying data for op.
func HWMReply(op uint8, data []byte) []byte {
	b := make([]byte, 1024)
	binary.LittleEndian.PutUint32(b, uint32(op))
	copy(b[4:1020], data)
	binary.LittleEndian.PutUint32(b[1020:], uint32(len(data)))
	return b
}

// HWMFailure returns a reply with a negative status instead of the opcode.
func HWMFailure(code int32) []byte {
	b := make([]byte, 1024)
	binary.LittleEndian.PutUint32(b, uint32(code))
	return b
}

// Firmware command opcodes (librealsense src/ds/ds-private.h, fw_cmd).
const (
	OpGVD          = 0x10
	OpGETINTCAL    = 0x15
	OpSETADV       = 0x2B
	OpGETADV       = 0x2C
	OpUAMG         = 0x30
	OpMMER         = 0x4F
	OpRECPARAMSGET = 0x7E
)

// GVD returns the GVD reply data: 256 bytes with the firmware version
// (lowest component first) at 12, the lock flag at 25 and the serials at 48
// and 64; the other fields are zero.
func (fw Firmware) GVD() []byte {
	b := make([]byte, 256)
	for i := 0; i < 4; i++ {
		b[12+i] = fw.Version[3-i]
	}
	if fw.Locked {
		b[25] = 1
	}
	copy(b[48:], fw.Serial[:])
	copy(b[64:], fw.ASICSerial[:])
	return b
}

func putF32s(b []byte, vs ...float32) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// table prepends a table_header (version 2.0 big-endian, the table id as
// type, size and CRC-32 of body) to body.
func table(id uint16, body []byte) []byte {
	h := []byte{0x02, 0x00}
	h = binary.LittleEndian.AppendUint16(h, id)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(body)))
	h = binary.LittleEndian.AppendUint32(h, 0)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(body))
	return append(h, body...)
}

// CoefficientsTable returns the depth coefficients table (id 25, 576
// bytes): identity imager intrinsics and rotations, baseline, Brown model,
// reserved, rect_params, reserved.
func (fw Firmware) CoefficientsTable() []byte {
	id := []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}
	var b []byte
	for i := 0; i < 4; i++ {
		b = putF32s(b, id...)
	}
	b = putF32s(b, fw.BaselineMM)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, make([]byte, 88)...)
	for _, p := range fw.Rect {
		b = putF32s(b, p[:]...)
	}
	b = append(b, make([]byte, 64)...)
	return table(25, b)
}

// RGBTable returns the RGB calibration table (id 32, 256 bytes).
func (fw Firmware) RGBTable() []byte {
	b := putF32s(nil, fw.ColorK[:]...)
	b = putF32s(b, fw.ColorCoeffs[:]...)
	b = putF32s(b, 0, 0, 0)               // Rodrigues rotation
	b = putF32s(b, fw.ColorTransMM[:]...) // translation
	b = append(b, make([]byte, 48)...)    // projection
	b = binary.LittleEndian.AppendUint16(b, fw.ColorCalib[0])
	b = binary.LittleEndian.AppendUint16(b, fw.ColorCalib[1])
	b = putF32s(b, fw.ColorK[:]...) // rectified intrinsic
	b = putF32s(b, fw.ColorRotation[:]...)
	b = putF32s(b, fw.ColorTransMM[:]...)
	b = append(b, make([]byte, 24)...)
	return table(32, b)
}

// RecParams returns the RECPARAMSGET reply data.
func (fw Firmware) RecParams() []byte {
	var b []byte
	for _, it := range fw.RectItems {
		b = binary.LittleEndian.AppendUint16(b, it.Width)
		b = binary.LittleEndian.AppendUint16(b, it.Height)
		b = putF32s(b, it.FX, it.FY, it.PPX, it.PPY)
	}
	return b
}

func (fw Firmware) atLeast(v [4]uint8) bool {
	for i := range v {
		if fw.Version[i] != v[i] {
			return fw.Version[i] > v[i]
		}
	}
	return true
}

// OpenOps returns the firmware commands usb.Open issues on a camera with
// this firmware, in order: GVD, UAMG, the advanced-mode depth table
// (advanced mode, firmware 5.6.3.0 and later), the coefficients table,
// RECPARAMSGET (firmware 5.11.9.5 and later), the IMU table (MMER; the
// scripted D435i has an IMU) and, with color, the RGB table.
func (fw Firmware) OpenOps(color bool) []IO {
	ops := HWM(OpGVD, 0, 0, HWMReply(OpGVD, fw.GVD()))
	adv := []byte{0}
	if fw.Advanced {
		adv[0] = 1
	}
	ops = append(ops, HWM(OpUAMG, 0, 0, HWMReply(OpUAMG, adv))...)
	if fw.Advanced && fw.atLeast([4]uint8{5, 6, 3, 0}) {
		dt := binary.LittleEndian.AppendUint32(nil, fw.DepthUnits)
		dt = append(dt, make([]byte, 16)...) // clamp min/max, disparity multiplier/shift
		ops = append(ops, HWM(OpGETADV, 9, 0, HWMReply(OpGETADV, dt))...)
	}
	ops = append(ops, HWM(OpGETINTCAL, 25, 0, HWMReply(OpGETINTCAL, fw.CoefficientsTable()))...)
	if fw.atLeast([4]uint8{5, 11, 9, 5}) {
		ops = append(ops, HWM(OpRECPARAMSGET, 0, 0, HWMReply(OpRECPARAMSGET, fw.RecParams()))...)
	}
	ops = append(ops, fw.IMUOps()...)
	if color {
		ops = append(ops, HWM(OpGETINTCAL, 32, 0, HWMReply(OpGETINTCAL, fw.RGBTable()))...)
	}
	return ops
}

// IMUOps returns the MMER command (offset 0, 520 bytes) with fw.IMU's
// table, or nothing when fw.IMU is nil.
func (fw Firmware) IMUOps() []IO {
	if fw.IMU == nil {
		return nil
	}
	return HWM(OpMMER, 0, 520, HWMReply(OpMMER, fw.IMU.Bytes()))
}
