package software

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/sensor"
)

// frame builds the frame of tick k at stream time t.
func (y *Synthetic) frame(st *synthStream, k int, t float64) *sensor.Frame {
	n := y.frameNumber(k)
	f := &sensor.Frame{Profile: st.p, Number: n, Domain: st.domain}
	base := hwBaseMs
	if st.domain != sensor.TimestampDomainHardwareClock {
		base = systemBaseMs
	}
	f.TimestampMs = base + t
	if y.cfg.HostSystemTime {
		f.SystemTimeMs = float64(time.Now().UnixNano()) / 1e6
	} // else 0, as librealsense's software device (SyntheticConfig.HostSystemTime)
	p := st.p
	fn := float32(n)
	switch p.Kind {
	case sensor.KindVideo:
		switch {
		case len(st.ready) > 0:
			f.Data = st.ready[k%len(st.ready)]
		case y.film != nil:
			f.Data = y.filmVideo(st, k, t)
		default:
			f.Data = st.renderExact(n)
		}
		if p.Format == sensor.FormatMJPEG && y.film == nil {
			f.Data = encodeJPEG(f.Data, p.Width, p.Height)
		}
	case sensor.KindMotion:
		if y.film != nil {
			f.Motion = y.filmMotion(st, k, t)
		} else if p.Stream == sensor.StreamAccel {
			f.Motion = [3]float32{float32(0.125 * fn), -9.80665, float32(1.0 / float32(fn+1.0))}
		} else {
			f.Motion = [3]float32{float32(0.001 * fn), float32(-0.002 * fn), 0.5}
		}
		f.Data = layout.AppendMotion(make([]byte, 0, 12), f.Motion)
	case sensor.KindPose:
		if y.film != nil {
			f.Pose = y.filmPose(t)
		} else {
			f.Pose = synthPose(n)
		}
		f.Data = layout.AppendPose(make([]byte, 0, layout.PoseSize), &f.Pose)
	}
	if y.cfg.Metadata >= MetadataBasic {
		ft := int64(math.Round(f.TimestampMs * 1000))
		f.Metadata.Set(sensor.MetadataKeyFrameCounter, int64(n))
		f.Metadata.Set(sensor.MetadataKeyFrameTimestamp, ft)
		f.Metadata.Set(sensor.MetadataKeySensorTimestamp, ft-500)
	}
	if y.cfg.Metadata == MetadataRich {
		m := &f.Metadata
		nn := int64(n)
		toa := int64(math.Round(systemBaseMs + t + 2))
		m.Set(sensor.MetadataKeyActualExposure, 8000+50*(nn%10)+int64(st.seed))
		m.Set(sensor.MetadataKeyGainLevel, 16+nn%5)
		m.Set(sensor.MetadataKeyAutoExposure, nn%2)
		m.Set(sensor.MetadataKeyWhiteBalance, 4600+10*(nn%4))
		m.Set(sensor.MetadataKeyTimeOfArrival, toa)
		m.Set(sensor.MetadataKeyTemperature, 35+nn%3)
		m.Set(sensor.MetadataKeyBackendTimestamp, toa-1)
		m.Set(sensor.MetadataKeyActualFps, 1000*int64(p.FPS))
		m.Set(sensor.MetadataKeyFrameLaserPower, 150)
		m.Set(sensor.MetadataKeyFrameLaserPowerMode, 1)
		m.Set(sensor.MetadataKeyExposurePriority, 1)
		m.Set(sensor.MetadataKeyBrightness, -3)
		m.Set(sensor.MetadataKeyContrast, 50)
		m.Set(sensor.MetadataKeySaturation, 64)
		m.Set(sensor.MetadataKeySharpness, 50)
		m.Set(sensor.MetadataKeyAutoWhiteBalanceTemperature, 4600)
		m.Set(sensor.MetadataKeyHue, -nn-1)
		m.Set(sensor.MetadataKeyPowerLineFrequency, 3)
		m.Set(sensor.MetadataKeyLowLightCompensation, 0)
		m.Set(sensor.MetadataKeyFrameEmitterMode, 1)
		m.Set(sensor.MetadataKeyRawFrameSize, int64(len(f.Data)))
		m.Set(sensor.MetadataKeyGpioInputData, nn%16)
		m.Set(sensor.MetadataKeySequenceId, nn%2)
		m.Set(sensor.MetadataKeySequenceSize, 2)
		if p.Kind == sensor.KindVideo {
			m.Set(sensor.MetadataKeyInputWidth, int64(p.Width))
			m.Set(sensor.MetadataKeyInputHeight, int64(p.Height))
		}
		m.Set(sensor.MetadataKeyCalibInfo, int64(uint64(0x7FFFFFFFFFFFFF00)+n))
		m.Set(sensor.MetadataKeyCrc, 0x1234ABCD)
	}
	return f
}

// glibcSin and glibcCos are the rotation components, keyed by frame number
// n, for which glibc 2.36's sinf/cosf (x86-64), which computed the reference
// pose.bag, return the other float32 neighbour of sin/cos(x), x = 0.005f·n,
// than float32(math.Sin/Cos(float64(x))) does. The values are the ones
// testdata/librealsense/README.md ("Pose") lists for the frames of pose.bag
// (n = 1..200) and TestReferenceBags pins against its hashes. No rounding
// rule of ours reproduces glibc's choice, so they are a table.
var (
	glibcSin = map[uint64]float32{19: 0.09485717, 93: 0.4484228, 99: 0.4750316, 109: 0.5184181, 136: 0.62879306}
	glibcCos = map[uint64]float32{169: 0.66373134, 197: 0.5528631, 199: 0.54450285}
)

// synthPose returns the pose of frame number n. The rotation is
// (0, sinf(x), 0, cosf(x)) with x = 0.005f·n as glibc 2.36 computes it: for
// n ≤ 200 exactly (float32(math.Sin/Cos(float64(x))) corrected by the
// glibcSin/glibcCos table), beyond that float32(math.Sin/Cos(float64(x))),
// which may be one float32 step away from glibc for some n.
func synthPose(n uint64) sensor.Pose {
	fn := float32(n)
	x := float32(0.005 * fn)
	sin, cos := float32(math.Sin(float64(x))), float32(math.Cos(float64(x)))
	if v, ok := glibcSin[n]; ok {
		sin = v
	}
	if v, ok := glibcCos[n]; ok {
		cos = v
	}
	return sensor.Pose{
		Translation:         [3]float32{float32(0.01 * fn), float32(-0.02 * fn), 0.5},
		Velocity:            [3]float32{0.3, 0, -0.3},
		Acceleration:        [3]float32{0, 0.01, 0},
		Rotation:            [4]float32{0, sin, 0, cos},
		AngularVelocity:     [3]float32{0, 0.01, 0},
		AngularAcceleration: [3]float32{0, 0, float32(0.001 * fn)},
		TrackerConfidence:   uint32(n % 4),
		MapperConfidence:    uint32((n + 1) % 4),
	}
}

// synthPixels renders the exact contents of frame number n of a w×h
// stream of format f with seed s (depth 1, color 2, infrared 10+index) into
// a new buffer.
func synthPixels(f sensor.Format, w, h, seed int, n uint64) []byte {
	bpp := pixelFormat(f).BitsPerPixel() / 8
	out := make([]byte, w*h*bpp)
	wide := f == sensor.FormatZ16 || f == sensor.FormatY16
	i := 0
	for y := 0; y < h; y++ {
		by := y / 8
		for x := 0; x < w; x++ {
			bx := x / 8
			if wide {
				v := uint16((bx*37 + by*101 + seed*1000) + int(n%65536)*7)
				binary.LittleEndian.PutUint16(out[i:], v)
				i += 2
				continue
			}
			for c := 0; c < bpp; c++ {
				out[i] = byte(bx*(c+3) + by*(2*c+5) + int(n%256)*(c+1) + seed*17 + c*50)
				i++
			}
		}
	}
	return out
}

// prepare renders the n = 0 contents and the per-frame addition pattern, and
// the prepared frames if asked.
func (st *synthStream) prepare(prepared int, first uint64, gap int) {
	p := st.p
	st.bytesPP = pixelFormat(p.Format).BitsPerPixel() / 8
	st.wide = p.Format == sensor.FormatZ16 || p.Format == sensor.FormatY16
	st.base = synthPixels(p.Format, p.Width, p.Height, st.seed, 0)
	// The addition for n = 1 per byte lane, repeated over lcm(bpp, 8) bytes.
	words := 1
	for (words*8)%st.bytesPP != 0 {
		words++
	}
	st.period = words
	st.pattern = make([]uint64, words)
	var lane [24]byte
	for j := 0; j < words*8; j++ {
		if st.wide {
			if j%2 == 0 {
				lane[j] = 7
			}
			continue
		}
		lane[j] = byte(j%st.bytesPP + 1)
	}
	for w := 0; w < words; w++ {
		st.pattern[w] = binary.LittleEndian.Uint64(lane[w*8:])
	}
	for k := 0; k < prepared; k++ {
		n := first + uint64(k)
		if gap > 0 {
			n += uint64(k / gap)
		}
		st.ready = append(st.ready, st.renderExact(n))
	}
}

// renderExact returns base + n·pattern with per-lane wrap-around, eight bytes
// at a time.
func (st *synthStream) renderExact(n uint64) []byte {
	out := make([]byte, len(st.base))
	var add [3]uint64
	var hi uint64 = 0x8080808080808080
	if st.wide {
		hi = 0x8000800080008000
	}
	for w := 0; w < st.period; w++ {
		add[w] = mulLanes(st.pattern[w], n, st.wide)
	}
	b := st.base
	step := 8 * st.period
	nw := (len(out) / step) * step / 8 // whole periods
	switch st.period {
	case 1:
		y := add[0]
		for i := 0; i+8 <= nw*8; i += 8 {
			x := binary.LittleEndian.Uint64(b[i : i+8])
			binary.LittleEndian.PutUint64(out[i:i+8], ((x&^hi)+(y&^hi))^((x^y)&hi))
		}
	default:
		for i := 0; i+step <= nw*8; i += step {
			for w := 0; w < st.period; w++ {
				j := i + 8*w
				x := binary.LittleEndian.Uint64(b[j : j+8])
				y := add[w]
				binary.LittleEndian.PutUint64(out[j:j+8], ((x&^hi)+(y&^hi))^((x^y)&hi))
			}
		}
	}
	// Remaining whole words.
	for i := nw; i < len(out)/8; i++ {
		x := binary.LittleEndian.Uint64(b[i*8:])
		y := add[i%st.period]
		binary.LittleEndian.PutUint64(out[i*8:], ((x&^hi)+(y&^hi))^((x^y)&hi))
	}
	nw = len(out) / 8
	// Tail bytes.
	for j := nw * 8; j < len(out); j++ {
		if st.wide {
			// 16-bit lanes never straddle the tail when the size is even.
			if j%2 == 0 && j+1 < len(out) {
				v := binary.LittleEndian.Uint16(b[j:]) + uint16(n%65536)*7
				binary.LittleEndian.PutUint16(out[j:], v)
			}
			continue
		}
		out[j] = b[j] + byte(n%256)*byte(j%st.bytesPP+1)
	}
	return out
}

// mulLanes multiplies every 8-bit (or 16-bit) lane of p by n, wrapping.
func mulLanes(p, n uint64, wide bool) uint64 {
	var r uint64
	if wide {
		for i := 0; i < 4; i++ {
			v := uint16(p>>(16*i)) * uint16(n)
			r |= uint64(v) << (16 * i)
		}
		return r
	}
	for i := 0; i < 8; i++ {
		v := uint8(p>>(8*i)) * uint8(n)
		r |= uint64(v) << (8 * i)
	}
	return r
}

// pixelFormat is the format a stream's pictures are rendered in: RGB8 for
// MJPEG (then encoded), else the stream's.
func pixelFormat(f sensor.Format) sensor.Format {
	if f == sensor.FormatMJPEG {
		return sensor.FormatRGB8
	}
	return f
}

// encodeJPEG returns the w×h RGB8 picture rgb encoded by Go's JPEG encoder
// (quality 95).
func encodeJPEG(rgb []byte, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		copy(img.Pix[4*i:4*i+3], rgb[3*i:3*i+3])
		img.Pix[4*i+3] = 255
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		return nil // not reached: an in-memory encode of a valid picture
	}
	return b.Bytes()
}
