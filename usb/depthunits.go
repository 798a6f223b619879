package usb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/usb/internal/calib"
)

// The depth table control of advanced mode, facts from librealsense's public
// source:
//   - src/ds/ds-private.h: SET_ADV is opcode 0x2B (GET_ADV 0x2C); the query
//     mode of GET_ADV is GET_VAL 0, GET_MIN 1 or GET_MAX 2;
//     depth_table_control is 20 bytes: depth_units (uint32, micrometers),
//     depth_clamp_min, depth_clamp_max, disparity_multiplier and
//     disparity_shift (int32 each).
//   - src/ds/ds-options.cpp (depth_scale_option): set reads the table with
//     GET_VAL, replaces depth_units and writes the whole table back with
//     SET_ADV (param1 the control id); the range is GET_MIN's and GET_MAX's
//     depth units in meters, step 0.000001, default 0.001.
//   - src/ds/d400/d400-device.cpp: the D400 registers that option on the
//     depth sensor with advanced mode and firmware 5.6.3.0 or later, and its
//     observer makes the sensor's depth scale follow every set.
const (
	advGetMin      = 1
	advGetMax      = 2
	depthTableSize = 20

	depthUnitsStep    = 0.000001
	depthUnitsDefault = 0.001
	depthUnitsDesc    = "Number of meters represented by a single depth unit"
)

// unitsFromMicrons converts the depth table's depth_units to meters as
// librealsense's query does (0.000001 × units in double, then float).
func unitsFromMicrons(u uint32) float32 {
	return float32(0.000001 * float64(float32(u)))
}

// depthScale serves a writable Depth Units option from the advanced-mode
// depth table. The current value is cached: the driver is the only writer,
// so Option costs no firmware round trip.
type depthScale struct {
	c       *hwm
	timeout time.Duration  // per firmware command
	units   *atomic.Uint32 // float32 bits of the meters per depth unit, read by the frame path

	mu  sync.Mutex // one set or range query at a time
	rng *extensions.Range
}

// table reads the depth table with query mode mode.
func (d *depthScale) table(ctx context.Context, mode uint32) ([]byte, error) {
	b, err := d.c.command(ctx, hwmGETADV, calib.AdvDepthTableControl, mode, 0, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("depth table (mode %d): %w", mode, err)
	}
	if len(b) < depthTableSize {
		return nil, fmt.Errorf("depth table (mode %d): %d bytes, want %d", mode, len(b), depthTableSize)
	}
	return b[:depthTableSize], nil
}

func (d *depthScale) value() float32 { return math.Float32frombits(d.units.Load()) }

// optionRange returns the range, read from the firmware once.
func (d *depthScale) optionRange() (extensions.Range, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rangeLocked()
}

func (d *depthScale) rangeLocked() (extensions.Range, error) {
	if d.rng != nil {
		return *d.rng, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*d.timeout)
	defer cancel()
	lo, err := d.table(ctx, advGetMin)
	if err != nil {
		return extensions.Range{}, err
	}
	hi, err := d.table(ctx, advGetMax)
	if err != nil {
		return extensions.Range{}, err
	}
	r := extensions.Range{
		Min:     float32(0.000001 * float64(binary.LittleEndian.Uint32(lo))),
		Max:     float32(0.000001 * float64(binary.LittleEndian.Uint32(hi))),
		Step:    depthUnitsStep,
		Default: depthUnitsDefault,
	}
	d.rng = &r
	return r, nil
}

// set checks v against the range, writes it into the depth table (the other
// fields as the firmware reported them) and reads the table back. The
// value the firmware reports afterwards becomes the sensor's depth units
// and is returned. v is rounded to the nearest micrometer (librealsense
// truncates, which turns e.g. 0.000123 into 122 µm).
func (d *depthScale) set(v float32) (float32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.rangeLocked()
	if err != nil {
		return 0, err
	}
	if !(v >= r.Min && v <= r.Max) {
		return 0, fmt.Errorf("%v not in [%v, %v]: %w", v, r.Min, r.Max, extensions.ErrOutOfRange)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*d.timeout)
	defer cancel()
	cur, err := d.table(ctx, calib.AdvGetVal)
	if err != nil {
		return 0, err
	}
	t := append([]byte(nil), cur...)
	binary.LittleEndian.PutUint32(t, uint32(math.Round(float64(v)*1e6)))
	if _, err := d.c.command(ctx, hwmSETADV, calib.AdvDepthTableControl, 0, 0, 0, t); err != nil {
		return 0, fmt.Errorf("write depth table: %w", err)
	}
	back, err := d.table(ctx, calib.AdvGetVal)
	if err != nil {
		return 0, err
	}
	u := unitsFromMicrons(binary.LittleEndian.Uint32(back))
	d.units.Store(math.Float32bits(u))
	return u, nil
}
