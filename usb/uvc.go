package usb

import (
	"context"
	"fmt"

	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
)

// negotiate runs the UVC probe/commit sequence (UVC 1.5 §4.3.1.1.1) on
// VideoStreaming interface intf: GET_MAX probe, SET_CUR probe with the
// wanted format, frame and interval, GET_CUR probe for what the device
// accepted, SET_CUR commit of that. It returns the committed control.
func negotiate(ctx context.Context, h usbio.Handle, intf int, bcdUVC uint16, want uvc.Probe) (uvc.Probe, error) {
	n := uvc.ProbeControlSize(bcdUVC)
	buf := make([]byte, n)
	probe := uint16(uvc.VsProbeControl) << 8
	idx := uint16(intf)
	if _, err := h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassIn, Request: uvc.ReqGetMax, Value: probe, Index: idx}, buf); err != nil {
		return uvc.Probe{}, fmt.Errorf("usb: interface %d: probe GET_MAX: %w", intf, err)
	}
	want.Hint = 1 // dwFrameInterval is fixed (bmHint bit 0)
	if _, err := h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassOut, Request: uvc.ReqSetCur, Value: probe, Index: idx}, want.Marshal(n)); err != nil {
		return uvc.Probe{}, fmt.Errorf("usb: interface %d: probe SET_CUR: %w", intf, err)
	}
	got, err := h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassIn, Request: uvc.ReqGetCur, Value: probe, Index: idx}, buf)
	if err != nil {
		return uvc.Probe{}, fmt.Errorf("usb: interface %d: probe GET_CUR: %w", intf, err)
	}
	p, err := uvc.ParseProbe(buf[:got])
	if err != nil {
		return uvc.Probe{}, fmt.Errorf("usb: interface %d: probe GET_CUR: %w", intf, err)
	}
	if p.FormatIndex != want.FormatIndex || p.FrameIndex != want.FrameIndex {
		return uvc.Probe{}, fmt.Errorf("usb: interface %d: device probed format %d frame %d, want %d/%d",
			intf, p.FormatIndex, p.FrameIndex, want.FormatIndex, want.FrameIndex)
	}
	if _, err := h.Control(ctx, usbio.Setup{RequestType: uvc.RtClassOut, Request: uvc.ReqSetCur, Value: uint16(uvc.VsCommitControl) << 8, Index: idx}, buf[:got]); err != nil {
		return uvc.Probe{}, fmt.Errorf("usb: interface %d: commit SET_CUR: %w", intf, err)
	}
	return p, nil
}
