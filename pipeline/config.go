package pipeline

import (
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/software"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
)

// Any values for StreamRequest fields, as librealsense's wildcards.
const (
	AnyIndex = -1 // any stream index
	AnySize  = 0  // any width or height
	AnyFPS   = 0  // any frame rate
)

// StreamRequest asks for a stream: Stream (sensor.StreamAny for any),
// Index (AnyIndex), Width and Height (AnySize), Format (sensor.FormatAny)
// and FPS (AnyFPS). Unset fields are filled from the device's profiles
// when the request is resolved.
type StreamRequest struct {
	Stream        sensor.Stream
	Index         int
	Width, Height int
	Format        sensor.Format
	FPS           int
}

// String describes the request, "*" for wildcards, e.g. "Depth/* *x*@30".
func (r StreamRequest) String() string {
	w := func(v int, any bool) string {
		if any {
			return "*"
		}
		return fmt.Sprint(v)
	}
	stream, format := r.Stream.String(), r.Format.String()
	if r.Stream == sensor.StreamAny {
		stream = "*"
	}
	if r.Format == sensor.FormatAny {
		format = "*"
	}
	return fmt.Sprintf("%s/%s %s %sx%s@%s", stream, w(r.Index, r.Index == AnyIndex), format,
		w(r.Width, r.Width == AnySize), w(r.Height, r.Height == AnySize), w(r.FPS, r.FPS == AnyFPS))
}

func (r StreamRequest) wild() bool {
	return r.FPS == AnyFPS || r.Stream == sensor.StreamAny || r.Format == sensor.FormatAny || r.Width == AnySize || r.Height == AnySize || r.Index == AnyIndex
}

// matches reports whether profile p satisfies r (wildcards match all).
func (r StreamRequest) matches(p *sensor.StreamProfile) bool {
	if r.Stream != sensor.StreamAny && p.Stream != r.Stream {
		return false
	}
	if r.Index != AnyIndex && p.Index != r.Index {
		return false
	}
	if r.Format != sensor.FormatAny && p.Format != r.Format {
		return false
	}
	if r.FPS != AnyFPS && p.FPS != 0 && p.FPS != r.FPS {
		return false
	}
	if p.Kind == sensor.KindVideo {
		if r.Width != AnySize && p.Width != r.Width || r.Height != AnySize && p.Height != r.Height {
			return false
		}
	}
	return true
}

// requestOf returns the request that names p exactly (motion and pose
// profiles have size 1x1, as in librealsense).
func requestOf(p *sensor.StreamProfile) StreamRequest {
	r := StreamRequest{Stream: p.Stream, Index: p.Index, Format: p.Format, FPS: p.FPS, Width: 1, Height: 1}
	if p.Kind == sensor.KindVideo {
		r.Width, r.Height = p.Width, p.Height
	}
	return r
}

type streamKey struct {
	stream sensor.Stream
	index  int
}

func keyLess(a, b streamKey) bool {
	return a.stream < b.stream || a.stream == b.stream && a.index < b.index
}

// Config says which device a Pipeline uses and which of its streams, as
// librealsense's rs2::config. The zero value asks for the default streams
// of the first camera (or the synthetic camera when none is attached). It
// is safe for concurrent use.
type Config struct {
	mu        sync.Mutex
	requests  map[streamKey]StreamRequest
	disabled  []streamKey
	all       bool
	serial    string
	file      string
	repeat    bool
	record    string
	synthetic bool
	syncfg    *software.SyntheticConfig
	nonRT     bool
}

// EnableStream asks for a stream; a later request for the same stream and
// index replaces it.
func (c *Config) EnableStream(r StreamRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests == nil {
		c.requests = map[streamKey]StreamRequest{}
	}
	k := streamKey{r.Stream, r.Index}
	c.requests[k] = r
	c.disabled = slices.DeleteFunc(c.disabled, func(d streamKey) bool { return d == k })
}

// EnableAllStreams asks for every stream of the device (one profile each).
func (c *Config) EnableAllStreams() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests, c.disabled, c.all = nil, nil, true
}

// DisableStream removes the requests for stream s of index i (AnyIndex:
// every index) and keeps s out of default and all-stream configurations.
func (c *Config) DisableStream(s sensor.Stream, i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.disabled = append(c.disabled, streamKey{s, max(i, 0)})
	for k := range c.requests {
		if k.stream == s && (i == AnyIndex || k.index == i) {
			delete(c.requests, k)
		}
	}
}

// DisableAllStreams removes every request and the all-streams request.
func (c *Config) DisableAllStreams() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests, c.disabled, c.all = nil, nil, false
}

// EnableDevice asks for the camera with this serial number.
func (c *Config) EnableDevice(serial string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.serial = serial
}

// EnableDeviceFromFile plays the bag at path instead of using a camera;
// repeat plays it in a loop. librealsense's default is to repeat; here the
// caller says, and a pipeline that does not repeat ends with ErrEndOfStream,
// so that a program processing a recording ends when the recording does.
func (c *Config) EnableDeviceFromFile(path string, repeat bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.record != "" {
		return errors.New("pipeline: a config cannot both play a file and record to a file")
	}
	c.file, c.repeat = path, repeat
	return nil
}

// SetRealTime chooses how a file is played: in real time (the default),
// or, with false, as fast as the framesets are taken and without losing
// any (librealsense's playback set_real_time(false), set before the first
// frame is read).
func (c *Config) SetRealTime(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nonRT = !on
}

// EnableRecordToFile records what the pipeline streams to a bag at path.
// As in librealsense, an existing file at path is replaced — but only by a
// Start that succeeds: Start resolves the config before it creates the
// file, and a Start that fails leaves an existing file as it was and
// creates none.
func (c *Config) EnableRecordToFile(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file != "" {
		return errors.New("pipeline: a config cannot both play a file and record to a file")
	}
	c.record = path
	return nil
}

// EnableSynthetic uses the built-in synthetic camera even when a camera
// is attached.
func (c *Config) EnableSynthetic() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.synthetic = true
}

// SetSynthetic configures the synthetic camera the pipeline uses (with
// EnableSynthetic, or when no camera is attached) instead of
// DefaultSynthetic's.
func (c *Config) SetSynthetic(cfg software.SyntheticConfig) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncfg = &cfg
}

// ErrUnresolvable reports a config the device cannot satisfy.
var ErrUnresolvable = errors.New("pipeline: config cannot be resolved")

// Resolve returns the stream profiles of dev that the config selects,
// sensor by sensor, with librealsense's rules: with no request, each
// sensor's default profiles; with requests, for each sensor the requests
// some of its profiles satisfy, wildcards filled from its first profile
// that matches and agrees with the other requests on that sensor (frame
// rate and size). A request no sensor satisfies is an error naming it.
func (c *Config) Resolve(dev device.Device) ([]*sensor.StreamProfile, error) {
	c.mu.Lock()
	reqs := c.requestsLocked(dev)
	c.mu.Unlock()
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%w: no stream is enabled", ErrUnresolvable)
	}
	keys := make([]streamKey, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	var out []*sensor.StreamProfile
	satisfied := map[streamKey]bool{}
	for _, s := range dev.Sensors() {
		profiles := s.Profiles()
		var targets []StreamRequest
		for _, k := range keys {
			if satisfied[k] {
				continue
			}
			r := reqs[k]
			if slices.ContainsFunc(profiles, r.matches) {
				targets = append(targets, r)
				satisfied[k] = true
			}
		}
		if len(targets) == 0 {
			continue
		}
		for i := range targets {
			if !targets[i].wild() {
				continue
			}
			for _, p := range profiles {
				if targets[i].matches(p) && !contradicts(p, targets) {
					targets[i] = requestOf(p)
					break
				}
			}
			if targets[i].wild() {
				return nil, fmt.Errorf("%w: %s: no profile of sensor %q agrees with the other streams asked of it (%s)",
					ErrUnresolvable, targets[i], s.Info()[sensor.CameraInfoName], requestsString(targets))
			}
		}
		for _, t := range targets {
			for _, p := range profiles {
				if t.matches(p) {
					out = append(out, p)
					break
				}
			}
		}
	}
	var missing []string
	for _, k := range keys {
		if !satisfied[k] {
			missing = append(missing, reqs[k].String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: no stream of the device matches %s", ErrUnresolvable, strings.Join(missing, ", "))
	}
	return out, nil
}

// CanResolve reports whether Resolve would succeed on dev.
func (c *Config) CanResolve(dev device.Device) bool {
	_, err := c.Resolve(dev)
	return err == nil
}

func requestsString(rs []StreamRequest) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}

// contradicts reports whether video profile p disagrees with one of the
// requests on frame rate or size (librealsense's device::contradicts).
func contradicts(p *sensor.StreamProfile, reqs []StreamRequest) bool {
	if p.Kind != sensor.KindVideo {
		return false
	}
	for _, r := range reqs {
		if p.FPS != 0 && r.FPS != AnyFPS && p.FPS != r.FPS ||
			p.Width != 0 && r.Width != AnySize && p.Width != r.Width ||
			p.Height != 0 && r.Height != AnySize && p.Height != r.Height {
			return true
		}
	}
	return false
}

// requestsLocked returns the requests the config stands for on dev: the
// explicit ones, or one per stream of every sensor (all streams: its best
// profile, preferring 640x480, then 30 fps, then Z16 depth, RGB8 color
// and Y8 infrared, as librealsense ranks them) or per default profile,
// less the disabled streams.
func (c *Config) requestsLocked(dev device.Device) map[streamKey]StreamRequest {
	out := map[streamKey]StreamRequest{}
	isDisabled := func(s sensor.Stream, i int, explicit bool) bool {
		for _, d := range c.disabled {
			if d.stream == s {
				if explicit {
					return !(d.index > 0 && d.index != i)
				}
				return d.index == i
			}
		}
		return false
	}
	if c.all || len(c.requests) == 0 {
		for _, s := range dev.Sensors() {
			for _, p := range s.Profiles() {
				if !c.all && !p.Default {
					continue
				}
				if isDisabled(p.Stream, p.Index, false) {
					continue
				}
				k := streamKey{p.Stream, p.Index}
				if old, ok := out[k]; ok && c.all && quality(old) >= quality(requestOf(p)) {
					continue
				}
				out[k] = requestOf(p)
			}
		}
		return out
	}
	for k, r := range c.requests {
		if isDisabled(r.Stream, r.Index, true) {
			continue
		}
		out[k] = r
	}
	return out
}

// quality ranks a profile for all-streams configurations.
func quality(r StreamRequest) int {
	q := 0
	if r.Width == 640 && r.Height == 480 {
		q += 4
	}
	if r.FPS == 30 {
		q += 2
	}
	switch {
	case r.Stream == sensor.StreamColor && r.Format == sensor.FormatRGB8,
		r.Stream == sensor.StreamDepth && r.Format == sensor.FormatZ16,
		r.Stream == sensor.StreamInfrared && r.Format == sensor.FormatY8:
		q++
	}
	return q
}
