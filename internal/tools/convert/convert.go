// Package convert turns the frames of a bag into files, as librealsense's
// rs-convert tool does (tools/convert in librealsense 2.56.5): PNG pictures
// (depth colorized), RAW frame bytes, CSV depth matrices in meters and one
// CSV of the IMU and pose samples, BIN depth matrices of float32 meters, and
// PLY point clouds of depth with color. File names and contents are
// rs-convert's; where they differ the doc of the writer says why.
//
// The bag is played in non-real-time mode, so no frame is dropped, and the
// files are written by several goroutines at once. Each file appears under
// its final name only when it is complete.
package convert

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// Options chooses the outputs and the frames. Each output is named by a
// path prefix: rs-convert's file names are built on it (PREFIX_Depth_
// 12645.67800000000000.png, ...). An empty prefix writes no such output.
type Options struct {
	PNG, RAW, CSV, BIN, PLY string
	// PLYText writes the point clouds as text PLY instead of binary.
	PLYText bool
	// Stream restricts PNG, RAW and CSV to one stream type (rs-convert's
	// -d and -c); sensor.StreamAny converts every stream.
	Stream sensor.Stream
	// Start and End bound the frames by bag time; End 0 is the end of the
	// bag. Both ends are included, as rs-convert's -s and -e.
	Start, End time.Duration
	// Frames, when not nil, keeps only the frames whose number is in
	// [First, Last] (rs-convert's -f and -t).
	Frames *FrameRange
	// Workers is the number of goroutines writing files (0: GOMAXPROCS).
	Workers int
	// Progress, when not nil, is called after each frame with the bag
	// position played and the bag's duration.
	Progress func(position, duration time.Duration)
	// Time names the IMU and pose CSV file (rs-convert names it by the
	// local time of the conversion); the zero value means time.Now().
	Time time.Time
}

// SetOutput sets the prefix of the output named format ("PNG", "RAW",
// "CSV", "BIN" or "PLY", in any case); it reports false for another name.
func (o *Options) SetOutput(format, prefix string) bool {
	switch strings.ToUpper(format) {
	case "PNG":
		o.PNG = prefix
	case "RAW":
		o.RAW = prefix
	case "CSV":
		o.CSV = prefix
	case "BIN":
		o.BIN = prefix
	case "PLY":
		o.PLY = prefix
	default:
		return false
	}
	return true
}

// FrameRange is an inclusive range of frame numbers.
type FrameRange struct{ First, Last uint64 }

// Result says what a conversion wrote.
type Result struct {
	// Files is the number of files written and Bytes their size.
	Files int
	Bytes int64
	// Converted counts the frames converted per output and stream, e.g.
	// Converted["PNG"]["Depth"].
	Converted map[string]map[string]int
	// Skipped names the streams an output could not convert, with why.
	Skipped map[string]string
	// Damage is what was lost of a damaged bag (nil or empty when none).
	Damage *damage.Report
}

// ErrNoOutput is returned when Options names no output.
var ErrNoOutput = errors.New("convert: no output chosen (PNG, RAW, CSV, BIN or PLY)")

// Run converts the bag at path. A bag that is damaged is converted as far
// as it can be read, and Result.Damage says what was lost; an error is
// returned for a bag that cannot be played or a file that cannot be
// written (the files written before it are complete).
func Run(ctx context.Context, path string, opts Options) (*Result, error) {
	if opts.PNG == "" && opts.RAW == "" && opts.CSV == "" && opts.BIN == "" && opts.PLY == "" {
		return nil, ErrNoOutput
	}
	if opts.End != 0 && opts.End < opts.Start {
		return nil, fmt.Errorf("convert: end %v is before start %v", opts.End, opts.Start)
	}
	po := &playback.Options{NonRealTime: true, Start: opts.Start}
	if opts.End > 0 {
		po.End = opts.End + 1 // End is included
	}
	dev, err := playback.Open(path, po)
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	if err := damage.Playable(dev); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := newConverter(ctx, cancel, dev, opts)
	c.inputs = outfile.NewInputs(path)
	for _, prefix := range []string{opts.PNG, opts.RAW, opts.CSV, opts.BIN, opts.PLY} {
		if prefix != "" { // the temporary files a killed run left
			outfile.RemoveStale(filepath.Dir(prefix), filepath.Base(prefix))
		}
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	ended := extensions.Stopped(dev)
	c.startSensors()
	select {
	case <-ended:
	case <-ctx.Done():
	}
	for _, s := range c.opened {
		s.Stop()
	}
	c.flush()
	c.jobs.wait()
	if err := c.writeMotionCSV(); err != nil {
		c.jobs.fail(err)
	}
	for _, s := range c.opened {
		s.Close()
	}
	if err := errors.Join(c.startErr, c.jobs.err, dev.Err()); err != nil {
		return c.result(dev), err
	}
	if err := ctx.Err(); err != nil {
		return c.result(dev), err
	}
	return c.result(dev), nil
}

// converter holds one conversion's state; frame is called from the
// playback's delivery, one frame at a time (mu).
type converter struct {
	ctx    context.Context
	dev    *playback.Device
	opts   Options
	jobs   *pool
	opened []sensor.Sensor

	mu        sync.Mutex
	seen      map[seenKey]bool
	converted map[string]map[string]int
	skipped   map[string]string
	motion    map[motionKey][]motionRecord
	startErr  error

	col       *processing.Colorizer
	pc        *processing.PointCloud
	depthP    *sensor.StreamProfile // the PLY's depth and color profiles
	colorP    *sensor.StreamProfile
	pending   []*sensor.Frame // depth frames waiting for a color frame after them
	lastColor *sensor.Frame
	written   writtenCount
	inputs    *outfile.Inputs // the bag, which no output may replace
}

type seenKey struct {
	output string
	stream sensor.Stream
	index  int
	number uint64
}

func newConverter(ctx context.Context, cancel context.CancelFunc, dev *playback.Device, opts Options) *converter {
	n := opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if opts.Time.IsZero() {
		opts.Time = time.Now()
	}
	return &converter{
		ctx: ctx, dev: dev, opts: opts, jobs: newPool(ctx, cancel, n),
		seen: map[seenKey]bool{}, converted: map[string]map[string]int{}, skipped: map[string]string{},
		motion: map[motionKey][]motionRecord{}, col: processing.NewColorizer(),
	}
}

// wants reports whether any output takes frames of profile p.
func (c *converter) wants(p *sensor.StreamProfile) bool {
	o := c.opts
	if c.plyProfile(p) {
		return true
	}
	if o.Stream != sensor.StreamAny && p.Stream != o.Stream {
		return false
	}
	switch p.Kind {
	case sensor.KindVideo:
		return o.PNG != "" || o.RAW != "" || (p.Stream == sensor.StreamDepth && (o.CSV != "" || o.BIN != ""))
	default:
		return o.CSV != ""
	}
}

func (c *converter) plyProfile(p *sensor.StreamProfile) bool {
	return c.opts.PLY != "" && c.depthP != nil && (p.Same(c.depthP) || p.Same(c.colorP))
}

// start finds the PLY's streams and opens the sensors whose streams an
// output takes.
func (c *converter) start() error {
	if c.opts.PLY != "" {
		for _, s := range c.dev.Sensors() {
			for _, p := range s.Profiles() {
				if p.Stream == sensor.StreamDepth && p.Format == sensor.FormatZ16 && c.depthP == nil {
					c.depthP = p
				}
				if p.Stream == sensor.StreamColor && c.colorP == nil {
					c.colorP = p
				}
			}
		}
		if c.depthP == nil || c.colorP == nil {
			c.skipped["PLY"] = "the bag has no Z16 depth and color streams to make colored point clouds of"
		} else {
			ex, err := c.dev.Extrinsics(c.depthP, c.colorP)
			if err != nil {
				c.skipped["PLY"] = fmt.Sprintf("no extrinsics from depth to color to color the points with: %v", err)
				c.depthP, c.colorP = nil, nil
			} else {
				c.pc = processing.NewPointCloud()
				if err := c.pc.MapTo(c.colorP, ex); err != nil {
					return fmt.Errorf("convert: PLY: %w", err)
				}
			}
		}
	}
	for _, s := range c.dev.Sensors() {
		var open []*sensor.StreamProfile
		for _, p := range s.Profiles() {
			if c.wants(p) {
				open = append(open, p)
			}
		}
		if len(open) == 0 {
			continue
		}
		if err := s.Open(open...); err != nil {
			return fmt.Errorf("convert: open %v: %w", open, err)
		}
		c.opened = append(c.opened, s)
	}
	if len(c.opened) == 0 {
		return errors.New("convert: the bag has no stream the chosen outputs convert")
	}
	return nil
}

func (c *converter) startSensors() {
	for _, s := range c.opened {
		if err := s.Start(sensor.HandlerFunc(c.frame)); err != nil {
			c.startErr = err
			c.jobs.cancel()
			return
		}
	}
}

// frame takes one delivered frame: it counts it, filters it and hands its
// files to the workers (blocking while they are busy, which holds the
// non-real-time playback back).
func (c *converter) frame(f *sensor.Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() != nil {
		return
	}
	if c.opts.Progress != nil {
		c.opts.Progress(c.dev.Position(), c.dev.Duration())
	}
	p := f.Profile
	if c.pc != nil && c.plyProfile(p) {
		c.pair(f) // the frame range applies to the depth frame
	}
	if r := c.opts.Frames; r != nil && (f.Number < r.First || f.Number > r.Last) {
		return
	}
	if c.opts.Stream == sensor.StreamAny || p.Stream == c.opts.Stream {
		switch {
		case f.IsVideo():
			c.video(f)
		case c.opts.CSV != "":
			c.addMotion(f)
		}
	}
}

// video hands a video frame to PNG, RAW, CSV and BIN.
func (c *converter) video(f *sensor.Frame) {
	p := f.Profile
	depth := p.Stream == sensor.StreamDepth && p.Format == sensor.FormatZ16
	if c.opts.PNG != "" {
		c.submit("PNG", f, c.writePNG)
	}
	if c.opts.RAW != "" {
		c.submit("RAW", f, c.writeRAW)
	}
	if depth && c.opts.CSV != "" {
		c.submit("CSV", f, c.writeCSV)
	}
	if depth && c.opts.BIN != "" {
		c.submit("BIN", f, c.writeBIN)
	}
}

// submit queues the files of output for f, once per frame number of a
// stream, as rs-convert's frames_map_get_and_set.
func (c *converter) submit(output string, f *sensor.Frame, write func(*sensor.Frame) error) {
	if reason, ok := c.cannot(output, f); ok {
		key := output + " " + streamName(f.Profile)
		if _, done := c.skipped[key]; !done {
			c.skipped[key] = reason
		}
		return
	}
	k := seenKey{output, f.Profile.Stream, f.Profile.Index, f.Number}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.count(output, streamName(f.Profile))
	c.jobs.run(func() error { return write(f) })
}

func (c *converter) count(output, stream string) {
	m := c.converted[output]
	if m == nil {
		m = map[string]int{}
		c.converted[output] = m
	}
	m[stream]++
}

// pair takes a frame of the PLY's depth or color stream and queues the
// point cloud of each depth frame once the color frame nearest to it in
// time is known: the last color frame before it or the first at or after
// it, whichever is closer (the earlier on a tie). Depth frames wait in
// order for a color frame at or after them.
func (c *converter) pair(f *sensor.Frame) {
	if f.Profile.Same(c.depthP) {
		c.pending = append(c.pending, f)
		if len(c.pending) > maxPending && c.lastColor != nil {
			c.queuePLY(c.pending[0], c.lastColor) // the color stream stalls
			c.pending = c.pending[1:]
		}
		return
	}
	n := 0
	for _, d := range c.pending {
		if f.TimestampMs < d.TimestampMs {
			break
		}
		color := f
		if last := c.lastColor; last != nil && d.TimestampMs-last.TimestampMs <= f.TimestampMs-d.TimestampMs {
			color = last
		}
		c.queuePLY(d, color)
		n++
	}
	c.pending = c.pending[n:]
	c.lastColor = f
}

// maxPending bounds the depth frames that wait for a color frame.
const maxPending = 64

func (c *converter) queuePLY(depth, color *sensor.Frame) {
	if color == nil {
		if _, ok := c.skipped["PLY"]; !ok {
			c.skipped["PLY"] = fmt.Sprintf("depth frame %d: no color frame to color its points with", depth.Number)
		}
		return
	}
	if r := c.opts.Frames; r != nil && (depth.Number < r.First || depth.Number > r.Last) {
		return
	}
	k := seenKey{"PLY", sensor.StreamAny, depth.Profile.Index, depth.Number}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.count("PLY", "Depth")
	c.jobs.run(func() error { return c.writePLY(depth, color) })
}

// flush queues the point cloud of the last depth frame.
func (c *converter) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() == nil {
		for _, d := range c.pending {
			c.queuePLY(d, c.lastColor)
		}
	}
	c.pending = nil
}

func (c *converter) result(dev *playback.Device) *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	files, bytes := c.written.get()
	return &Result{Files: files, Bytes: bytes, Converted: c.converted, Skipped: c.skipped, Damage: damage.FromPlayback(dev)}
}

// Outputs returns the names of the outputs of r in a fixed order.
func (r *Result) Outputs() []string {
	var out []string
	for k := range r.Converted {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// pool runs jobs on n goroutines; the first error cancels the conversion.
type pool struct {
	ctx    context.Context
	cancel context.CancelFunc
	queue  chan func() error
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	closed bool
}

func newPool(ctx context.Context, cancel context.CancelFunc, n int) *pool {
	p := &pool{ctx: ctx, cancel: cancel, queue: make(chan func() error, 2*n)}
	p.wg.Add(n)
	for range n {
		go func() {
			defer p.wg.Done()
			for job := range p.queue {
				if p.ctx.Err() != nil {
					continue
				}
				if err := job(); err != nil {
					p.fail(err)
				}
			}
		}()
	}
	return p
}

// run queues job, waiting while the queue is full; it drops the job when
// the conversion is cancelled.
func (p *pool) run(job func() error) {
	select {
	case p.queue <- job:
	case <-p.ctx.Done():
	}
}

func (p *pool) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
	p.cancel()
}

// wait lets the queued jobs finish.
func (p *pool) wait() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.queue)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// writtenCount counts the files written (from the workers).
type writtenCount struct {
	mu    sync.Mutex
	files int
	bytes int64
}

func (w *writtenCount) add(n int64) {
	w.mu.Lock()
	w.files++
	w.bytes += n
	w.mu.Unlock()
}

func (w *writtenCount) get() (int, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files, w.bytes
}
