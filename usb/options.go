package usb

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/internal/optionset"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
	"github.com/rsbag/rsbag/sensor"
)

// control is an option backed by a UVC control of a unit.
type control struct {
	opt      sensor.Option
	unitType int       // vcProcessingUnit, vcExtensionUnit, vcInputTerminal
	xu       *uvc.GUID // extension units only
	selector uint8     // control selector
	bit      int       // bit in the unit's bmControls
	size     int       // bytes of the control value
	signed   bool
	desc     string
}

// depthControls are the D400 depth sensor options. Extension-unit control
// selectors from librealsense's src/ds/ds-private.h (DS5_DEPTH_EMITTER_ENABLED
// 2, DS5_EXPOSURE 3, DS5_LASER_POWER 4, DS5_ENABLE_AUTO_EXPOSURE 0xB); an XU
// control with selector n is bit n-1 of bmControls (UVC 1.5 Table 3-14). Gain
// is the processing unit's PU_GAIN_CONTROL (selector 0x04, bmControls bit 9;
// UVC 1.5 Tables A-13 and 3-8).
var depthControls = []control{
	{sensor.OptionExposure, uvc.VcExtensionUnit, &uvc.DepthXU, 3, 2, 4, false, "Depth Exposure (usec)"},
	{sensor.OptionGain, uvc.VcProcessingUnit, nil, 0x04, 9, 2, false, "UVC image gain"},
	{sensor.OptionEnableAutoExposure, uvc.VcExtensionUnit, &uvc.DepthXU, 0x0B, 10, 1, false, "Enable Auto Exposure"},
	{sensor.OptionLaserPower, uvc.VcExtensionUnit, &uvc.DepthXU, 4, 3, 2, false, "Manual laser power in mw. applicable only when laser power mode is set to Manual"},
	{sensor.OptionEmitterEnabled, uvc.VcExtensionUnit, &uvc.DepthXU, 2, 1, 1, false, "Emitter select, 0-disable all emitters, 1-enable laser"},
}

// colorControls are processing-unit controls of the RGB camera (selectors
// UVC 1.5 Table A-13, bmControls bits Table 3-8).
var colorControls = []control{
	{sensor.OptionBacklightCompensation, uvc.VcProcessingUnit, nil, 0x01, 8, 2, false, "Enable / disable backlight compensation"},
	{sensor.OptionBrightness, uvc.VcProcessingUnit, nil, 0x02, 0, 2, true, "UVC image brightness"},
	{sensor.OptionContrast, uvc.VcProcessingUnit, nil, 0x03, 1, 2, false, "UVC image contrast"},
	{sensor.OptionGain, uvc.VcProcessingUnit, nil, 0x04, 9, 2, false, "UVC image gain"},
	{sensor.OptionPowerLineFrequency, uvc.VcProcessingUnit, nil, 0x05, 10, 1, false, "Power Line Frequency"},
	{sensor.OptionHue, uvc.VcProcessingUnit, nil, 0x06, 2, 2, true, "UVC image hue"},
	{sensor.OptionSaturation, uvc.VcProcessingUnit, nil, 0x07, 3, 2, false, "UVC image saturation setting"},
	{sensor.OptionSharpness, uvc.VcProcessingUnit, nil, 0x08, 4, 2, false, "UVC image sharpness setting"},
	{sensor.OptionGamma, uvc.VcProcessingUnit, nil, 0x09, 5, 2, false, "UVC image gamma setting"},
	{sensor.OptionWhiteBalance, uvc.VcProcessingUnit, nil, 0x0A, 6, 2, false, "Controls white balance of color image"},
	{sensor.OptionEnableAutoWhiteBalance, uvc.VcProcessingUnit, nil, 0x0B, 12, 1, false, "Enable / disable auto-white-balance"},
}

// boundControl is a control whose unit was found in the descriptors.
type boundControl struct {
	control
	unit int
	rng  *extensions.Range
}

// options implements extensions.Options over UVC unit controls and the
// options the driver serves itself (local).
type options struct {
	dev     *Device
	vcIntf  int
	name    string
	mu      sync.Mutex
	byOpt   map[sensor.Option]*boundControl
	changes callbacks.Callbacks[extensions.OptionChange]
	// local holds the read-only options read at open (Depth Units, Stereo
	// Baseline) and the 0/1 options backed by a flag in bools (Global Time
	// Enabled, Enable Motion Correction).
	local  optionset.OptionSet
	bools  map[sensor.Option]*atomic.Bool
	global *atomic.Bool // Global Time Enabled, nil when unsupported
	// scale serves a writable Depth Units option (advanced mode); nil when
	// Depth Units is read-only or absent.
	scale *depthScale
}

// bindOptions keeps the controls whose unit exists and whose bmControls bit
// is set.
func bindOptions(dev *Device, name string, vc *uvc.ControlInterface, table []control) *options {
	o := &options{dev: dev, vcIntf: vc.Interface, name: name, byOpt: map[sensor.Option]*boundControl{}}
	for _, c := range table {
		u, ok := vc.Unit(c.unitType, c.xu)
		if !ok || c.bit/8 >= len(u.Controls) || u.Controls[c.bit/8]&(1<<uint(c.bit%8)) == 0 {
			continue
		}
		o.byOpt[c.opt] = &boundControl{control: c, unit: u.ID}
	}
	return o
}

// addFixed adds a read-only option whose value was read at open (Depth
// Units, Stereo Baseline); its range is {v, v, 0, v} as librealsense's
// const_value_option reports it.
func (o *options) addFixed(opt sensor.Option, v float32, desc string) {
	o.local.Add(extensions.OptionSpec{Option: opt, Value: v, Range: extensions.Range{Min: v, Max: v, Default: v},
		Description: desc, ReadOnly: true})
}

// addDepthScale adds Depth Units backed by the advanced-mode depth table:
// listed and described by o.local, its value, range and writes served by d.
func (o *options) addDepthScale(d *depthScale) {
	o.scale = d
	o.local.Add(extensions.OptionSpec{Option: sensor.OptionDepthUnits, Value: d.value(),
		Range: extensions.Range{Step: depthUnitsStep, Default: depthUnitsDefault}, Description: depthUnitsDesc})
}

// isScale reports whether opt is served by o.scale.
func (o *options) isScale(opt sensor.Option) bool {
	return o.scale != nil && opt == sensor.OptionDepthUnits
}

// addGlobalTime adds Global Time Enabled, backed by g.
func (o *options) addGlobalTime(g *atomic.Bool) {
	o.global = g
	o.addBool(sensor.OptionGlobalTimeEnabled, g, "Enable/Disable global timestamp")
}

// addBool adds a 0/1 option (range 0..1 step 1, default 1) whose value is
// flag's.
func (o *options) addBool(opt sensor.Option, flag *atomic.Bool, desc string) {
	if o.bools == nil {
		o.bools = map[sensor.Option]*atomic.Bool{}
	}
	o.bools[opt] = flag
	o.local.Add(extensions.OptionSpec{Option: opt, Range: extensions.Range{Min: 0, Max: 1, Step: 1, Default: 1},
		Description: desc})
	o.local.SetValueHook(func(opt sensor.Option, stored float32) float32 {
		f, ok := o.bools[opt]
		switch {
		case !ok:
			return stored
		case f.Load():
			return 1
		}
		return 0
	})
}

// isLocal reports whether opt is served by o.local.
func (o *options) isLocal(opt sensor.Option) bool {
	_, ok := o.local.Spec(opt)
	return ok
}

func (o *options) lookup(opt sensor.Option) (*boundControl, error) {
	c, ok := o.byOpt[opt]
	if !ok {
		return nil, fmt.Errorf("usb %s: option %v: %w", o.name, opt, extensions.ErrUnsupportedOption)
	}
	return c, nil
}

// query performs a GET_* request for c (UVC 1.5 §4.2: wValue is the control
// selector in the high byte, wIndex the unit id in the high byte and the
// VideoControl interface in the low byte).
func (o *options) query(c *boundControl, req uint8) (float32, error) {
	ctx, cancel := context.WithTimeout(context.Background(), o.dev.opts.ControlTimeout)
	defer cancel()
	b := make([]byte, c.size)
	n, err := o.dev.h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassIn, Request: req, Value: uint16(c.selector) << 8, Index: uint16(c.unit)<<8 | uint16(o.vcIntf)}, b)
	if err != nil {
		return 0, fmt.Errorf("usb %s: option %v: request %#02x: %w", o.name, c.opt, req, err)
	}
	if n != c.size {
		return 0, fmt.Errorf("usb %s: option %v: request %#02x returned %d bytes, want %d", o.name, c.opt, req, n, c.size)
	}
	return decodeControl(b, c.signed), nil
}

func decodeControl(b []byte, signed bool) float32 {
	switch len(b) {
	case 1:
		if signed {
			return float32(int8(b[0]))
		}
		return float32(b[0])
	case 2:
		v := binary.LittleEndian.Uint16(b)
		if signed {
			return float32(int16(v))
		}
		return float32(v)
	default:
		v := binary.LittleEndian.Uint32(b)
		if signed {
			return float32(int32(v))
		}
		return float32(v)
	}
}

func encodeControl(v float32, size int) []byte {
	b := make([]byte, size)
	iv := uint32(int64(v))
	switch size {
	case 1:
		b[0] = uint8(iv)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(iv))
	default:
		binary.LittleEndian.PutUint32(b, iv)
	}
	return b
}

// SupportedOptions lists the options in ascending enum order.
func (o *options) SupportedOptions() []sensor.Option {
	out := o.local.SupportedOptions()
	for k := range o.byOpt {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Option returns the current value (GET_CUR).
func (o *options) Option(opt sensor.Option) (float32, error) {
	if o.isScale(opt) {
		return o.scale.value(), nil
	}
	if o.isLocal(opt) {
		return o.local.Option(opt)
	}
	c, err := o.lookup(opt)
	if err != nil {
		return 0, err
	}
	return o.query(c, uvc.ReqGetCur)
}

// OptionRange returns GET_MIN, GET_MAX, GET_RES and GET_DEF, queried once.
func (o *options) OptionRange(opt sensor.Option) (extensions.Range, error) {
	if o.isScale(opt) {
		r, err := o.scale.optionRange()
		if err != nil {
			return extensions.Range{}, fmt.Errorf("usb %s: option %v: %w", o.name, opt, err)
		}
		return r, nil
	}
	if o.isLocal(opt) {
		return o.local.OptionRange(opt)
	}
	c, err := o.lookup(opt)
	if err != nil {
		return extensions.Range{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if c.rng != nil {
		return *c.rng, nil
	}
	var r extensions.Range
	for _, q := range []struct {
		req uint8
		v   *float32
	}{{uvc.ReqGetMin, &r.Min}, {uvc.ReqGetMax, &r.Max}, {uvc.ReqGetRes, &r.Step}, {uvc.ReqGetDef, &r.Default}} {
		v, err := o.query(c, q.req)
		if err != nil {
			return extensions.Range{}, err
		}
		*q.v = v
	}
	c.rng = &r
	return r, nil
}

// SetOption checks v against the range and sets it (SET_CUR).
func (o *options) SetOption(opt sensor.Option, v float32) error {
	if o.isScale(opt) {
		got, err := o.scale.set(v)
		if err != nil {
			return fmt.Errorf("usb %s: option %v: %w", o.name, opt, err)
		}
		o.changed(opt, got)
		return nil
	}
	if o.isLocal(opt) {
		flag, isBool := o.bools[opt]
		if isBool && v != 0 && v != 1 {
			return fmt.Errorf("usb %s: option %v: %v not in [0, 1]: %w", o.name, opt, v, extensions.ErrOutOfRange)
		}
		if err := o.local.SetOption(opt, v); err != nil {
			return fmt.Errorf("usb %s: %w", o.name, err)
		}
		if isBool {
			flag.Store(v == 1)
		}
		o.changed(opt, v)
		return nil
	}
	c, err := o.lookup(opt)
	if err != nil {
		return err
	}
	r, err := o.OptionRange(opt)
	if err != nil {
		return err
	}
	if v < r.Min || v > r.Max {
		return fmt.Errorf("usb %s: option %v: %v not in [%v, %v]: %w", o.name, opt, v, r.Min, r.Max, extensions.ErrOutOfRange)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.dev.opts.ControlTimeout)
	defer cancel()
	if _, err := o.dev.h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassOut, Request: uvc.ReqSetCur, Value: uint16(c.selector) << 8, Index: uint16(c.unit)<<8 | uint16(o.vcIntf)},
		encodeControl(v, c.size)); err != nil {
		return fmt.Errorf("usb %s: set option %v: %w", o.name, opt, err)
	}
	o.changed(opt, v)
	return nil
}

// changed calls the option-change callbacks.
func (o *options) changed(opt sensor.Option, v float32) {
	o.changes.Call(extensions.OptionChange{Option: opt, Value: v})
}

// OptionDescription returns the option's description.
func (o *options) OptionDescription(opt sensor.Option) string {
	if o.isLocal(opt) {
		return o.local.OptionDescription(opt)
	}
	if c, ok := o.byOpt[opt]; ok {
		return c.desc
	}
	return ""
}

// OptionReadOnly reports true for the options read at open (Depth Units
// without advanced mode, Stereo Baseline); every UVC-backed option is
// writable.
func (o *options) OptionReadOnly(opt sensor.Option) bool {
	return o.local.OptionReadOnly(opt)
}

// OnOptionChange registers f for value changes made through SetOption,
// called in registration order on the goroutine that made the change.
// cancel unregisters f; it is safe to call more than once.
func (o *options) OnOptionChange(f func(extensions.OptionChange)) (cancel func()) {
	return o.changes.Add(f)
}

// SupportedOptions lists the sensor's options in ascending enum order (the
// Motion Module's: Enable Motion Correction when the IMU calibration is
// known).
func (b *base) SupportedOptions() []sensor.Option { return b.opts.SupportedOptions() }

// Option returns the current value of o.
func (b *base) Option(o sensor.Option) (float32, error) { return b.opts.Option(o) }

// SetOption sets o to v after checking its range.
func (b *base) SetOption(o sensor.Option, v float32) error { return b.opts.SetOption(o, v) }

// OptionRange returns the range of o.
func (b *base) OptionRange(o sensor.Option) (extensions.Range, error) { return b.opts.OptionRange(o) }

// OptionDescription describes o.
func (b *base) OptionDescription(o sensor.Option) string { return b.opts.OptionDescription(o) }

// OptionReadOnly reports whether o is read-only.
func (b *base) OptionReadOnly(o sensor.Option) bool { return b.opts.OptionReadOnly(o) }

// OnOptionChange registers f for option changes; cancel unregisters it.
func (b *base) OnOptionChange(f func(extensions.OptionChange)) (cancel func()) {
	return b.opts.OnOptionChange(f)
}
