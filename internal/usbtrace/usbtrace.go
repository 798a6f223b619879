// Package usbtrace records every operation a usbio.Transport performs — control
// transfers with their data, interface changes, halts cleared and stream
// reads — in call order. rs-record's --record-usb uses it to capture a
// camera's exchange for a bug report or a test fixture; the fake transport
// of package usbtest replays operations of the same type.
package usbtrace

import (
	"context"
	"fmt"
	"sync"

	"github.com/rsbag/rsbag/internal/usbio"
)

// Op names the kind of an IO.
type Op string

// Kinds of IO.
const (
	OpControl      Op = "control"      // Setup, W (OUT data) or R (IN reply)
	OpSetInterface Op = "setinterface" // Setup.Index = interface, Setup.Value = alternate
	OpRelease      Op = "release"      // Setup.Index = interface
	OpClearHalt    Op = "clearhalt"    // EP
	OpRead         Op = "read"         // EP, R (recorded stream reads only)
)

// IO is one operation on a USB device: recorded by Record, or scripted
// by a fake (package usbtest).
type IO struct {
	Op    Op
	EP    uint8
	Setup usbio.Setup
	W     []byte // bytes written (OUT control data)
	R     []byte // bytes read (IN control reply or stream data)
	Err   error  // error returned (recorded) or to return (scripted)
}

// String renders the IO for failure messages.
func (io IO) String() string {
	return fmt.Sprintf("%s ep=%#02x %v W=%s R=%s err=%v", io.Op, io.EP, io.Setup, short(io.W), short(io.R), io.Err)
}

// short renders b in hex, eliding all but the first 32 bytes.
func short(b []byte) string {
	if len(b) <= 32 {
		return fmt.Sprintf("% x", b)
	}
	return fmt.Sprintf("% x ...(%d bytes)", b[:32], len(b))
}

// Record wraps a real transport and copies every buffer it moves into Ops,
// in call order. The control part of Ops scripts a usbtest.Device and the
// OpRead part its streams.
type Record struct {
	T usbio.Transport

	mu  sync.Mutex
	Ops []IO
}

var _ usbio.Transport = (*Record)(nil)

func (r *Record) add(io IO) {
	r.mu.Lock()
	r.Ops = append(r.Ops, io)
	r.mu.Unlock()
}

// Snapshot returns a copy of the ops recorded so far.
func (r *Record) Snapshot() []IO {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]IO(nil), r.Ops...)
}

// Devices lists the wrapped transport's devices.
func (r *Record) Devices(ctx context.Context) ([]usbio.DeviceDesc, error) { return r.T.Devices(ctx) }

// Open opens a device of the wrapped transport and records its operations.
func (r *Record) Open(ctx context.Context, d usbio.DeviceDesc) (usbio.Handle, error) {
	h, err := r.T.Open(ctx, d)
	if err != nil {
		return nil, err
	}
	return &recHandle{r: r, h: h}, nil
}

// Close closes the wrapped transport.
func (r *Record) Close() error { return r.T.Close() }

type recHandle struct {
	r *Record
	h usbio.Handle
}

func (h *recHandle) RawConfig(ctx context.Context) ([]byte, error) { return h.h.RawConfig(ctx) }

func (h *recHandle) SetInterface(intf, alt int) error {
	err := h.h.SetInterface(intf, alt)
	h.r.add(IO{Op: OpSetInterface, Setup: usbio.Setup{Index: uint16(intf), Value: uint16(alt)}, Err: err})
	return err
}

func (h *recHandle) Release(intf int) error {
	err := h.h.Release(intf)
	h.r.add(IO{Op: OpRelease, Setup: usbio.Setup{Index: uint16(intf)}, Err: err})
	return err
}

func (h *recHandle) Control(ctx context.Context, s usbio.Setup, data []byte) (int, error) {
	io := IO{Op: OpControl, Setup: s}
	if !s.In() {
		io.W = append([]byte(nil), data...)
	}
	n, err := h.h.Control(ctx, s, data)
	if s.In() && n > 0 {
		io.R = append([]byte(nil), data[:n]...)
	}
	io.Err = err
	h.r.add(io)
	return n, err
}

func (h *recHandle) InStream(intf int, ep uint8, size, count int) (usbio.Stream, error) {
	s, err := h.h.InStream(intf, ep, size, count)
	if err != nil {
		return nil, err
	}
	return &recStream{r: h.r, s: s, ep: ep}, nil
}

func (h *recHandle) ClearHalt(ep uint8) error {
	err := h.h.ClearHalt(ep)
	h.r.add(IO{Op: OpClearHalt, EP: ep, Err: err})
	return err
}

func (h *recHandle) Close() error { return h.h.Close() }

type recStream struct {
	r  *Record
	s  usbio.Stream
	ep uint8
}

func (s *recStream) ReadContext(ctx context.Context, p []byte) (int, error) {
	n, err := s.s.ReadContext(ctx, p)
	if n > 0 || err != nil {
		s.r.add(IO{Op: OpRead, EP: s.ep, R: append([]byte(nil), p[:n]...), Err: err})
	}
	return n, err
}

func (s *recStream) Close() error { return s.s.Close() }
