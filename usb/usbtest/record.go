package usbtest

import (
	"context"
	"sync"

	"github.com/rsbag/rsbag/usb"
)

// Record wraps a real transport and copies every buffer it moves into Ops,
// in call order (periph's i2ctest.Record). Replay the control part of Ops
// with a scripted Device and the OpRead part with its streams.
type Record struct {
	T usb.Transport

	mu  sync.Mutex
	Ops []IO
}

var _ usb.Transport = (*Record)(nil)

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
func (r *Record) Devices(ctx context.Context) ([]usb.DeviceDesc, error) { return r.T.Devices(ctx) }

// Open opens a device of the wrapped transport and records its operations.
func (r *Record) Open(ctx context.Context, d usb.DeviceDesc) (usb.Handle, error) {
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
	h usb.Handle
}

func (h *recHandle) RawConfig(ctx context.Context) ([]byte, error) { return h.h.RawConfig(ctx) }

func (h *recHandle) SetInterface(intf, alt int) error {
	err := h.h.SetInterface(intf, alt)
	h.r.add(IO{Op: OpSetInterface, Setup: usb.Setup{Index: uint16(intf), Value: uint16(alt)}, Err: err})
	return err
}

func (h *recHandle) Release(intf int) error {
	err := h.h.Release(intf)
	h.r.add(IO{Op: OpRelease, Setup: usb.Setup{Index: uint16(intf)}, Err: err})
	return err
}

func (h *recHandle) Control(ctx context.Context, s usb.Setup, data []byte) (int, error) {
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

func (h *recHandle) InStream(intf int, ep uint8, size, count int) (usb.Stream, error) {
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
	s  usb.Stream
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
