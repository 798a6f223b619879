package device

import (
	"errors"
	"fmt"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/extrinsics"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/sensor"
)

// Snapshot is an immutable description of a device: its info, its sensors
// with their info, options, profiles, kinds, depth units, stereo baseline and
// recommended filters, and the extrinsics of its streams in the pin→stream
// form bags store. It is the one description model of both sides of a bag:
// a record device writes the Describe of the device it wraps, and a
// playback device reads the bag into one and serves it (its Snapshot, Info,
// and its sensors' info, kinds and recommended filters). A Snapshot must not
// be modified once it is shared; Capture returns deep copies of everything
// it reads.
type Snapshot struct {
	Info    sensor.Info
	Sensors []SensorSnapshot
	// Pinned lists, for every stream that has extrinsics, the transform
	// from its group's pin stream to it. Pairs are derived from these as
	// librealsense playback derives them (Extrinsics): for streams A and B
	// of one group, A→B = (pin→B)·(pin→A)⁻¹ is computed for the direction
	// where A is the later of the two in (sensor index, stream type, stream
	// index) order, and the other direction is its inverse; streams of
	// different groups have no extrinsics.
	Pinned []extensions.PinnedExtrinsics

	once  sync.Once
	graph *extrinsics.Graph
}

// SensorSnapshot is the immutable description of one sensor.
type SensorSnapshot struct {
	Index    int // position in the device
	Info     sensor.Info
	Options  []extensions.OptionSpec // ascending enum order
	Profiles []*sensor.StreamProfile // in the sensor's order
	Kinds    []extensions.SensorKind

	HasDepthUnits    bool
	DepthUnits       float32 // meters per unit, when HasDepthUnits
	HasBaseline      bool
	StereoBaselineMM float32 // when HasBaseline

	RecommendedFilters []string
}

// Option returns the snapshot of option o and whether the sensor has it.
func (s *SensorSnapshot) Option(o sensor.Option) (extensions.OptionSpec, bool) {
	for _, sp := range s.Options {
		if sp.Option == o {
			return sp, true
		}
	}
	return extensions.OptionSpec{}, false
}

// ExtrinsicsSource is implemented by devices that know the pin→stream form of
// their extrinsics, groups included (software and playback devices). Capture
// keeps what it reports, groups unchanged.
type ExtrinsicsSource interface {
	PinnedExtrinsics() []extensions.PinnedExtrinsics
}

// Describe takes a snapshot of d without its extrinsics: the info, and per
// sensor its info, options (with their current values), profiles, kinds,
// depth units, stereo baseline and recommended filters, as Capture. It is
// what a recording's description holds.
func Describe(d Device) *Snapshot {
	s := &Snapshot{Info: d.Info().Clone()}
	for i, sn := range d.Sensors() {
		ss := SensorSnapshot{Index: i, Info: sn.Info().Clone()}
		for _, p := range sn.Profiles() {
			c := *p
			ss.Profiles = append(ss.Profiles, &c)
		}
		if o, ok := sn.(extensions.Options); ok {
			for _, id := range o.SupportedOptions() {
				v, err := o.Option(id)
				if err != nil {
					continue
				}
				r, _ := o.OptionRange(id)
				ss.Options = append(ss.Options, extensions.OptionSpec{
					Option: id, Value: v, Range: r,
					Description: o.OptionDescription(id), ReadOnly: o.OptionReadOnly(id),
				})
			}
		}
		kinded, isKinded := sn.(extensions.Kinded)
		if isKinded {
			ss.Kinds = append([]extensions.SensorKind(nil), kinded.Kinds()...)
		}
		has := func(k extensions.SensorKind) bool {
			for _, x := range ss.Kinds {
				if x == k {
					return true
				}
			}
			return false
		}
		if ds, ok := sn.(extensions.DepthSensor); ok && (!isKinded || has(extensions.KindDepthSensor)) {
			ss.HasDepthUnits, ss.DepthUnits = true, ds.DepthUnits()
		}
		if ds, ok := sn.(extensions.DepthStereoSensor); ok && (!isKinded || has(extensions.KindDepthStereoSensor)) {
			ss.HasBaseline, ss.StereoBaselineMM = true, ds.StereoBaselineMM()
		}
		if rf, ok := sn.(extensions.RecommendedFilters); ok {
			ss.RecommendedFilters = append([]string{}, rf.RecommendedFilters()...)
		}
		s.Sensors = append(s.Sensors, ss)
	}
	return s
}

// Capture takes a snapshot of d: it reads every extension its sensors
// implement (extensions.Options, Kinded, DepthSensor, DepthStereoSensor,
// RecommendedFilters) and the extrinsics between its streams. Option values
// that cannot be read are left out.
//
// Extrinsics groups: a device that knows its groups (ExtrinsicsSource)
// reports them and Capture keeps them. Otherwise Capture derives them from
// pairwise queries: in sensor and profile order, each stream joins the group
// of the first earlier pin it has extrinsics from, or else becomes the pin of
// a new group; groups are numbered in the order their pins appear, from
// librealsense's first group for d's kind of device (0 for a live camera).
func Capture(d Device) (*Snapshot, error) {
	s := Describe(d)
	type ref struct {
		key extensions.StreamKey
		p   *sensor.StreamProfile
	}
	var streams []ref
	seen := map[extensions.StreamKey]bool{}
	for i, sn := range d.Sensors() {
		for _, p := range sn.Profiles() {
			k := extensions.StreamKey{Sensor: i, Stream: p.Stream, Index: p.Index}
			if !seen[k] {
				seen[k] = true
				streams = append(streams, ref{k, p})
			}
		}
	}
	if src, ok := d.(ExtrinsicsSource); ok {
		s.Pinned = append(s.Pinned, src.PinnedExtrinsics()...)
		return s, nil
	}
	// Generic device: each stream joins the group of the first earlier pin
	// it has extrinsics from; a stream with extrinsics to itself but to no
	// earlier pin starts a new group.
	first := layout.FirstExtrinsicsGroup(d)
	var pins []ref
	var pinGroup []uint32
	for _, st := range streams {
		if _, err := d.Extrinsics(st.p, st.p); err != nil {
			if errors.Is(err, ErrNoExtrinsics) {
				continue
			}
			return nil, fmt.Errorf("device: extrinsics of %s: %w", st.p.Name(), err)
		}
		joined := false
		for i, pin := range pins {
			e, err := d.Extrinsics(pin.p, st.p)
			if err != nil {
				continue
			}
			s.Pinned = append(s.Pinned, extensions.PinnedExtrinsics{Key: st.key, Group: pinGroup[i], FromPin: e})
			joined = true
			break
		}
		if !joined {
			g := first + uint32(len(pins))
			pins = append(pins, st)
			pinGroup = append(pinGroup, g)
			s.Pinned = append(s.Pinned, extensions.PinnedExtrinsics{Key: st.key, Group: g, FromPin: sensor.IdentityExtrinsics()})
		}
	}
	return s, nil
}

// extrinsicsGraph returns the graph of s.Pinned.
func (s *Snapshot) extrinsicsGraph() *extrinsics.Graph {
	s.once.Do(func() { s.graph = extrinsics.NewGraph(s.Pinned) })
	return s.graph
}

// key returns the stream key of a profile of s (matched by pointer, then by
// UID).
func (s *Snapshot) key(p *sensor.StreamProfile) (extensions.StreamKey, bool) {
	for _, byUID := range []bool{false, true} {
		for i := range s.Sensors {
			for _, q := range s.Sensors[i].Profiles {
				if q == p || (byUID && q.UID == p.UID && q.Same(p)) {
					return extensions.StreamKey{Sensor: s.Sensors[i].Index, Stream: q.Stream, Index: q.Index}, true
				}
			}
		}
	}
	return extensions.StreamKey{}, false
}

// Extrinsics returns the transform between two profiles of s, derived as
// librealsense playback derives it. It returns an error wrapping ErrNotFound
// for a profile not in s and ErrNoExtrinsics when no transform is known.
func (s *Snapshot) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	a, ok := s.key(from)
	if !ok {
		return sensor.Extrinsics{}, fmt.Errorf("device: extrinsics from %s: profile not in device: %w", from.Name(), ErrNotFound)
	}
	b, ok := s.key(to)
	if !ok {
		return sensor.Extrinsics{}, fmt.Errorf("device: extrinsics to %s: profile not in device: %w", to.Name(), ErrNotFound)
	}
	e, ok := s.extrinsicsGraph().Extrinsics(a, b)
	if !ok {
		return sensor.Extrinsics{}, fmt.Errorf("device: extrinsics %s → %s: %w", from.Name(), to.Name(), ErrNoExtrinsics)
	}
	return e, nil
}
