package usbio

import (
	"encoding/binary"
	"fmt"

	"github.com/rsbag/rsbag/internal/uvc"
)

// ParseInterfaces parses the standard interface and endpoint descriptors of a
// raw configuration descriptor (what libusb reports as the interface list).
func ParseInterfaces(raw []byte) ([]InterfaceDesc, error) {
	var out []InterfaceDesc
	cur := -1 // index into out
	alt := -1 // index into out[cur].Alts
	err := uvc.Walk(raw, func(off int, d []byte) error {
		switch d[1] {
		case uvc.DescInterface:
			if len(d) < 9 {
				return fmt.Errorf("usb: interface descriptor at offset %d is %d bytes, want 9", off, len(d))
			}
			num := int(d[2])
			cur = -1
			for i := range out {
				if out[i].Number == num {
					cur = i
				}
			}
			if cur < 0 {
				out = append(out, InterfaceDesc{Number: num})
				cur = len(out) - 1
			}
			out[cur].Alts = append(out[cur].Alts, AltSetting{Alternate: int(d[3]), Class: d[5], SubClass: d[6], Protocol: d[7]})
			alt = len(out[cur].Alts) - 1
		case uvc.DescEndpoint:
			if len(d) < 7 {
				return fmt.Errorf("usb: endpoint descriptor at offset %d is %d bytes, want 7", off, len(d))
			}
			if cur < 0 {
				return fmt.Errorf("usb: endpoint descriptor at offset %d outside an interface", off)
			}
			a := &out[cur].Alts[alt]
			a.Endpoints = append(a.Endpoints, EndpointDesc{Address: d[2], Attributes: d[3], MaxPacketSize: int(binary.LittleEndian.Uint16(d[4:]) & 0x7ff)})
		}
		return nil
	})
	return out, err
}
