// Package usbio is the seam between the usb driver and a USB stack: the
// Transport interface (enumerate, open, control and IN streams) and the USB
// descriptor types it speaks. Package usb implements it over libusb;
// internal/usbtrace wraps one to capture what it does, and the test fake
// internal/testsupport/usbtest scripts one. None of this is public: a
// transport other than libusb reaches usb.Open only through WithTransport,
// from inside the module.
package usbio

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Setup is the setup stage of a control transfer (USB 2.0 specification,
// §9.3): bmRequestType, bRequest, wValue and wIndex. wLength is the length of
// the data buffer passed alongside.
type Setup struct {
	RequestType uint8
	Request     uint8
	Value       uint16
	Index       uint16
}

// String renders s as "type=a1 req=81 val=0100 idx=0001".
func (s Setup) String() string {
	return fmt.Sprintf("type=%02x req=%02x val=%04x idx=%04x", s.RequestType, s.Request, s.Value, s.Index)
}

// In reports whether the data stage goes device-to-host (bit 7 of
// bmRequestType, USB 2.0 §9.3.1).
func (s Setup) In() bool { return s.RequestType&0x80 != 0 }

// TransferInterrupt is the interrupt transfer type, the low two bits of an
// endpoint's bmAttributes (USB 2.0 §9.6.6).
const TransferInterrupt = 3

// EndpointDesc describes one endpoint of an interface setting.
type EndpointDesc struct {
	Address       uint8 // bEndpointAddress; bit 7 set for IN
	Attributes    uint8 // bmAttributes; the low two bits are the transfer type
	MaxPacketSize int
}

// TransferType returns the endpoint's transfer type (TransferInterrupt, ...).
func (e EndpointDesc) TransferType() int { return int(e.Attributes & 3) }

// AltSetting is one alternate setting of an interface.
type AltSetting struct {
	Alternate int
	Class     uint8
	SubClass  uint8
	Protocol  uint8
	Endpoints []EndpointDesc
}

// InterfaceDesc is one interface of the active configuration.
type InterfaceDesc struct {
	Number int
	Alts   []AltSetting
}

// DeviceDesc describes one USB device as the transport enumerates it.
type DeviceDesc struct {
	Bus     int
	Address int
	Path    []int  // ports from the root hub, as libusb reports them
	Vendor  uint16 // idVendor
	Product uint16 // idProduct
	BCDUSB  uint16 // bcdUSB
	BCDDev  uint16 // bcdDevice
	Serial  string // iSerialNumber string, "" if unreadable
	Name    string // iProduct string
	// Interfaces of the active configuration.
	Interfaces []InterfaceDesc
}

// PortPath returns the physical port as Linux names USB devices:
// "bus-port.port...", e.g. "2-1.3".
func (d DeviceDesc) PortPath() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d-", d.Bus)
	for i, p := range d.Path {
		if i > 0 {
			b.WriteByte('.')
		}
		fmt.Fprintf(&b, "%d", p)
	}
	return b.String()
}

// String names the device, e.g. "8086:0b3a at 2-1".
func (d DeviceDesc) String() string {
	return fmt.Sprintf("%04x:%04x at %s", d.Vendor, d.Product, d.PortPath())
}

// Transport is what the driver needs from a USB stack: enumerate devices and
// open them. Package usb's implementation (Default) talks to libusb;
// internal/usbtrace wraps one to record what it does, and
// internal/testsupport/usbtest provides a scripted fake. Implementations build DeviceDesc.Interfaces
// from the raw configuration descriptor with ParseInterfaces.
type Transport interface {
	// Devices lists the attached devices with their descriptors.
	Devices(ctx context.Context) ([]DeviceDesc, error)
	// Open opens one device listed by Devices.
	Open(ctx context.Context, d DeviceDesc) (Handle, error)
	// Close releases the transport; every Handle must be closed first.
	Close() error
}

// Handle is an opened device.
type Handle interface {
	// RawConfig returns the raw active configuration descriptor, including
	// the class-specific descriptors that libusb does not parse.
	RawConfig(ctx context.Context) ([]byte, error)
	// SetInterface claims interface intf (on first use) and selects alt.
	SetInterface(intf, alt int) error
	// Release releases a claimed interface.
	Release(intf int) error
	// Control performs a control transfer on endpoint 0. For IN requests
	// data receives the reply; the number of bytes transferred is returned.
	Control(ctx context.Context, s Setup, data []byte) (int, error)
	// InStream starts reading endpoint ep of the claimed interface intf
	// with count transfers of size bytes in flight.
	InStream(intf int, ep uint8, size, count int) (Stream, error)
	// ClearHalt clears a halt/stall condition on endpoint ep.
	ClearHalt(ep uint8) error
	// Close releases the interfaces and closes the device.
	Close() error
}

// Stream is a running IN stream. Each ReadContext returns at most one
// transfer's worth of bytes.
type Stream interface {
	ReadContext(ctx context.Context, p []byte) (int, error)
	Close() error
}

// Transport errors. Implementations wrap device.ErrDisconnected when the
// device went away, so errors.Is works across layers.
var (
	// ErrStall reports a stalled endpoint (a STALL handshake).
	ErrStall = errors.New("usb: endpoint stalled")
	// ErrOverflow reports a transfer that returned more data than requested.
	ErrOverflow = errors.New("usb: transfer overflow")
	// ErrTimeout reports a transfer that did not complete in time.
	ErrTimeout = errors.New("usb: transfer timed out")
)

// IntelVID is Intel's USB vendor id (idVendor of every RealSense camera).
const IntelVID = 0x8086

// transportKey is the context key of WithTransport.
type transportKey struct{}

// WithTransport returns a copy of ctx that makes usb.Open and usb.Devices
// use t instead of a new libusb transport. t stays the caller's: the
// device does not close it.
func WithTransport(ctx context.Context, t Transport) context.Context {
	return context.WithValue(ctx, transportKey{}, t)
}

// FromContext returns the transport set by WithTransport, or nil.
func FromContext(ctx context.Context) Transport {
	t, _ := ctx.Value(transportKey{}).(Transport)
	return t
}

// Default opens the libusb transport. Package usb sets it when it is
// linked (a program without it has no live cameras); it is nil otherwise.
var Default func() (Transport, error)
