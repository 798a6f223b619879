package usb

import "github.com/rsbag/rsbag/internal/uvc"

// assembler turns UVC payloads into frames (UVC 1.5 §2.4.3: a frame is the
// payloads sharing one FID value; EOF ends it early). Frames with the error
// bit, fewer bytes than expected (short) or more (oversized) are dropped
// and counted. Complete frames are handed to emit in a buffer the assembler
// never touches again; buffers of dropped frames are reused. emit reports
// false for a frame it dropped as corrupt (a compressed frame that does not
// decode).
type assembler struct {
	expect  int // bytes per frame; 0 accepts any size (compressed formats)
	active  bool
	fid     bool
	bad     bool
	over    bool
	hdr     uvc.PayloadHeader
	meta    frameMeta
	buf     []byte
	spare   []byte
	stats   *Stats
	emit    func(data []byte, h uvc.PayloadHeader, m *frameMeta) bool
	maxSize int
}

func (a *assembler) take() []byte {
	if a.spare != nil {
		b := a.spare[:0]
		a.spare = nil
		return b
	}
	n := a.expect
	if n == 0 {
		n = a.maxSize
	}
	return make([]byte, 0, n)
}

// push adds one payload.
func (a *assembler) push(p []byte) {
	h, err := uvc.ParsePayloadHeader(p)
	if err != nil {
		a.stats.BadPayloads++
		if a.active {
			a.bad = true
		}
		return
	}
	if a.active && h.FID() != a.fid {
		a.finish() // the previous frame ended without EOF
	}
	if !a.active {
		a.active, a.fid, a.bad, a.over = true, h.FID(), false, false
		a.buf = a.take()
		a.hdr = h
		a.meta = frameMeta{}
		if len(h.Metadata) > 0 {
			parseMetadata(h.Metadata, &a.meta)
			a.hdr.Metadata = nil // p is a transfer buffer that will be reused
		}
	}
	if h.Err() {
		a.bad = true
	}
	data := p[h.Length:]
	limit := a.expect
	if limit == 0 {
		limit = a.maxSize
	}
	if len(a.buf)+len(data) > limit {
		a.over = true
	} else {
		a.buf = append(a.buf, data...)
	}
	if h.EOF() {
		a.finish()
	}
}

func (a *assembler) finish() {
	a.active = false
	switch {
	case a.bad:
		a.stats.ErrorFrames++
	case a.over:
		a.stats.OversizedFrames++
	case a.expect != 0 && len(a.buf) != a.expect, len(a.buf) == 0:
		a.stats.ShortFrames++
	case !a.emit(a.buf, a.hdr, &a.meta):
		a.stats.CorruptFrames++
	default:
		a.stats.Frames++
		a.buf = nil
		return
	}
	a.spare, a.buf = a.buf, nil
}

// Stats counts what a streaming sensor received, and the frames it lost by
// cause: every sensor of a Device's Sensors has a method Stats() Stats
// (s.(interface{ Stats() usb.Stats })). The frames delivered, dropped for a
// slow handler and lost, per stream, are Device.Stats (device.StreamStats).
type Stats struct {
	Frames          uint64 // frames assembled and handed on
	ErrorFrames     uint64 // dropped: a payload had the error bit
	ShortFrames     uint64 // dropped: fewer bytes than the format needs
	OversizedFrames uint64 // dropped: more bytes than the format needs
	CorruptFrames   uint64 // dropped: an MJPEG frame that does not decode
	BadPayloads     uint64 // payloads with an unparsable header
	Resets          uint64 // endpoint resets by the watchdog
}
