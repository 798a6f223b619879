package software

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/extrinsics"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/sensor"
)

func nextUID() int { return sensor.NextUID() }

// Device is a software device. It is safe for concurrent use.
type Device struct {
	mu      sync.Mutex
	infos   infoSet
	sensors []*Sensor
	keys    map[*sensor.StreamProfile]extensions.StreamKey
	regs    []registration
	graph   *extrinsics.Graph // cache, nil when stale
	pinned  []extensions.PinnedExtrinsics
	closed  bool
	onClose []func()        // run by Close after the sensors are closed
	rt      sensorrt.Device // refuses Close from the goroutines it would wait for, closes once
}

type registration struct {
	from, to extensions.StreamKey
	e        sensor.Extrinsics
}

var (
	_ device.Counting         = (*Device)(nil)
	_ device.ExtrinsicsSource = (*Device)(nil)
)

// New returns an empty software device with the given info (copied; nil for
// none).
func New(info sensor.Info) *Device {
	if info == nil {
		info = sensor.Info{}
	}
	return &Device{infos: infoSet{info: info.Clone()}, keys: map[*sensor.StreamProfile]extensions.StreamKey{},
		rt: sensorrt.Device{Name: "software device"}}
}

// String returns the device name.
func (d *Device) String() string {
	if n, ok := d.infos.get(sensor.CameraInfoName); ok {
		return n
	}
	return "Software Device"
}

// Info returns a copy of the device info.
func (d *Device) Info() sensor.Info { return d.infos.clone() }

// SetInfo sets a device info value (rs2::software_device::register_info);
// an empty value removes it.
func (d *Device) SetInfo(k sensor.CameraInfo, v string) { d.infos.set(k, v) }

// infoSet is camera info with its own lock.
type infoSet struct {
	mu   sync.Mutex
	info sensor.Info
}

func (i *infoSet) get(k sensor.CameraInfo) (string, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	v, ok := i.info[k]
	return v, ok
}

func (i *infoSet) clone() sensor.Info {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.info.Clone()
}

func (i *infoSet) set(k sensor.CameraInfo, v string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.info.Set(k, v)
}

// AddSensor adds a sensor named name (its CameraInfoName) with librealsense's
// Frames Queue Size option.
func (d *Device) AddSensor(name string) *Sensor {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := newSensor(d, len(d.sensors), name)
	d.sensors = append(d.sensors, s)
	d.rt.Own(&s.handlers)
	return s
}

// Sensors returns the sensors in device order.
func (d *Device) Sensors() []sensor.Sensor {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]sensor.Sensor, len(d.sensors))
	for i, s := range d.sensors {
		out[i] = s
	}
	return out
}

// Stats returns the frame counters of every stream started on the device
// (device.StreamStats), sensor by sensor in device order, each sensor's in
// the order they were opened; they add up over starts. A software device
// waits for its handler (Inject), so it drops and loses nothing: Delivered
// counts every frame.
func (d *Device) Stats() []device.StreamStats {
	var out []device.StreamStats
	for _, s := range d.softwareSensors() {
		s.count.Each(func(p *sensor.StreamProfile, c *sensorrt.Counters) {
			out = append(out, device.StreamStats{Profile: p, Delivered: c.Delivered.Load(), Dropped: c.Dropped.Load(), Lost: c.Lost.Load()})
		})
	}
	return out
}

// SoftwareSensors returns the sensors in device order, typed.
func (d *Device) softwareSensors() []*Sensor {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*Sensor(nil), d.sensors...)
}

func (d *Device) addProfile(p *sensor.StreamProfile, k extensions.StreamKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.keys[p] = k
}

// RegisterExtrinsics records the transform from one stream to another (both
// profiles of this device), as rs2::software_device::register_extrinsic.
func (d *Device) RegisterExtrinsics(from, to *sensor.StreamProfile, e sensor.Extrinsics) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.keys[from]
	if !ok {
		return fmt.Errorf("software device: register extrinsics from %s: profile not in device: %w", from.Name(), sensor.ErrNoProfile)
	}
	b, ok := d.keys[to]
	if !ok {
		return fmt.Errorf("software device: register extrinsics to %s: profile not in device: %w", to.Name(), sensor.ErrNoProfile)
	}
	d.regs = append(d.regs, registration{a, b, e})
	d.graph = nil
	return nil
}

// rebuild derives the pin→stream form of the registrations. Caller holds mu.
func (d *Device) rebuild() {
	if d.graph != nil {
		return
	}
	type edge struct {
		to extensions.StreamKey
		e  sensor.Extrinsics // from → to
	}
	adj := map[extensions.StreamKey][]edge{}
	for _, r := range d.regs {
		adj[r.from] = append(adj[r.from], edge{r.to, r.e})
		adj[r.to] = append(adj[r.to], edge{r.from, r.e.Inverse()})
	}
	done := map[extensions.StreamKey]bool{}
	var pinned []extensions.PinnedExtrinsics
	group := layout.FirstGroupSoftware
	for _, r := range d.regs {
		if done[r.from] {
			continue
		}
		// Breadth-first from the pin, composing along the first path found.
		pin := r.from
		done[pin] = true
		fromPin := map[extensions.StreamKey]sensor.Extrinsics{pin: sensor.IdentityExtrinsics()}
		pinned = append(pinned, extensions.PinnedExtrinsics{Key: pin, Group: group, FromPin: fromPin[pin]})
		queue := []extensions.StreamKey{pin}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, ed := range adj[x] {
				if done[ed.to] {
					continue
				}
				done[ed.to] = true
				var e sensor.Extrinsics
				if x == pin {
					e = ed.e
				} else {
					e = ed.e.Compose(fromPin[x])
				}
				fromPin[ed.to] = e
				pinned = append(pinned, extensions.PinnedExtrinsics{Key: ed.to, Group: group, FromPin: e})
				queue = append(queue, ed.to)
			}
		}
		group++
	}
	sort.SliceStable(pinned, func(i, j int) bool { return pinned[i].Key.Less(pinned[j].Key) })
	d.pinned = pinned
	d.graph = extrinsics.NewGraph(pinned)
}

// PinnedExtrinsics returns, for every stream with registered extrinsics, the
// transform from its group's pin to it (what a recorder writes as tf), in
// (sensor, stream, index) order. Groups are numbered from 1 in order of their first registration, as in
// bags written from librealsense software devices.
func (d *Device) PinnedExtrinsics() []extensions.PinnedExtrinsics {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rebuild()
	return append([]extensions.PinnedExtrinsics(nil), d.pinned...)
}

// Extrinsics returns the transform between two profiles of the device, as
// librealsense playback of a recording of it would report it.
func (d *Device) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.keyLocked(from)
	if !ok {
		return sensor.Extrinsics{}, fmt.Errorf("software device: extrinsics from %s: profile not in device: %w", from.Name(), device.ErrNotFound)
	}
	b, ok := d.keyLocked(to)
	if !ok {
		return sensor.Extrinsics{}, fmt.Errorf("software device: extrinsics to %s: profile not in device: %w", to.Name(), device.ErrNotFound)
	}
	d.rebuild()
	e, ok := d.graph.Extrinsics(a, b)
	if !ok {
		return sensor.Extrinsics{}, fmt.Errorf("software device: extrinsics %s → %s: %w", from.Name(), to.Name(), device.ErrNoExtrinsics)
	}
	return e, nil
}

// keyLocked returns the stream key of p: that of the profile itself, or,
// for a profile a processing block derived from one of the device's
// (another size or format, a copy), that of the device's stream of its type
// and index, whose extrinsics librealsense gives the profiles it derives.
func (d *Device) keyLocked(p *sensor.StreamProfile) (extensions.StreamKey, bool) {
	if k, ok := d.keys[p]; ok {
		return k, true
	}
	if p == nil {
		return extensions.StreamKey{}, false
	}
	var best extensions.StreamKey
	found := false
	for q, k := range d.keys { // the first sensor's, if several have it
		if q.Stream == p.Stream && q.Index == p.Index && (!found || k.Sensor < best.Sensor) {
			best, found = k, true
		}
	}
	return best, found
}

// Close stops and closes every sensor. It is idempotent and returns the same
// error every time. Called from a handler of one of its sensors (or, on the
// synthetic camera, from its timeline: hooks and notification callbacks), it
// cannot wait for that goroutine: it returns an error wrapping
// sensor.ErrStopFromHandler and closes nothing.
func (d *Device) Close() error {
	return d.rt.Close(func() error {
		d.mu.Lock()
		d.closed = true
		sensors := append([]*Sensor(nil), d.sensors...)
		hooks := d.onClose
		d.mu.Unlock()
		var errs []error
		for _, s := range sensors {
			if err := s.shutdown(); err != nil {
				errs = append(errs, err)
			}
		}
		for _, f := range hooks {
			f()
		}
		return errors.Join(errs...)
	})
}
