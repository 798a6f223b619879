package usb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb/internal/calib"
)

// HID facts from librealsense's public src/hid/hid-types.h and
// src/hid/hid-device.cpp: report ids, the 9-byte feature report
// (reportId, connectionType, sensorState, power, minReport, report u16 =
// 1000/fps, unknown u16), power states D0 (2) and D4 (6), and the 32-byte
// input report (reportId, unknown, timestamp u64 µs, x, y, z int16, ...).
// GET_REPORT 0x01 / SET_REPORT 0x09 and report type 3 (feature) in the high
// byte of wValue are HID 1.11 §7.2.
const (
	hidReportAccel   = 1
	hidReportGyro    = 2
	hidPowerD0       = 2
	hidPowerD4       = 6
	hidFeatureSize   = 9
	hidReportSize    = 32
	hidGetReport     = 0x01
	hidSetReport     = 0x09
	hidReportFeature = 3
)

// Scale factors of librealsense's src/proc/motion-transform.cpp: accel LSB
// is 0.001 g, gyro LSB is 0.1 deg/s; frames carry m/s² and rad/s.
const (
	gravity     = 9.80665
	accelFactor = 0.001 * gravity
	gyroFactor  = 0.1 * math.Pi / 180
)

// hidReport is a parsed IMU input report.
type hidReport struct {
	ReportID    uint8
	TimestampUs uint64
	Raw         [3]int16
}

// parseHIDReport parses a 32-byte IMU input report.
func parseHIDReport(b []byte) (hidReport, error) {
	if len(b) != hidReportSize {
		return hidReport{}, fmt.Errorf("usb: HID report is %d bytes, want %d", len(b), hidReportSize)
	}
	r := hidReport{ReportID: b[0], TimestampUs: binary.LittleEndian.Uint64(b[2:])}
	for i := range r.Raw {
		r.Raw[i] = int16(binary.LittleEndian.Uint16(b[10+2*i:]))
	}
	return r, nil
}

// MotionSensor is the IMU of a D435i/D455, read over HID.
type motionSensor struct {
	base
	intf     int
	ep       uint8
	profiles []*sensor.StreamProfile
	frames   map[*sensor.StreamProfile]uint64
	calib    *calib.IMUCalibration // nil when unknown: samples are not corrected
	correct  atomic.Bool           // Enable Motion Correction
}

var (
	_ extensions.Options  = (*motionSensor)(nil)
	_ sensor.Sensor       = (*motionSensor)(nil)
	_ extensions.Notifier = (*motionSensor)(nil)
	_ extensions.Kinded   = (*motionSensor)(nil)
)

// hidRates are the D400 IMU rates librealsense offers (src/ds/d400/
// d400-motion.cpp: accel 63 and 250 Hz, gyro 200 and 400 Hz).
var hidRates = []struct {
	stream sensor.Stream
	fps    int
}{{sensor.StreamAccel, 63}, {sensor.StreamAccel, 250}, {sensor.StreamGyro, 200}, {sensor.StreamGyro, 400}}

func newMotionSensor(dev *Device, intf int, ep uint8) *motionSensor {
	m := &motionSensor{intf: intf, ep: ep}
	m.init(dev, "Motion Module")
	m.info = sensor.Info{sensor.CameraInfoName: m.name}
	m.kind = []extensions.SensorKind{extensions.KindMotionSensor}
	m.opts = &options{dev: dev, name: m.name, byOpt: map[sensor.Option]*boundControl{}}
	if dev.fw != nil && dev.fw.imu != nil {
		// ds_motion_common::create_hid_device registers Enable Motion
		// Correction (range 0..1, default 1, on) with the calibration
		// (option.h: enable_motion_correction).
		m.calib = dev.fw.imu
		m.correct.Store(true)
		m.opts.addBool(sensor.OptionEnableMotionCorrection, &m.correct, "Enable/Disable Automatic Motion Data Correction")
	}
	for _, r := range hidRates {
		p := &sensor.StreamProfile{Stream: r.stream, Format: sensor.FormatMotionXYZ32F,
			FPS: r.fps, Kind: sensor.KindMotion, UID: newUID(), Default: motionDefault(r.stream, r.fps)}
		if m.calib != nil {
			p.MotionIntrinsics, _ = m.calib.Intrinsics(r.stream)
		}
		m.profiles = append(m.profiles, p)
	}
	return m
}

// Profiles returns the accel and gyro profiles.
func (m *motionSensor) Profiles() []*sensor.StreamProfile {
	return append([]*sensor.StreamProfile(nil), m.profiles...)
}

// Open reserves at most one accel and one gyro profile.
func (m *motionSensor) Open(ps ...*sensor.StreamProfile) error {
	seen := map[sensor.Stream]bool{}
	for _, p := range ps {
		if seen[p.Stream] {
			return fmt.Errorf("usb %s: open: two %v profiles", m.name, p.Stream)
		}
		seen[p.Stream] = true
	}
	return m.life.Open(m.profiles, ps, nil)
}

func reportID(s sensor.Stream) uint8 {
	if s == sensor.StreamGyro {
		return hidReportGyro
	}
	return hidReportAccel
}

// power sets the power state of one HID sensor the way librealsense's
// rs_hid_device::set_feature_report does: GET_REPORT the feature, change
// power (and the report interval when fps > 0), SET_REPORT, GET_REPORT to
// check.
func (m *motionSensor) power(ctx context.Context, id uint8, state uint8, fps int) error {
	val := uint16(hidReportFeature)<<8 | uint16(id)
	idx := uint16(m.intf)
	fr := make([]byte, hidFeatureSize)
	if _, err := m.dev.h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassIn, Request: hidGetReport, Value: val, Index: idx}, fr); err != nil {
		return fmt.Errorf("usb %s: get feature report %d: %w", m.name, id, err)
	}
	fr[3] = state
	if fps > 0 {
		binary.LittleEndian.PutUint16(fr[5:], uint16(1000/fps))
	}
	if _, err := m.dev.h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassOut, Request: hidSetReport, Value: val, Index: idx}, fr); err != nil {
		return fmt.Errorf("usb %s: set feature report %d: %w", m.name, id, err)
	}
	if _, err := m.dev.h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassIn, Request: hidGetReport, Value: val, Index: idx}, fr); err != nil {
		return fmt.Errorf("usb %s: get feature report %d: %w", m.name, id, err)
	}
	if fr[3] != state {
		return fmt.Errorf("usb %s: report %d: power state is %d after setting %d", m.name, id, fr[3], state)
	}
	return nil
}

// Start powers the opened IMU sensors up at their rates and reads input
// reports from the interrupt endpoint.
func (m *motionSensor) Start(h sensor.Handler) error {
	return m.life.Start(h, func(opened []*sensor.StreamProfile) error {
		m.track(opened)
		return m.start(h, opened)
	})
}

// start is Start's step, with the life cycle locked.
func (m *motionSensor) start(h sensor.Handler, opened []*sensor.StreamProfile) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.dev.h.SetInterface(m.intf, 0); err != nil {
		cancel()
		return fmt.Errorf("usb %s: claim interface %d: %w", m.name, m.intf, err)
	}
	byID := map[uint8]*sensor.StreamProfile{}
	for _, p := range opened {
		if err := m.power(ctx, reportID(p.Stream), hidPowerD0, p.FPS); err != nil {
			cancel()
			return err
		}
		byID[reportID(p.Stream)] = p
	}
	st, err := m.dev.h.InStream(m.intf, m.ep, hidReportSize, m.dev.opts.Transfers)
	if err != nil {
		cancel()
		return fmt.Errorf("usb %s: stream endpoint %#02x: %w", m.name, m.ep, err)
	}
	m.frames = map[*sensor.StreamProfile]uint64{}
	// One worker for both IMU streams: the slower rate bounds how long a
	// frame may wait for the handler.
	var period time.Duration
	for _, p := range byID {
		period = max(period, sensorrt.PeriodOf(p))
	}
	m.run(cancel, h, []time.Duration{period}, func(_ int, w *sensorrt.Worker) { m.read(ctx, st, byID, w) })
	return nil
}

func (m *motionSensor) read(ctx context.Context, st usbio.Stream, byID map[uint8]*sensor.StreamProfile, w *sensorrt.Worker) {
	defer st.Close()
	buf := make([]byte, hidReportSize)
	for {
		n, err := st.ReadContext(ctx, buf)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if errors.Is(err, device.ErrDisconnected) {
				m.fail(fmt.Errorf("usb %s: %w", m.name, err))
				return
			}
			m.notify(sensor.NotificationCategoryFramesTimeout, sensor.SeverityWarn, fmt.Sprintf("%s: read: %v", m.name, err))
			continue
		}
		r, err := parseHIDReport(buf[:n])
		if err != nil {
			m.mu.Lock()
			m.stats.BadPayloads++
			m.mu.Unlock()
			continue
		}
		p := byID[r.ReportID]
		if p == nil {
			continue
		}
		factor := accelFactor
		if p.Stream == sensor.StreamGyro {
			factor = gyroFactor
		}
		var v [3]float32
		for i, x := range r.Raw {
			v[i] = float32(float64(x) * factor)
		}
		if m.calib != nil {
			v = m.calib.Correct(p.Stream, v, m.correct.Load())
		}
		m.frames[p]++
		now := nowMs()
		f := &sensor.Frame{
			Profile: p, Number: m.frames[p], Motion: v, Data: layout.AppendMotion(nil, v),
			// librealsense trims the HID timestamp to 32 bits to keep it
			// comparable with the UVC clock (src/ds/ds-timestamp.cpp).
			TimestampMs: float64(uint32(r.TimestampUs)) * 0.001, Domain: sensor.TimestampDomainHardwareClock,
			SystemTimeMs: now,
		}
		f.Metadata.Set(sensor.MetadataKeyTimeOfArrival, int64(now))
		m.mu.Lock()
		m.stats.Frames++
		m.mu.Unlock()
		offer(w, f)
	}
}

// Stop stops reading and powers the IMU sensors down (D4). Called from the
// sensor's own handler or notification callbacks, which it would wait for,
// it returns an error wrapping sensor.ErrStopFromHandler and the sensor
// keeps streaming.
func (m *motionSensor) Stop() error { return m.life.Stop(m.stop) }

// stop is Stop's step.
func (m *motionSensor) stop() error {
	m.halt()
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := []error{m.err}
	if m.err == nil || !errors.Is(m.err, device.ErrDisconnected) {
		ctx, cancel := context.WithTimeout(context.Background(), m.dev.opts.ControlTimeout)
		defer cancel()
		for _, p := range m.life.Opened() {
			errs = append(errs, m.power(ctx, reportID(p.Stream), hidPowerD4, 0))
		}
		if err := m.dev.h.Release(m.intf); err != nil {
			errs = append(errs, fmt.Errorf("usb %s: release interface %d: %w", m.name, m.intf, err))
		}
	}
	return errors.Join(errs...)
}

// Close stops the sensor if needed and releases its profiles. Like Stop, it
// fails with an error wrapping sensor.ErrStopFromHandler (and changes
// nothing) when called from the sensor's own handler.
func (m *motionSensor) Close() error { return m.life.Close(m.stop, nil) }

// shutdown closes the sensor for good (device Close).
func (m *motionSensor) shutdown() error { return m.life.Shutdown(m.stop, nil) }
