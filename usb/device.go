package usb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/sensor"
)

// Options configure Open. The zero value (or nil) opens the first camera
// found through libusb.
type Options struct {
	// Serial selects a camera by serial number; "" takes the first.
	Serial string
	// Watchdog is how long a stream may deliver nothing before its endpoint
	// is reset (default 2 s).
	Watchdog time.Duration
	// Transfers is the number of IN transfers kept in flight (default 3).
	Transfers int
	// ControlTimeout bounds each control transfer made outside a caller's
	// context (default 1 s).
	ControlTimeout time.Duration
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.Watchdog <= 0 {
		v.Watchdog = 2 * time.Second
	}
	if v.Transfers <= 0 {
		v.Transfers = 3
	}
	if v.ControlTimeout <= 0 {
		v.ControlTimeout = time.Second
	}
	return v
}

// Camera is an enumerated RealSense camera.
type Camera struct {
	Info sensor.Info      // name, serial number, product id, USB type, port
	desc usbio.DeviceDesc // interfaces of every USB device at the camera's port
}

// enumerate lists the D400 cameras t sees, with their interfaces grouped
// per physical device by port path. Other devices are ignored. It returns
// an error wrapping device.ErrNotFound when there is none.
func enumerate(ctx context.Context, t usbio.Transport) ([]Camera, error) {
	descs, err := t.Devices(ctx)
	if err != nil {
		return nil, fmt.Errorf("usb: list devices: %w: %w", device.ErrNotFound, err)
	}
	byPort := map[string]*usbio.DeviceDesc{}
	var order []string
	for _, d := range descs {
		if !isD400(d.Vendor, d.Product) {
			continue
		}
		key := d.PortPath()
		g, ok := byPort[key]
		if !ok {
			c := d
			c.Interfaces = append([]usbio.InterfaceDesc(nil), d.Interfaces...)
			byPort[key] = &c
			order = append(order, key)
			continue
		}
		g.Interfaces = append(g.Interfaces, d.Interfaces...)
		if g.Serial == "" {
			g.Serial = d.Serial
		}
	}
	if len(order) == 0 {
		return nil, device.ErrNotFound
	}
	sort.Strings(order)
	cams := make([]Camera, 0, len(order))
	for _, k := range order {
		d := *byPort[k]
		sort.Slice(d.Interfaces, func(i, j int) bool { return d.Interfaces[i].Number < d.Interfaces[j].Number })
		cams = append(cams, Camera{Info: cameraInfo(d), desc: d})
	}
	return cams, nil
}

// Devices lists the D400 cameras attached through libusb. Without libusb,
// a USB bus or a camera it returns an error wrapping device.ErrNotFound
// ("no RealSense device found").
func Devices(ctx context.Context) ([]Camera, error) {
	t, owned, err := transport(ctx)
	if err != nil {
		return nil, err
	}
	if owned {
		defer t.Close()
	}
	return enumerate(ctx, t)
}

// transport returns the transport set on ctx by usbio.WithTransport (from
// inside the module: rs-record's --record-usb, the tests' fake camera), or
// else a new libusb transport that the caller owns and closes.
func transport(ctx context.Context) (t usbio.Transport, owned bool, err error) {
	if t := usbio.FromContext(ctx); t != nil {
		return t, false, nil
	}
	t, err = defaultTransport()
	return t, err == nil, err
}

// Device is a live D400 camera. It implements device.Device.
type Device struct {
	opts    Options
	t       usbio.Transport
	owned   bool // t was created by Open
	cam     Camera
	h       usbio.Handle
	sensors []sensor.Sensor
	fw      *firmware   // nil when the camera has no firmware command channel
	tk      *timeKeeper // global time; nil without a firmware command channel
	extr    streamExtrinsics
	rt      sensorrt.Device // refuses Close from the sensors' goroutines, closes once
}

var _ device.Counting = (*Device)(nil)

// Importing the package registers its cameras with device.RegisterCameras:
// device.OpenCamera (and pipeline, and the tools) then opens them.
func init() {
	usbio.Default = defaultTransport
	device.RegisterCameras(func(ctx context.Context, serial string) (device.Device, error) {
		d, err := Open(ctx, &Options{Serial: serial})
		if err != nil {
			return nil, err
		}
		return d, nil
	})
}

// Open opens a D400 camera: the first one, or the one with opts.Serial.
func Open(ctx context.Context, opts *Options) (*Device, error) {
	o := opts.withDefaults()
	t, owned, err := transport(ctx)
	if err != nil {
		return nil, err
	}
	d, err := open(ctx, t, o)
	if err != nil {
		if owned {
			t.Close()
		}
		return nil, err
	}
	d.owned = owned
	return d, nil
}

func open(ctx context.Context, t usbio.Transport, o Options) (*Device, error) {
	cams, err := enumerate(ctx, t)
	if err != nil {
		return nil, err
	}
	cam := cams[0]
	if o.Serial != "" {
		found := false
		for _, c := range cams {
			if c.desc.Serial == o.Serial {
				cam, found = c, true
			}
		}
		if !found {
			list := make([]string, len(cams))
			for i, c := range cams {
				list[i] = c.desc.Serial + " (" + c.Info[sensor.CameraInfoName] + ")"
			}
			return nil, fmt.Errorf("usb: no camera with serial %q among the %d found: %s: %w",
				o.Serial, len(cams), strings.Join(list, ", "), device.ErrNotFound)
		}
	}
	h, err := t.Open(ctx, cam.desc)
	if err != nil {
		return nil, fmt.Errorf("usb %s: open: %w", cam.desc, err)
	}
	d := &Device{opts: o, t: t, cam: cam, h: h}
	d.rt.Name = fmt.Sprintf("usb %s", cam.desc)
	if err := d.build(ctx); err != nil {
		h.Close()
		return nil, err
	}
	return d, nil
}

// build reads the configuration descriptor and creates the sensors.
func (d *Device) build(ctx context.Context) error {
	raw, err := d.h.RawConfig(ctx)
	if err != nil {
		return fmt.Errorf("usb %s: read configuration descriptor: %w", d.cam.desc, err)
	}
	vcs, err := uvc.ParseUVC(raw)
	if err != nil {
		return fmt.Errorf("usb %s: %w", d.cam.desc, err)
	}
	if err := d.readFirmware(ctx, vcs); err != nil {
		return fmt.Errorf("usb %s: %w", d.cam.desc, err)
	}
	for i := range vcs {
		vc := vcs[i]
		if len(vc.Streams) == 0 {
			continue
		}
		_, depth := vc.Unit(uvc.VcExtensionUnit, &uvc.DepthXU)
		s := &videoSensor{vc: vc, depth: depth, modes: map[*sensor.StreamProfile]mode{}, ilv: map[*sensor.StreamProfile]mode{}}
		s.global.Store(true)
		if depth {
			s.init(d, "Stereo Module")
			s.kind = []extensions.SensorKind{extensions.KindDepthSensor, extensions.KindDepthStereoSensor}
			s.opts = bindOptions(d, s.name, &vc, depthControls)
			s.units.Store(math.Float32bits(s.initialDepthUnits()))
			if d.fw != nil && d.fw.advUnits {
				s.opts.addDepthScale(&depthScale{c: d.fw.ch, timeout: d.opts.ControlTimeout, units: &s.units})
			} else {
				s.opts.addFixed(sensor.OptionDepthUnits, s.DepthUnits(), depthUnitsDesc)
			}
			if d.fw != nil && d.fw.coeff != nil {
				s.opts.addFixed(sensor.OptionStereoBaseline, s.StereoBaselineMM(), "Distance in mm between the stereo imagers")
			}
		} else {
			s.init(d, "RGB Camera")
			s.kind = []extensions.SensorKind{extensions.KindColorSensor}
			s.opts = bindOptions(d, s.name, &vc, colorControls)
		}
		if d.tk != nil {
			s.opts.addGlobalTime(&s.global)
		}
		s.info = sensor.Info{sensor.CameraInfoName: s.name}
		buildProfiles(s)
		if len(s.profiles) > 0 {
			d.sensors = append(d.sensors, s)
		}
	}
	if p, ok := d40xProduct(d.cam.desc.Product); ok && p.hid {
		for _, in := range d.cam.desc.Interfaces {
			for _, a := range in.Alts {
				if a.Class != uvc.ClassHID {
					continue
				}
				for _, ep := range a.Endpoints {
					if ep.Address&0x80 != 0 && ep.TransferType() == usbio.TransferInterrupt {
						d.sensors = append(d.sensors, newMotionSensor(d, in.Number, ep.Address))
						goto done
					}
				}
			}
		}
	done:
	}
	if len(d.sensors) == 0 {
		return fmt.Errorf("usb %s: no video or motion interfaces: %w", d.cam.desc, device.ErrNotFound)
	}
	return nil
}

// readFirmware opens the firmware command channel on the depth extension
// unit (when its bmControls advertise DS5_HWMONITOR) and reads the firmware
// details and calibration.
func (d *Device) readFirmware(ctx context.Context, vcs []uvc.ControlInterface) error {
	var ch *hwm
	color := false
	for i := range vcs {
		if len(vcs[i].Streams) == 0 {
			continue
		}
		u, ok := vcs[i].Unit(uvc.VcExtensionUnit, &uvc.DepthXU)
		if !ok {
			color = true
			continue
		}
		if len(u.Controls) > 0 && u.Controls[0]&(1<<(hwmXUSelector-1)) != 0 {
			ch = &hwm{h: d.h, intf: vcs[i].Interface, unit: u.ID}
		}
	}
	d.fw = nil
	if ch == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*d.opts.ControlTimeout)
	defer cancel()
	// The D405 streams color from its depth interface and has an RGB table.
	fw, err := readFirmware(cctx, ch, d.cam.desc.Product, color || d.cam.desc.Product == pidD405)
	if err != nil {
		return err
	}
	d.fw = fw
	d.extr = fw.extrinsics()
	d.tk = newTimeKeeper(deviceClock(ch), nowMs)
	info := d.cam.Info.Clone()
	fw.info(info)
	d.cam.Info = info
	return nil
}

// CalibrationError returns why the factory calibration could not be read
// (intrinsics and extrinsics are then unknown), or nil.
func (d *Device) CalibrationError() error {
	if d.fw == nil {
		return fmt.Errorf("usb %s: no firmware command channel: %w", d.cam.desc, device.ErrNoExtrinsics)
	}
	return d.fw.calibErr
}

func d40xProduct(pid uint16) (product, bool) {
	p, ok := d400Products[pid]
	return p, ok
}

// buildProfiles turns the streaming descriptors into stream profiles. As
// librealsense does on the depth sensor, the interleaved Y8I and Y12I
// formats are not offered as such: each becomes two infrared streams,
// Infrared/1 (left) and Infrared/2 (right) in Y8 or Y16
// (register_processing_block in src/ds/d400/d400-device.cpp), and an
// Infrared/1 Y8 profile that both GREY and Y8I can produce is listed once.
func buildProfiles(s *videoSensor) {
	type key struct {
		st        sensor.Stream
		idx       int
		f         sensor.Format
		w, h, fps int
	}
	seen := map[key]*sensor.StreamProfile{}
	add := func(stream sensor.Stream, index int, format sensor.Format, fr uvc.FrameDesc, iv uint32, m mode) {
		k := key{stream, index, format, fr.Width, fr.Height, int((uvc.IntervalUnitsPerSec + iv/2) / iv)}
		if p, ok := seen[k]; ok {
			if m.split != 0 {
				s.ilv[p] = m
			}
			return
		}
		p := &sensor.StreamProfile{Stream: stream, Index: index, UID: newUID(), Format: format,
			FPS: k.fps, Kind: sensor.KindVideo, Width: fr.Width, Height: fr.Height}
		p.Default = defaultsFor(s.dev.cam.desc.Product, s.dev.cam.desc.BCDUSB).isDefault(p)
		p.Intrinsics = s.intrinsics(p)
		seen[k] = p
		if m.split != 0 {
			s.ilv[p] = m
		} else {
			s.modes[p] = m
		}
		s.profiles = append(s.profiles, p)
	}
	var later []func() // profiles decoded from MJPEG
	for i := range s.vc.Streams {
		vs := &s.vc.Streams[i]
		for _, f := range vs.Formats {
			var stream sensor.Stream
			var format sensor.Format
			index := 0
			if s.depth {
				m, ok := depthFourCC[f.FourCC]
				if !ok {
					continue
				}
				stream, format, index = m.stream, m.format, m.index
			} else {
				fm, ok := colorFourCC[f.FourCC]
				if !ok {
					continue
				}
				stream, format = sensor.StreamColor, fm
			}
			bpp := format.BitsPerPixel()
			if bpp == 0 {
				bpp = f.BitsPerPixel
			}
			split, out := 0, format
			switch format {
			case sensor.FormatY8I:
				split, out = splitY8I, sensor.FormatY8
			case sensor.FormatY12I:
				split, out = splitY12I, sensor.FormatY16
			}
			for _, fr := range f.Frames {
				for _, iv := range fr.Intervals {
					if iv == 0 {
						continue
					}
					expect := fr.Width * fr.Height * bpp / 8
					if format == sensor.FormatMJPEG {
						expect = 0
					}
					m := mode{vs: vs, format: f.Index, frame: fr.Index, interval: iv, bpp: bpp, expect: expect, split: split}
					if split == 0 {
						if stream == sensor.StreamColor && yuv.Sources(format) {
							// As librealsense's color sensor: the formats
							// converted on the host, backed by this mode,
							// listed before it (RGB8 first). MJPEG backs
							// them only where no YUYV or UYVY mode of the
							// same size and rate does: added last, it
							// loses to those.
							for _, to := range yuv.Targets {
								c := m
								c.from, c.to = format, to
								if format == sensor.FormatMJPEG {
									later = append(later, func() { add(stream, index, to, fr, iv, c) })
									continue
								}
								add(stream, index, to, fr, iv, c)
							}
						}
						add(stream, index, format, fr, iv, m)
						continue
					}
					add(sensor.StreamInfrared, 1, out, fr, iv, m)
					add(sensor.StreamInfrared, 2, out, fr, iv, m)
				}
			}
		}
	}
	for _, f := range later {
		f()
	}
}

// Info returns the device's camera info.
func (d *Device) Info() sensor.Info { return d.cam.Info.Clone() }

// String names the device, e.g. "Intel RealSense D435I (2-1)".
func (d *Device) String() string {
	return fmt.Sprintf("%s (%s)", d.cam.Info[sensor.CameraInfoName], d.cam.desc.PortPath())
}

// Sensors returns the Stereo Module, the RGB Camera and (D435i, D455) the
// Motion Module, as the descriptors advertise them.
func (d *Device) Sensors() []sensor.Sensor { return append([]sensor.Sensor(nil), d.sensors...) }

// Stats returns the frame counters of every stream started on the device
// (device.StreamStats), sensor by sensor in device order, each sensor's in
// the order they were opened: frames delivered to the handler, dropped
// because the handler fell behind (or left queued by Stop), and lost on the
// wire (a payload set with the error bit, short, oversized, or an MJPEG
// frame that does not decode; a lost payload set of the interleaved
// infrared pair loses a frame of each). Each sensor's Stats breaks the
// losses down by cause. The counters add up over starts.
func (d *Device) Stats() []device.StreamStats {
	var out []device.StreamStats
	for _, s := range d.sensors {
		if c, ok := s.(interface {
			streamStats([]device.StreamStats) []device.StreamStats
		}); ok {
			out = c.streamStats(out)
		}
	}
	return out
}

// Extrinsics returns the factory extrinsics between two video streams, as
// librealsense reports them: Depth and Infrared/1 share one frame,
// Depth→Infrared/2 is the stereo baseline along x and Color→Depth comes
// from the RGB calibration, Depth→Accel and Depth→Gyro from the IMU
// calibration (accel and gyro share one frame); other pairs are composed
// through the depth frame. A profile to itself is the identity. Pairs the
// calibration does not cover (a camera whose tables could not be read)
// report device.ErrNoExtrinsics.
func (d *Device) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	if from == nil || to == nil {
		return sensor.Extrinsics{}, device.ErrNoExtrinsics
	}
	if from.Stream == to.Stream && from.Index == to.Index {
		return sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}, nil
	}
	if d.fw != nil {
		if e, ok := d.extr.between(extrinsicsKey{from.Stream, from.Index}, extrinsicsKey{to.Stream, to.Index}); ok {
			return e, nil
		}
	}
	return sensor.Extrinsics{}, fmt.Errorf("usb %s: %s→%s: %w", d.cam.desc, from.Name(), to.Name(), device.ErrNoExtrinsics)
}

// Close stops and closes every sensor, then the USB device (and the
// transport when Open created it). It is idempotent and returns the same
// error every time. Called from a frame handler or notification callback of
// one of its sensors, which it would wait for, it returns an error wrapping
// sensor.ErrStopFromHandler and closes nothing.
func (d *Device) Close() error { return d.rt.Close(d.shutdown) }

// shutdown is Close's one run.
func (d *Device) shutdown() error {
	var errs []error
	for _, s := range d.sensors {
		var err error
		switch v := s.(type) {
		case *videoSensor:
			err = v.shutdown()
		case *motionSensor:
			err = v.shutdown()
		}
		if err != nil && !errors.Is(err, device.ErrDisconnected) {
			errs = append(errs, err)
		}
	}
	if err := d.h.Close(); err != nil {
		errs = append(errs, fmt.Errorf("usb %s: close: %w", d.cam.desc, err))
	}
	if d.owned {
		if err := d.t.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
