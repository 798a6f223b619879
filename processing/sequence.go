package processing

import (
	"fmt"
	"slices"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// rotationBlock is the rotation filter (see NewRotation).
type rotationBlock struct {
	*options
	streams []sensor.Stream
	out     profiles
}

// NewRotation returns a rotation filter of the frames of streams
// (librealsense's default is depth only), as librealsense's: it rotates
// the picture, its size and its intrinsics by -90, 90 or 180 degrees
// (OptionRotation); 0, the default, leaves frames as they are.
func NewRotation(streams ...sensor.Stream) Block {
	if len(streams) == 0 {
		streams = []sensor.Stream{sensor.StreamDepth}
	}
	r := &rotationBlock{options: newOptions("Rotation Filter", streamFilterOptions(map[sensor.Option]option{
		sensor.OptionRotation: {extensions.Range{Min: -90, Max: 180, Step: 90, Default: 0}, "Rotation angle", nil},
	})), streams: slices.Clone(streams)}
	return r
}

// SetOption sets an option; the rotation must be -90, 0, 90 or 180.
func (r *rotationBlock) SetOption(o sensor.Option, v float32) error {
	if o == sensor.OptionRotation && v != -90 && v != 0 && v != 90 && v != 180 {
		return fmt.Errorf("%s: %s = %v: %w (-90, 0, 90 or 180)", r.block, o, v, extensions.ErrOutOfRange)
	}
	return r.options.SetOption(o, v)
}

// Process returns f rotated, or f itself when its stream is not one of the
// Rotation's or the angle is 0. YUYV frames are rotated by 180 degrees
// only, two pixels at a time, as librealsense does.
func (r *rotationBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if f == nil || f.Profile == nil {
		return nil, fmt.Errorf("%s: no frame: %w", r.block, ErrFrame)
	}
	r.mu.Lock()
	angle := int(r.get(sensor.OptionRotation))
	r.mu.Unlock()
	if angle == 0 || !slices.Contains(r.streams, f.Profile.Stream) {
		return f, nil
	}
	bpp, err := checkVideo(r.block, f)
	if err != nil {
		return nil, err
	}
	yuyv := f.Profile.Format == sensor.FormatYUYV
	if yuyv && angle != 180 {
		return nil, fmt.Errorf("%s: %s frame %d: YUYV can be rotated by 180 degrees only: %w", r.block, f.Profile.Name(), f.Number, ErrFrame)
	}
	w, h := f.Width, f.Height
	ow, oh := w, h
	if angle != 180 {
		ow, oh = h, w
	}
	p := r.out.get(f.Profile, angle, func(q *sensor.StreamProfile) {
		in := f.Profile.Intrinsics
		t := &q.Intrinsics
		switch angle {
		case 90:
			t.FX, t.FY, t.PPX, t.PPY = in.FY, in.FX, float32(in.Height)-in.PPY, in.PPX
		case -90:
			t.FX, t.FY, t.PPX, t.PPY = in.FY, in.FX, in.PPY, float32(in.Width)-in.PPX
		case 180:
			t.PPX, t.PPY = float32(in.Width)-in.PPX, float32(in.Height)-in.PPY
		}
		rw, rh := in.Width, in.Height
		if angle != 180 {
			rw, rh = in.Height, in.Width
		}
		t.Width, t.Height, q.Width, q.Height = rw, rh, rw, rh
	})
	out := derive(f, p, ow, oh, bpp)
	src := packed(f, bpp)
	if yuyv {
		n := len(src)
		for i := 0; i+4 <= n; i += 4 {
			copy(out.Data[n-4-i:n-i], src[i:i+4])
		}
		return out, nil
	}
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			var o int
			switch angle {
			case 90:
				o = j*h + (h - i - 1)
			case -90:
				o = (w-j-1)*h + i
			default:
				o = (h-i-1)*w + (w - j - 1)
			}
			copy(out.Data[o*bpp:(o+1)*bpp], src[(i*w+j)*bpp:(i*w+j+1)*bpp])
		}
	}
	return out, nil
}

// sequenceIDFilterBlock is the sequence id filter (see NewSequenceIDFilter).
type sequenceIDFilterBlock struct {
	*options
	mu   sync.Mutex
	last map[seqKey]*sensor.Frame
}

type seqKey struct {
	id  int64
	uid int
}

// NewSequenceIDFilter returns librealsense's "Filter By Sequence id", which
// passes the frames of one HDR sequence id (OptionSequenceId, default 1):
// with 1 or 2, a frame of the other id is replaced by the last frame of the
// selected id of its stream (or passed when there is none yet); with 0,
// every frame passes. Frames without sequence metadata pass.
func NewSequenceIDFilter() Block {
	return &sequenceIDFilterBlock{options: newOptions("Filter By Sequence id", map[sensor.Option]option{
		sensor.OptionFramesQueueSize: optFramesQueueSize,
		sensor.OptionSequenceId:      {extensions.Range{Min: 0, Max: 2, Step: 1, Default: 1}, "Selected stream id for display", []string{"all", "1", "2"}},
	}), last: map[seqKey]*sensor.Frame{}}
}

// Process returns f or the last frame of the selected sequence id.
func (s *sequenceIDFilterBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if f == nil || f.Profile == nil {
		return f, nil
	}
	size, ok1 := f.Metadata.Get(sensor.MetadataKeySequenceSize)
	id, ok2 := f.Metadata.Get(sensor.MetadataKeySequenceId)
	if !ok1 || !ok2 || size == 0 {
		return f, nil
	}
	s.options.mu.Lock()
	sel := int64(s.get(sensor.OptionSequenceId))
	s.options.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if sel == 0 || id+1 == sel {
		s.last[seqKey{id, f.Profile.UID}] = f
		return f, nil
	}
	other := int64(0)
	if id == 0 {
		other = 1
	}
	if g := s.last[seqKey{other, f.Profile.UID}]; g != nil {
		return g, nil
	}
	return f, nil
}

// HDR merge constants (src/proc/hdr-merge.h): infrared values between
// these bounds are neither under- nor over-saturated, and a merged frame
// older than hdrMaxFrameGap frames is dropped.
const (
	irUnderY8      = 0x05
	irOverY8       = 0xfa
	irUnderY16     = 0x14
	irOverY16      = 0x3eb
	hdrMaxFrameGap = 4
)

// HDRMerge merges the two depth frames of an HDR sequence (sequence size
// 2, ids 0 and 1, consecutive frame counters) into one, as librealsense's
// "HDR Merge": a pixel comes from the first frame where its depth is set
// (and, when both infrared frames of the sequence are given and match,
// where its infrared is not saturated), else from the second. It keeps the
// first frame of a pair and the last merged frame; frames of one stream
// must come in order. It is safe for concurrent use.
type HDRMerge struct {
	*options
	mu     sync.Mutex
	first  *hdrPair
	merged *sensor.Frame
}

type hdrPair struct{ depth, ir *sensor.Frame }

// NewHDRMerge returns an HDRMerge.
func NewHDRMerge() *HDRMerge {
	return &HDRMerge{options: newOptions("HDR Merge", map[sensor.Option]option{sensor.OptionFramesQueueSize: optFramesQueueSize})}
}

// Process takes the depth frame of a frameset and its infrared frame (nil
// when there is none) and returns the last merged frame, or depth itself
// until a pair was merged or when the frame is not part of an HDR
// sequence of two.
func (m *HDRMerge) Process(depth, ir *sensor.Frame) (*sensor.Frame, error) {
	if _, err := checkVideo(m.block, depth, sensor.FormatZ16); err != nil {
		return nil, err
	}
	size, ok1 := depth.Metadata.Get(sensor.MetadataKeySequenceSize)
	id, ok2 := depth.Metadata.Get(sensor.MetadataKeySequenceId)
	if !ok1 || !ok2 || size != 2 {
		return depth, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var second *hdrPair
	switch {
	case id == 0 && m.first == nil:
		m.first = &hdrPair{depth, ir}
	case id == 1 && m.first != nil:
		second = &hdrPair{depth, ir}
	}
	if m.merged != nil {
		mc, _ := m.merged.Metadata.Get(sensor.MetadataKeyFrameCounter)
		ic, _ := depth.Metadata.Get(sensor.MetadataKeyFrameCounter)
		if mc > ic || ic-mc >= hdrMaxFrameGap || m.merged.Width != depth.Width || m.merged.Height != depth.Height {
			m.merged = nil
		}
	}
	if second != nil {
		first := m.first
		m.first = nil
		if out := hdrMerge(first, second); out != nil {
			m.merged = out
		}
	}
	if m.merged != nil {
		return m.merged, nil
	}
	return depth, nil
}

// hdrMerge merges a pair, or returns nil when the frames do not make one.
func hdrMerge(a, b *hdrPair) *sensor.Frame {
	ca, _ := a.depth.Metadata.Get(sensor.MetadataKeyFrameCounter)
	cb, _ := b.depth.Metadata.Get(sensor.MetadataKeyFrameCounter)
	if ca+1 != cb || a.depth.Width != b.depth.Width || a.depth.Height != b.depth.Height {
		return nil
	}
	useIR := a.ir != nil && b.ir != nil && a.ir.Width == a.depth.Width && a.ir.Height == a.depth.Height &&
		b.ir.Width == a.ir.Width && b.ir.Height == a.ir.Height
	if useIR {
		for _, p := range []*hdrPair{a, b} {
			dc, ok1 := p.depth.Metadata.Get(sensor.MetadataKeyFrameCounter)
			ic, ok2 := p.ir.Metadata.Get(sensor.MetadataKeyFrameCounter)
			ds, _ := p.depth.Metadata.Get(sensor.MetadataKeySequenceId)
			is, ok3 := p.ir.Metadata.Get(sensor.MetadataKeySequenceId)
			if !ok1 || !ok2 || !ok3 || int32(dc) != int32(ic) || ds != is {
				useIR = false
			}
		}
		useIR = useIR && a.ir.Profile.Format == b.ir.Profile.Format
	}
	out := derive(a.depth, a.depth.Profile, a.depth.Width, a.depth.Height, 2)
	d0, d1 := u16s(packed(a.depth, 2)), u16s(packed(b.depth, 2))
	valid := func(*sensor.Frame, int) bool { return true }
	if useIR {
		switch a.ir.Profile.Format {
		case sensor.FormatY8:
			i0, i1 := packed(a.ir, 1), packed(b.ir, 1)
			valid = func(f *sensor.Frame, i int) bool {
				v := i0[i]
				if f == b.ir {
					v = i1[i]
				}
				return v > irUnderY8 && v < irOverY8
			}
		case sensor.FormatY16:
			i0, i1 := u16s(packed(a.ir, 2)), u16s(packed(b.ir, 2))
			valid = func(f *sensor.Frame, i int) bool {
				v := i0[i]
				if f == b.ir {
					v = i1[i]
				}
				return v > irUnderY16 && v < irOverY16
			}
		}
	}
	res := make([]uint16, len(d0))
	for i := range res {
		switch {
		case d0[i] != 0 && valid(a.ir, i):
			res[i] = d0[i]
		case d1[i] != 0 && valid(b.ir, i):
			res[i] = d1[i]
		}
	}
	putU16s(out.Data, res)
	return out
}

// NewByName returns a new block with its defaults by librealsense's name,
// as a bag's recommended processing blocks name them ("Decimation Filter",
// "Depth to Disparity", ...; "Disparity Filter" is Depth to Disparity).
// baselineMM is the stereo baseline the disparity transforms need.
func NewByName(name string, baselineMM float32) (Configurable, error) {
	switch name {
	case "Decimation Filter":
		return NewDecimation(), nil
	case "Rotation Filter":
		return NewRotation(), nil
	case "HDR Merge":
		return NewHDRMerge(), nil
	case "Filter By Sequence id", "Sequence Id Filter":
		return NewSequenceIDFilter(), nil
	case "Threshold Filter":
		return NewThreshold(), nil
	case "Depth to Disparity", "Disparity Filter":
		return NewDisparityTransform(true, baselineMM), nil
	case "Disparity to Depth":
		return NewDisparityTransform(false, baselineMM), nil
	case "Spatial Filter":
		return NewSpatial(), nil
	case "Temporal Filter":
		return NewTemporal(), nil
	case "Hole Filling Filter":
		return NewHoleFilling(), nil
	}
	return nil, fmt.Errorf("processing: no block named %q", name)
}

// RecommendedBlocks returns the blocks a sensor recommends, by the names
// it gives (extensions.RecommendedFilters), each with its defaults.
// colorSensor configures them as librealsense does for the color sensor of
// a D400 when it synthesizes the list (bags before file version 4): the
// decimation filter takes color frames of any format and the rotation
// filter rotates color.
func RecommendedBlocks(names []string, colorSensor bool, baselineMM float32) ([]Configurable, error) {
	out := make([]Configurable, 0, len(names))
	for _, n := range names {
		b, err := NewByName(n, baselineMM)
		if err != nil {
			return nil, err
		}
		if colorSensor {
			switch b := b.(type) {
			case *decimationBlock:
				b.vals[sensor.OptionStreamFilter] = float32(sensor.StreamColor)
				b.vals[sensor.OptionStreamFormatFilter] = float32(sensor.FormatAny)
			case *rotationBlock:
				b.streams = []sensor.Stream{sensor.StreamColor}
			}
		}
		out = append(out, b)
	}
	return out, nil
}
