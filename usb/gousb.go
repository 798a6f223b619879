//go:build cgo

package usb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/google/gousb"
	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
)

// newContext is the gousb context constructor (a test hook).
var newContext = gousb.NewContext

// defaultTransport returns a libusb transport (in a program built with
// cgo; built without, it returns an error wrapping device.ErrNoCameras).
// gousb.NewContext panics when
// libusb cannot initialise (no usbfs, no permissions); that is reported as
// device.ErrNotFound instead of crashing the process.
func defaultTransport() (t usbio.Transport, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("usb: libusb unavailable (%v): %w", r, device.ErrNotFound)
		}
	}()
	ctx := newContext()
	if ctx == nil {
		return nil, fmt.Errorf("usb: libusb unavailable: %w", device.ErrNotFound)
	}
	return &gousbTransport{ctx: ctx}, nil
}

// mapErr maps libusb's no-device errors to device.ErrDisconnected, stalls
// to usbio.ErrStall and timeouts to usbio.ErrTimeout, keeping the cause in the chain.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, gousb.ErrorNoDevice), errors.Is(err, gousb.TransferNoDevice):
		return fmt.Errorf("%w: %w", device.ErrDisconnected, err)
	case errors.Is(err, gousb.ErrorPipe), errors.Is(err, gousb.TransferStall):
		return fmt.Errorf("%w: %w", usbio.ErrStall, err)
	case errors.Is(err, gousb.ErrorTimeout), errors.Is(err, gousb.TransferTimedOut):
		return fmt.Errorf("%w: %w", usbio.ErrTimeout, err)
	case errors.Is(err, gousb.ErrorOverflow), errors.Is(err, gousb.TransferOverflow):
		return fmt.Errorf("%w: %w", usbio.ErrOverflow, err)
	}
	return err
}

type gousbTransport struct {
	ctx *gousb.Context
}

// Devices opens every Intel device briefly to read its serial number and
// product string; the other devices are listed from their descriptors.
func (t *gousbTransport) Devices(ctx context.Context) ([]usbio.DeviceDesc, error) {
	var out []usbio.DeviceDesc
	devs, err := t.ctx.OpenDevices(func(d *gousb.DeviceDesc) bool {
		out = append(out, convertDesc(d))
		return uint16(d.Vendor) == usbio.IntelVID
	})
	for _, dev := range devs {
		for i := range out {
			if out[i].Bus == dev.Desc.Bus && out[i].Address == dev.Desc.Address {
				out[i].Serial, _ = dev.SerialNumber()
				out[i].Name, _ = dev.Product()
			}
		}
		dev.Close()
	}
	if err != nil && len(out) == 0 {
		return nil, mapErr(err)
	}
	return out, nil
}

func convertDesc(d *gousb.DeviceDesc) usbio.DeviceDesc {
	out := usbio.DeviceDesc{Bus: d.Bus, Address: d.Address, Path: append([]int(nil), d.Path...), Vendor: uint16(d.Vendor),
		Product: uint16(d.Product), BCDUSB: uint16(d.Spec), BCDDev: uint16(d.Device)}
	if len(out.Path) == 0 && d.Port != 0 {
		out.Path = []int{d.Port}
	}
	// The first configuration is the active one on RealSense cameras.
	for _, cfg := range d.Configs {
		for _, in := range cfg.Interfaces {
			id := usbio.InterfaceDesc{Number: in.Number}
			for _, a := range in.AltSettings {
				as := usbio.AltSetting{Alternate: a.Alternate, Class: uint8(a.Class), SubClass: uint8(a.SubClass), Protocol: uint8(a.Protocol)}
				for _, ep := range a.Endpoints {
					as.Endpoints = append(as.Endpoints, usbio.EndpointDesc{Address: uint8(ep.Address),
						Attributes: uint8(ep.TransferType), MaxPacketSize: ep.MaxPacketSize})
				}
				id.Alts = append(id.Alts, as)
			}
			out.Interfaces = append(out.Interfaces, id)
		}
		break
	}
	return out
}

func (t *gousbTransport) Open(ctx context.Context, d usbio.DeviceDesc) (usbio.Handle, error) {
	var found *gousb.Device
	devs, err := t.ctx.OpenDevices(func(g *gousb.DeviceDesc) bool {
		return g.Bus == d.Bus && g.Address == d.Address
	})
	for _, dev := range devs {
		if found == nil {
			found = dev
		} else {
			dev.Close()
		}
	}
	if found == nil {
		if err != nil {
			return nil, mapErr(err)
		}
		return nil, fmt.Errorf("usb %s: %w", d, device.ErrDisconnected)
	}
	found.SetAutoDetach(true)
	cfgNum, err := found.ActiveConfigNum()
	if err != nil {
		found.Close()
		return nil, mapErr(err)
	}
	cfg, err := found.Config(cfgNum)
	if err != nil {
		found.Close()
		return nil, mapErr(err)
	}
	return &gousbHandle{dev: found, cfg: cfg, intfs: map[int]*gousb.Interface{}}, nil
}

func (t *gousbTransport) Close() error { return t.ctx.Close() }

type gousbHandle struct {
	mu    sync.Mutex
	dev   *gousb.Device
	cfg   *gousb.Config
	intfs map[int]*gousb.Interface
}

// RawConfig reads the configuration descriptor with the standard
// GET_DESCRIPTOR request (USB 2.0 §9.4.3): first the 9-byte header for
// wTotalLength, then the whole descriptor.
func (h *gousbHandle) RawConfig(ctx context.Context) ([]byte, error) {
	hdr := make([]byte, uvc.ConfigHeaderSize)
	if _, err := h.dev.Control(0x80, 0x06, uint16(uvc.DescConfig)<<8, 0, hdr); err != nil {
		return nil, mapErr(err)
	}
	total := int(binary.LittleEndian.Uint16(hdr[2:]))
	if total < uvc.ConfigHeaderSize {
		return nil, fmt.Errorf("usb: configuration wTotalLength %d", total)
	}
	raw := make([]byte, total)
	n, err := h.dev.Control(0x80, 0x06, uint16(uvc.DescConfig)<<8, 0, raw)
	if err != nil {
		return nil, mapErr(err)
	}
	return raw[:n], nil
}

func (h *gousbHandle) SetInterface(intf, alt int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.intfs[intf]; ok {
		old.Close()
		delete(h.intfs, intf)
	}
	in, err := h.cfg.Interface(intf, alt)
	if err != nil {
		return mapErr(err)
	}
	h.intfs[intf] = in
	return nil
}

func (h *gousbHandle) Release(intf int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if in, ok := h.intfs[intf]; ok {
		in.Close()
		delete(h.intfs, intf)
	}
	return nil
}

func (h *gousbHandle) Control(ctx context.Context, s usbio.Setup, data []byte) (int, error) {
	n, err := h.dev.Control(s.RequestType, s.Request, s.Value, s.Index, data)
	return n, mapErr(err)
}

func (h *gousbHandle) InStream(intf int, ep uint8, size, count int) (usbio.Stream, error) {
	h.mu.Lock()
	in, ok := h.intfs[intf]
	h.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("usb: interface %d not claimed", intf)
	}
	e, err := in.InEndpoint(int(ep & 0x0F))
	if err != nil {
		return nil, mapErr(err)
	}
	rs, err := e.NewStream(size, count)
	if err != nil {
		return nil, mapErr(err)
	}
	return gousbStream{rs}, nil
}

// ClearHalt sends CLEAR_FEATURE(ENDPOINT_HALT) to ep (USB 2.0 §9.4.1).
func (h *gousbHandle) ClearHalt(ep uint8) error {
	_, err := h.dev.Control(0x02, 0x01, 0, uint16(ep), nil)
	return mapErr(err)
}

func (h *gousbHandle) Close() error {
	h.mu.Lock()
	for n, in := range h.intfs {
		in.Close()
		delete(h.intfs, n)
	}
	h.mu.Unlock()
	err := h.cfg.Close()
	return errors.Join(mapErr(err), mapErr(h.dev.Close()))
}

type gousbStream struct{ rs *gousb.ReadStream }

func (s gousbStream) ReadContext(ctx context.Context, p []byte) (int, error) {
	n, err := s.rs.ReadContext(ctx, p)
	return n, mapErr(err)
}

func (s gousbStream) Close() error { return mapErr(s.rs.Close()) }
