// Package usbtest provides a fake usbio.Transport that replays scripted
// devices — descriptors, control-transfer replies checked in order, and
// payload streams the test supplies — and the D435/D435i descriptors and
// firmware replies the usb package's tests script. Its operations are
// usbtrace's, so that a trace captured from a camera (usbtrace.Record)
// scripts the fake. Tests hand it to usb.Open and usb.Devices on a context
// (usbio.WithTransport); the public API has no transport hook.
package usbtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/usbtrace"
)

// Op names the kind of an IO.
type Op = usbtrace.Op

// Kinds of IO.
const (
	OpControl      = usbtrace.OpControl
	OpSetInterface = usbtrace.OpSetInterface
	OpRelease      = usbtrace.OpRelease
	OpClearHalt    = usbtrace.OpClearHalt
	OpRead         = usbtrace.OpRead
)

// IO is one scripted or recorded operation.
type IO = usbtrace.IO

// Errorf returns an error that IsErr recognises as coming from the fake.
func Errorf(format string, a ...any) error { return &fakeError{fmt.Sprintf(format, a...)} }

type fakeError struct{ s string }

func (e *fakeError) Error() string { return "usbtest: " + e.s }

// IsErr reports whether err came from the fake.
func IsErr(err error) bool {
	var f *fakeError
	return errors.As(err, &f)
}

// ErrUnplugged is returned by every operation on an unplugged device; it
// wraps device.ErrDisconnected as the real transport does.
var ErrUnplugged = fmt.Errorf("usbtest: unplugged: %w", device.ErrDisconnected)

// Device is a scripted device.
type Device struct {
	Desc   usbio.DeviceDesc
	Config []byte // raw configuration descriptor
	// Ops are the expected handle operations, checked in order. Stream
	// reads are not ops: payloads come from Stream(ep).
	Ops []IO
	// Clock is the device clock in microseconds (REGISTER_CLOCK_0). The
	// firmware command that reads it (MRD over the depth extension unit)
	// is answered from Clock outside the script, since the driver polls it
	// concurrently with everything else. NewDevice sets a clock that counts
	// real microseconds from one second at creation.
	Clock func() uint32

	mu        sync.Mutex
	next      int
	err       error // first mismatch
	unplugged bool
	unplug    chan struct{}
	streams   map[uint8]*Stream
	clockRead bool // an MRD of the clock register awaits its GET_CUR
}

// hwmSetup is the control of the depth extension unit's firmware command
// channel in D435Config (selector 1 of unit 3 on interface 0).
var hwmSetup = usbio.Setup{RequestType: 0x21, Request: 0x01, Value: 1 << 8, Index: depthXUUnit<<8 | depthVCIntf}

// clockCommand is the MRD of REGISTER_CLOCK_0 (librealsense
// d400_device::get_device_time_ms).
var clockCommand = Command(0x01, 0x0001613C, 0x0001613C+4, nil)

// clock answers the device-clock read outside the script: ok reports
// whether the transfer was part of it.
func (d *Device) clock(s usbio.Setup, data []byte) (n int, ok bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Clock == nil {
		return 0, false, nil
	}
	get := hwmSetup
	get.RequestType, get.Request = 0xA1, 0x81
	switch {
	case s == hwmSetup && bytes.Equal(data, clockCommand):
		if d.unplugged {
			return 0, true, ErrUnplugged
		}
		d.clockRead = true
		return len(data), true, nil
	case s == get && d.clockRead:
		d.clockRead = false
		if d.unplugged {
			return 0, true, ErrUnplugged
		}
		return copy(data, HWMReply(0x01, binary.LittleEndian.AppendUint32(nil, d.Clock()))), true, nil
	}
	return 0, false, nil
}

// NewDevice returns a device whose interfaces are parsed from config.
func NewDevice(desc usbio.DeviceDesc, config []byte, ops ...IO) *Device {
	if intfs, err := usbio.ParseInterfaces(config); err == nil && desc.Interfaces == nil {
		desc.Interfaces = intfs
	}
	start := time.Now()
	clock := func() uint32 { return uint32(1_000_000 + time.Since(start).Microseconds()) }
	return &Device{Desc: desc, Config: config, Ops: ops, Clock: clock, unplug: make(chan struct{})}
}

// Expect appends ops to the script.
func (d *Device) Expect(ops ...IO) {
	d.mu.Lock()
	d.Ops = append(d.Ops, ops...)
	d.mu.Unlock()
}

// Stream returns the payload source of endpoint ep.
func (d *Device) Stream(ep uint8) *Stream {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.streams == nil {
		d.streams = map[uint8]*Stream{}
	}
	s, ok := d.streams[ep]
	if !ok {
		s = &Stream{ch: make(chan item, 4096), dev: d}
		d.streams[ep] = s
	}
	return s
}

// Unplug makes every pending and later operation fail with ErrUnplugged.
func (d *Device) Unplug() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.unplugged {
		d.unplugged = true
		close(d.unplug)
	}
}

// Err returns the first mismatch between the script and the calls made, or
// an error naming the ops that remain.
func (d *Device) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return d.err
	}
	if d.next < len(d.Ops) && !d.unplugged {
		return Errorf("%d ops remain, next %v", len(d.Ops)-d.next, d.Ops[d.next])
	}
	return nil
}

// Remaining returns the number of ops not yet consumed.
func (d *Device) Remaining() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.Ops) - d.next
}

// step checks one operation against the script.
func (d *Device) step(got IO) (IO, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.unplugged {
		return IO{}, ErrUnplugged
	}
	if d.next >= len(d.Ops) {
		err := Errorf("unexpected %v (script exhausted)", got)
		if d.err == nil {
			d.err = err
		}
		return IO{}, err
	}
	want := d.Ops[d.next]
	if want.Op != got.Op || want.EP != got.EP || want.Setup != got.Setup ||
		(got.Op == OpControl && !got.Setup.In() && !bytes.Equal(want.W, got.W)) {
		err := Errorf("op %d: got %v, want %v", d.next, got, want)
		if d.err == nil {
			d.err = err
		}
		return IO{}, err
	}
	d.next++
	return want, nil
}

// Stream is the payload source of one endpoint. Items are delivered one per
// read, in order.
type Stream struct {
	ch  chan item
	dev *Device
}

type item struct {
	data []byte
	err  error
}

// Send queues one payload (copied).
func (s *Stream) Send(p []byte) { s.ch <- item{data: append([]byte(nil), p...)} }

// Fail queues a transfer status: the read returns err.
func (s *Stream) Fail(err error) { s.ch <- item{err: err} }

// Stall queues a stall (usbio.ErrStall).
func (s *Stream) Stall() { s.Fail(usbio.ErrStall) }

// Pending returns the number of queued items.
func (s *Stream) Pending() int { return len(s.ch) }

// Transport is a fake usbio.Transport over scripted devices.
type Transport struct {
	Devs []*Device
	// ListErr, if set, is returned by Devices.
	ListErr error

	mu     sync.Mutex
	open   int
	closed bool
}

// New returns a transport over devs.
func New(devs ...*Device) *Transport { return &Transport{Devs: devs} }

var _ usbio.Transport = (*Transport)(nil)

// Devices lists the descriptors of the devices not unplugged.
func (t *Transport) Devices(ctx context.Context) ([]usbio.DeviceDesc, error) {
	if t.ListErr != nil {
		return nil, t.ListErr
	}
	var out []usbio.DeviceDesc
	for _, d := range t.Devs {
		d.mu.Lock()
		if !d.unplugged {
			out = append(out, d.Desc)
		}
		d.mu.Unlock()
	}
	return out, nil
}

// Open opens the device with d's bus and address.
func (t *Transport) Open(ctx context.Context, desc usbio.DeviceDesc) (usbio.Handle, error) {
	for _, d := range t.Devs {
		if d.Desc.Bus == desc.Bus && d.Desc.Address == desc.Address {
			t.mu.Lock()
			t.open++
			t.mu.Unlock()
			return &handle{t: t, d: d, claimed: map[int]bool{}}, nil
		}
	}
	return nil, ErrUnplugged
}

// Close fails if handles are still open.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open != 0 {
		return Errorf("close with %d open handles", t.open)
	}
	t.closed = true
	return nil
}

// OpenHandles returns the number of handles not closed.
func (t *Transport) OpenHandles() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open
}

type handle struct {
	t       *Transport
	d       *Device
	mu      sync.Mutex
	claimed map[int]bool
	streams int
	closed  bool
}

func (h *handle) RawConfig(ctx context.Context) ([]byte, error) {
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	if h.d.unplugged {
		return nil, ErrUnplugged
	}
	return append([]byte(nil), h.d.Config...), nil
}

func (h *handle) SetInterface(intf, alt int) error {
	_, err := h.d.step(IO{Op: OpSetInterface, Setup: usbio.Setup{Index: uint16(intf), Value: uint16(alt)}})
	if err == nil {
		h.mu.Lock()
		h.claimed[intf] = true
		h.mu.Unlock()
	}
	return err
}

func (h *handle) Release(intf int) error {
	_, err := h.d.step(IO{Op: OpRelease, Setup: usbio.Setup{Index: uint16(intf)}})
	h.mu.Lock()
	delete(h.claimed, intf)
	h.mu.Unlock()
	return err
}

func (h *handle) Control(ctx context.Context, s usbio.Setup, data []byte) (int, error) {
	if n, ok, err := h.d.clock(s, data); ok {
		return n, err
	}
	got := IO{Op: OpControl, Setup: s}
	if !s.In() {
		got.W = append([]byte(nil), data...)
	}
	want, err := h.d.step(got)
	if err != nil {
		return 0, err
	}
	if want.Err != nil {
		return 0, want.Err
	}
	if s.In() {
		if len(want.R) > len(data) {
			return 0, fmt.Errorf("usbtest: reply of %d bytes for a %d-byte buffer: %w", len(want.R), len(data), usbio.ErrOverflow)
		}
		return copy(data, want.R), nil
	}
	return len(data), nil
}

func (h *handle) ClearHalt(ep uint8) error {
	want, err := h.d.step(IO{Op: OpClearHalt, EP: ep})
	if err != nil {
		return err
	}
	return want.Err
}

func (h *handle) InStream(intf int, ep uint8, size, count int) (usbio.Stream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.claimed[intf] {
		return nil, Errorf("stream on unclaimed interface %d", intf)
	}
	h.streams++
	return &reader{h: h, s: h.d.Stream(ep), size: size}, nil
}

func (h *handle) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	streams := h.streams
	h.mu.Unlock()
	h.t.mu.Lock()
	h.t.open--
	h.t.mu.Unlock()
	if streams != 0 {
		return Errorf("close with %d open streams", streams)
	}
	return h.d.Err()
}

type reader struct {
	h      *handle
	s      *Stream
	size   int
	closed bool
}

// ReadContext returns the next queued item, blocking until one is queued,
// the device is unplugged or ctx is done.
func (r *reader) ReadContext(ctx context.Context, p []byte) (int, error) {
	select {
	case <-r.h.d.unplug:
		return 0, ErrUnplugged
	default:
	}
	select {
	case it := <-r.s.ch:
		if it.err != nil {
			return 0, it.err
		}
		if len(it.data) > len(p) {
			n := copy(p, it.data)
			return n, fmt.Errorf("usbtest: %d-byte payload into %d bytes: %w", len(it.data), len(p), usbio.ErrOverflow)
		}
		return copy(p, it.data), nil
	case <-r.h.d.unplug:
		return 0, ErrUnplugged
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (r *reader) Close() error {
	r.h.mu.Lock()
	defer r.h.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.h.streams--
	}
	return nil
}
