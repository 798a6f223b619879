package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/software/scene"
)

// recordConfig holds the flags of "rs-record record".
type recordConfig struct {
	file      string
	seconds   float64
	timeSet   bool // -t given explicitly
	frames    int
	synthetic bool
	depth     streamSpec
	color     streamSpec
	ir        streamSpec
	irCount   int
	accel     int
	gyro      int
	pose      int
	speed     float64
	metadata  string
	compress  bool
	chunkSize sizeValue
	recordUSB string          // hidden: USB fixture capture
	devices   int             // --devices N: a session of N cameras
	serials   []string        // --device SERIAL (repeated)
	given     map[string]bool // stream flags given on the command line
	force     bool            // --force: replace existing files
	notes     []record.Note   // --note KEY=VALUE (repeated), for /additional_info
	film      filmFlags       // what the synthetic camera films
}

// filmFlags are the synthetic camera's scene flags (software.SceneConfig).
type filmFlags struct {
	scene      string // a built-in scene, or scenePattern
	seed       uint64
	motion     string
	projector  bool
	depthNoise float64
	edgeHoles  bool
	motionBlur bool
	imuNoise   bool
	truth      bool // --ground-truth
}

// scenePattern is the --scene value of the reference pattern: the frames
// of the reference bags of testdata/librealsense, and no scene.
const scenePattern = "pattern"

// session reports whether several cameras are recorded as one session; one
// --device SERIAL records that camera alone, to FILE.
func (c *recordConfig) session() bool { return c.devices > 0 || len(c.serials) > 1 }

// serial is the serial number of the one camera to record ("" for the
// first found).
func (c *recordConfig) serial() string {
	if len(c.serials) == 1 {
		return c.serials[0]
	}
	return ""
}

// maxDevices bounds --devices.
const maxDevices = 16

// Defaults: librealsense's rs-record records 10 s; the stream set of the
// synthetic camera is that of a D435i (depth 848x480@30 Z16, color
// 1280x720@30 RGB8, accel 250 Hz, gyro 200 Hz); a live camera's is its own
// (recordConfig.fromCamera).
const (
	defaultSeconds = 10
	defaultFile    = "test.bag"
	defaultAccelHz = 250
	defaultGyroHz  = 200
)

func parseRecordFlags(e *env, args []string) (*recordConfig, error) {
	c := &recordConfig{
		depth:     streamSpec{Width: 848, Height: 480, FPS: 30},
		color:     streamSpec{Width: 1280, Height: 720, FPS: 30},
		ir:        streamSpec{},
		accel:     defaultAccelHz,
		gyro:      defaultGyroHz,
		speed:     1,
		metadata:  "basic",
		film:      filmFlags{scene: scene.Names[0], motion: scene.Motions[0]},
		compress:  true,
		chunkSize: 768 << 10,
	}
	fs := newFlagSet(e, "record", "record [flags]\n\n"+
		"Records the first RealSense camera found, or the synthetic camera when there is none,\n"+
		"to a RealSense bag (file version 3). Ctrl-C stops the recording and leaves an indexed bag.")
	fs.StringVar(&c.file, "file", defaultFile, "write the recording to `PATH`")
	fs.StringVar(&c.file, "f", defaultFile, "alias:file")
	floatIn(fs, &c.seconds, "time", defaultSeconds, 0, maxSeconds, false, "stop after `SECONDS` (0: at Ctrl-C; with --frames and no -t: no time limit)")
	fs.Var(rangeFloat{&c.seconds, 0, maxSeconds, false}, "t", "alias:time")
	fs.IntVar(&c.frames, "frames", 0, "stop after `N` frames of every stream (0: no limit)")
	fs.BoolVar(&c.synthetic, "synthetic", false, "record the synthetic camera even if a camera is attached")
	fs.Var(&c.depth, "depth", "depth stream `WxH@FPS[:FMT]`, or off")
	fs.Var(&c.color, "color", "color stream `WxH@FPS[:FMT]`, or off")
	fs.Var(&c.ir, "ir", "infrared stream(s) `WxH@FPS[:FMT]`, or off")
	fs.IntVar(&c.irCount, "ir-count", 1, "number of infrared streams (`N` = 1 or 2) when --ir is on")
	fs.Var(rateHz{&c.accel}, "accel", "accelerometer rate in `HZ`, or off")
	fs.Var(rateHz{&c.gyro}, "gyro", "gyroscope rate in `HZ`, or off")
	fs.Var(rateHz{&c.pose}, "pose", "pose rate in `HZ`, or off (a tracking camera's: the synthetic D435i has none, and a D400 bag cannot hold one)")
	floatIn(fs, &c.speed, "speed", 1, 0, 1000, false, "synthetic camera speed factor `X` from 0.001 to 1000 (0: as fast as possible)")
	fs.Var(oneOf{&c.metadata, []string{"none", "basic", "rich"}}, "metadata", "frame metadata of the synthetic camera: `none|basic|rich`")
	fs.Var(oneOf{&c.film.scene, append(slices.Clone(scene.Names), scenePattern)}, "scene",
		"what the synthetic camera films: `"+strings.Join(scene.Names, "|")+"|"+scenePattern+"` ("+scenePattern+": the reference bags' test pattern)")
	fs.Uint64Var(&c.film.seed, "seed", 0, "lay the synthetic scene out, and draw its noise, from `N`")
	fs.Var(oneOf{&c.film.motion, scene.Motions}, "motion", "the synthetic camera's trajectory: `"+strings.Join(scene.Motions, "|")+"`")
	fs.BoolVar(&c.film.projector, "projector", false, "show the emitter's dot pattern in the synthetic infrared")
	floatIn(fs, &c.film.depthNoise, "depth-noise", 0, 0, 10, false, "synthetic depth noise: the stereo match's RMS error in `PIXELS` (the depth error grows with the distance squared)")
	fs.BoolVar(&c.film.edgeHoles, "edge-holes", false, "no synthetic depth beside depth edges")
	fs.BoolVar(&c.film.motionBlur, "motion-blur", false, "blur synthetic color and infrared over the exposure")
	fs.BoolVar(&c.film.imuNoise, "imu-noise", false, "add noise and bias to the synthetic accel and gyro (the variances of their motion intrinsics)")
	fs.BoolVar(&c.film.truth, "ground-truth", false, "record the synthetic scene's ground truth beside the streams: each frame's camera pose and the\n"+
		"exact depth, on topics of their own ("+layout.GroundTruthPrefix+"...) that librealsense ignores")
	fs.BoolVar(&c.compress, "compress", true, "LZ4-compress the chunks")
	fs.Var(negBool{&c.compress}, "no-compress", "write uncompressed chunks")
	fs.Var(&c.chunkSize, "chunk-size", "chunk size `BYTES` (suffixes KiB, MiB)")
	fs.IntVar(&c.devices, "devices", 0, "record the first `N` cameras together (with --synthetic: N synthetic cameras) as one session:\n"+
		"one bag per camera, FILE.SERIAL.bag, and the manifest FILE.session.json")
	fs.Var(repeated{&c.serials}, "device", "record the camera with serial number `SERIAL` (an error when none has it; repeat for a\n"+
		"session of several; with --synthetic: the synthetic cameras' serial numbers)")
	fs.Var(noteFlag{&c.notes}, "note", "add `KEY=VALUE` to the recording's /additional_info, shown by info (repeat for several)")
	fs.BoolVar(&c.force, "force", false, "replace the recording's files if they exist (without it an existing file is an error)")
	fs.StringVar(&c.recordUSB, "record-usb", "", "hidden: capture the USB exchange with the camera to `FILE` (test fixtures)")
	pos, err := parseArgs(fs, "record", args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usageErrorf("record", "unexpected argument %q (the output file is given with -f)", pos[0])
	}
	c.timeSet = flagSet(fs, "t", "time")
	c.given = map[string]bool{}
	for _, name := range []string{"depth", "color", "ir", "accel", "gyro"} {
		c.given[name] = flagSet(fs, name)
	}
	switch {
	case c.file == "":
		return nil, usageErrorf("record", "-f: empty file name")
	case c.seconds < 0:
		return nil, usageErrorf("record", "-t: %g is negative", c.seconds)
	case c.frames < 0:
		return nil, usageErrorf("record", "--frames: %d is negative", c.frames)
	case c.irCount < 1 || c.irCount > 2:
		return nil, usageErrorf("record", "--ir-count: %d is not 1 or 2", c.irCount)
	case synthscript.CheckMotion(c.accel) != nil || synthscript.CheckMotion(c.gyro) != nil || synthscript.CheckMotion(c.pose) != nil:
		return nil, usageErrorf("record", "--accel %d, --gyro %d, --pose %d: each rate must be in [0, %d] Hz", c.accel, c.gyro, c.pose, synthscript.MaxMotionFPS)
	case c.recordUSB != "" && c.synthetic:
		return nil, usageErrorf("record", "--record-usb captures a live camera: it cannot be used with --synthetic")
	case c.speed < 0 || c.speed > 0 && c.speed < minRate:
		return nil, usageErrorf("record", "--speed: %g: want 0 (as fast as possible) or a factor in [%g, 1000]", c.speed, minRate)
	case c.devices < 0 || c.devices > maxDevices:
		return nil, usageErrorf("record", "--devices: %d is not in [1, %d]", c.devices, maxDevices)
	case c.devices > 0 && len(c.serials) > 0 && c.devices != len(c.serials):
		return nil, usageErrorf("record", "--devices %d but %d --device serials", c.devices, len(c.serials))
	case len(c.serials) > maxDevices:
		return nil, usageErrorf("record", "%d --device serials: at most %d", len(c.serials), maxDevices)
	case c.recordUSB != "" && filepath.Clean(c.recordUSB) == filepath.Clean(c.file):
		return nil, usageErrorf("record", "--record-usb %s is the recording's own file (-f)", c.recordUSB)
	case c.film.truth && c.film.scene == scenePattern:
		return nil, usageErrorf("record", "--ground-truth needs a scene: the %s has none", scenePattern)
	case c.session() && c.recordUSB != "":
		return nil, usageErrorf("record", "--record-usb captures one camera: it cannot be used with --devices or --device")
	}
	seen := map[string]bool{}
	for _, sn := range c.serials {
		if sn == "" || seen[sn] {
			return nil, usageErrorf("record", "--device %q: serial numbers must be non-empty and distinct", sn)
		}
		seen[sn] = true
	}
	if c.frames > 0 && !c.timeSet {
		c.seconds = 0
	}
	if !c.depth.enabled() && !c.color.enabled() && !c.ir.enabled() && c.accel == 0 && c.gyro == 0 && c.pose == 0 {
		return nil, usageErrorf("record", "every stream is off: nothing to record")
	}
	return c, nil
}

// fromCamera returns c with the streams whose flags were not given set to
// the default profiles of the live camera dev (librealsense's for its
// product line and USB type, see package usb): a stream the camera has no
// default of is off (a D435 without IMU records no Accel or Gyro).
func (c *recordConfig) fromCamera(dev device.Device) *recordConfig {
	cc := *c
	def := map[streamKey]*sensor.StreamProfile{}
	for _, s := range dev.Sensors() {
		for _, p := range s.Profiles() {
			if k := (streamKey{p.Stream, p.Index}); p.Default && def[k] == nil {
				def[k] = p
			}
		}
	}
	video := func(flag string, st sensor.Stream, index int, spec *streamSpec) {
		if c.given[flag] {
			return
		}
		*spec = streamSpec{}
		if p := def[streamKey{st, index}]; p != nil {
			*spec = streamSpec{Width: p.Width, Height: p.Height, FPS: p.FPS, Format: p.Format}
		}
	}
	video("depth", sensor.StreamDepth, 0, &cc.depth)
	video("color", sensor.StreamColor, 0, &cc.color)
	video("ir", sensor.StreamInfrared, 1, &cc.ir)
	motion := func(flag string, st sensor.Stream, hz *int) {
		if c.given[flag] {
			return
		}
		*hz = 0
		if p := def[streamKey{st, 0}]; p != nil {
			*hz = p.FPS
		}
	}
	motion("accel", sensor.StreamAccel, &cc.accel)
	motion("gyro", sensor.StreamGyro, &cc.gyro)
	return &cc
}

// recordOptions are the recorder's options for c.
// errNoTruth refuses --ground-truth with a live camera.
var errNoTruth = errors.New("--ground-truth: a live camera has no ground truth (--synthetic records the synthetic camera's)")

func recordOptions(c *recordConfig, synthetic bool, devs ...device.Device) *record.Options {
	opts := &record.Options{
		Compression:    record.CompressionLZ4,
		ChunkThreshold: int(c.chunkSize),
		// A synthetic camera running as fast as possible is not real time:
		// the recorder waits for the disk instead of dropping frames.
		Lossless: synthetic && c.speed == 0,
		Notes:    c.notes,
	}
	if !c.compress {
		opts.Compression = record.CompressionNone
	}
	if c.film.truth {
		var cams []*software.Synthetic
		for _, d := range devs {
			if cam, ok := d.(*software.Synthetic); ok {
				cams = append(cams, cam)
			}
		}
		opts.Companions = groundTruth(cams)
	}
	return opts
}

func runRecord(e *env, args []string) error {
	c, err := parseRecordFlags(e, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.session() {
		return runRecordSession(ctx, e, c)
	}

	dev, synthetic, err := openRecordDevice(ctx, e, c)
	if err != nil {
		return err
	}
	defer dev.Close()
	if !synthetic && c.film.truth {
		return errNoTruth
	}
	if !synthetic {
		if c = c.fromCamera(dev); len(c.wanted()) == 0 {
			return errors.New("the camera has no default streams: choose them with --depth, --color, --ir, --accel or --gyro")
		}
	}

	opts := recordOptions(c, synthetic, dev)
	// Choose the profiles before the file is created: a request the camera
	// cannot meet must not truncate an existing file.
	picks, err := pickProfiles(dev, c)
	if err != nil {
		return err
	}
	if err := refuseExisting(c.force, c.file, c.recordUSB); err != nil {
		return err
	}
	rec, err := record.Create(dev, c.file, opts)
	if err != nil {
		return fileError(c.file, err)
	}
	st, err := startStreams(rec, picks, c)
	if err != nil {
		rec.Close()
		os.Remove(c.file) // nothing was recorded
		return fileError(c.file, err)
	}

	started := time.Now()
	limit, stopLimit := timeLimit(c.seconds)
	defer stopLimit()
	line := &liveLine{w: e.stdout}
	prev := &snapshot{}
	recordUntil(ctx, limit, st.done, func() bool {
		rs := rec.Stats()
		if rs.Err != nil {
			return false
		}
		if e.stdoutTTY {
			cur := st.snapshot(time.Since(started))
			cur.Bytes, cur.Drops = rs.FileSize, rs.Dropped
			line.show(progressLine(prev, cur))
			prev = cur
		}
		return true
	})
	// Signals stay caught until the bag is finalized: a second Ctrl-C does
	// not cost the index.
	elapsed := time.Since(started)
	stopErr := st.stop()
	closeErr := rec.Close() // writes the queued frames and the index
	line.clear()
	if err := errors.Join(stopErr, closeErr); err != nil {
		if errors.Is(err, rosbag.ErrNoIndex) {
			err = fmt.Errorf("%w; 'rs-record info' and 'rs-record play' read it as it is, and 'rs-record edit reindex' writes its index once there is room", err)
		}
		return fileError(c.file, err)
	}
	// A scene filmed as fast as possible: one seed, one file (the test
	// pattern, for throughput, is left in arrival order).
	if opts.Lossless && c.film.scene != scenePattern {
		if err := reorderBag(c.file, rosbag.WriterOptions{Compression: opts.Compression, ChunkThreshold: opts.ChunkThreshold}); err != nil {
			// The bag is complete as recorded (the rewrite replaces it only
			// once written whole): say what it lacks.
			fmt.Fprintf(e.stderr, "%s: %s: complete, but not rewritten in an order of its own (another recording with this seed may differ in message order): %v\n", progName, c.file, err)
		}
	}
	fmt.Fprintln(e.stdout, summaryLine("recorded", c.file, recordSummary(st, rec.Stats(), elapsed, c.file)))
	if l := cameraLosses(dev); l != "" {
		fmt.Fprintln(e.stdout, l)
	}
	if n := rec.Stats().Refused; n > 0 {
		return fileError(c.file, fmt.Errorf("%d frames were not recorded: each was larger than the largest message a bag may hold (%d bytes); the bag holds the rest", n, rosbag.MaxMessageSize))
	}
	return nil
}

// refuseExisting refuses to record over an existing file unless --force
// said so: the error names the first of paths that exists.
func refuseExisting(force bool, paths ...string) error {
	if force {
		return nil
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); p != "" && err == nil {
			return fileError(p, fmt.Errorf("%w: not replaced (--force replaces it)", fs.ErrExist))
		}
	}
	return nil
}

// timeLimit returns a channel that receives after seconds (never when
// seconds is 0) and a function that releases its timer.
func timeLimit(seconds float64) (<-chan time.Time, func()) {
	if seconds <= 0 {
		return nil, func() {}
	}
	t := time.NewTimer(time.Duration(seconds * float64(time.Second)))
	return t.C, func() { t.Stop() }
}

// recordSummary is the final snapshot: frames written per stream (in the
// order the streams were requested), frames dropped, and the file size.
func recordSummary(st *streams, rs record.Stats, elapsed time.Duration, path string) *snapshot {
	s := &snapshot{Elapsed: elapsed, Streams: make([]streamStat, len(st.names)), Bytes: rs.FileSize, Drops: rs.Dropped}
	for i, n := range st.names {
		s.Streams[i].Name = n
	}
	for _, ss := range rs.Streams {
		if i, ok := st.keys[streamKey{ss.Stream, ss.Index}]; ok {
			s.Streams[i].Frames = ss.Frames
			s.Streams[i].Drops = ss.Dropped
		}
	}
	if fi, err := os.Stat(path); err == nil {
		s.Bytes = fi.Size()
	}
	return s
}

// openRecordDevice opens the first live camera, or the synthetic camera when
// there is none (or when --synthetic is given).
func openRecordDevice(ctx context.Context, e *env, c *recordConfig) (device.Device, bool, error) {
	dev, synthetic, err := device.LiveOrSynthetic(c.synthetic, c.serial() != "" || c.recordUSB != "",
		func() (device.Device, error) { return openLiveCamera(ctx, e, c) },
		func(liveErr error) (device.Device, error) {
			if liveErr != nil {
				fmt.Fprintf(e.stderr, "%s: %s; recording the synthetic camera\n", progName, noCamera(liveErr))
			}
			return openSynthetic(c, c.serial())
		})
	switch {
	case err == nil:
		return dev, synthetic, nil
	case synthetic:
		err = fmt.Errorf("synthetic camera: %w", err)
	case c.serial() != "":
		err = fmt.Errorf("camera %s: %w", c.serial(), err)
	default:
		err = fmt.Errorf("open camera: %w (use --synthetic to record the synthetic camera)", err)
	}
	return nil, synthetic, err
}

// noCamera says why no live camera was opened: none is attached, or (in a
// program built without cgo) none can be.
func noCamera(err error) string {
	if errors.Is(err, device.ErrNoCameras) {
		return "live cameras need a build with cgo (this one has none)"
	}
	return "no RealSense camera found"
}

// streamKey identifies a stream within a device.
type streamKey struct {
	stream sensor.Stream
	index  int
}

// streams counts the frames of the started streams.
type streams struct {
	sensors []sensor.Sensor
	names   []string
	keys    map[streamKey]int // → index in counts; read-only after start
	counts  []atomic.Uint64
	target  uint64 // --frames
	reached atomic.Int32
	done    chan struct{}
}

func (s *streams) snapshot(elapsed time.Duration) *snapshot {
	sn := &snapshot{Elapsed: elapsed, Streams: make([]streamStat, len(s.names))}
	for i, n := range s.names {
		sn.Streams[i] = streamStat{Name: n, Frames: s.counts[i].Load()}
	}
	return sn
}

func (s *streams) handle(f *sensor.Frame) {
	if f.Profile == nil {
		return
	}
	i, ok := s.keys[streamKey{f.Profile.Stream, f.Profile.Index}]
	if !ok {
		return
	}
	n := s.counts[i].Add(1)
	if s.target > 0 && n == s.target {
		if int(s.reached.Add(1)) == len(s.counts) {
			close(s.done)
		}
	}
}

// stop stops and closes every started sensor.
func (s *streams) stop() error {
	var errs []error
	for _, sn := range s.sensors {
		if err := sn.Stop(); err != nil && !errors.Is(err, sensor.ErrNotStarted) {
			errs = append(errs, err)
		}
	}
	for _, sn := range s.sensors {
		if err := sn.Close(); err != nil && !errors.Is(err, sensor.ErrNotOpen) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// wanted is one requested stream.
type wanted struct {
	stream sensor.Stream
	index  int // -1: any
	spec   streamSpec
	hz     int // motion and pose
}

func (w wanted) String() string {
	if w.hz > 0 {
		return fmt.Sprintf("%s at %d Hz", w.stream, w.hz)
	}
	return fmt.Sprintf("%s %s", w.stream, w.spec.String())
}

func (w wanted) matches(p *sensor.StreamProfile) bool {
	if p.Stream != w.stream || (w.index >= 0 && p.Index != w.index) {
		return false
	}
	if w.hz > 0 {
		return p.FPS == w.hz
	}
	return p.Kind == sensor.KindVideo && p.Width == w.spec.Width && p.Height == w.spec.Height && p.FPS == w.spec.FPS &&
		(w.spec.Format == sensor.FormatAny || p.Format == w.spec.Format)
}

func (c *recordConfig) wanted() []wanted {
	var ws []wanted
	if c.depth.enabled() {
		ws = append(ws, wanted{stream: sensor.StreamDepth, index: -1, spec: c.depth})
	}
	if c.ir.enabled() {
		for i := 1; i <= c.irCount; i++ {
			ws = append(ws, wanted{stream: sensor.StreamInfrared, index: i, spec: c.ir})
		}
	}
	if c.color.enabled() {
		ws = append(ws, wanted{stream: sensor.StreamColor, index: -1, spec: c.color})
	}
	if c.accel > 0 {
		ws = append(ws, wanted{stream: sensor.StreamAccel, index: -1, hz: c.accel})
	}
	if c.gyro > 0 {
		ws = append(ws, wanted{stream: sensor.StreamGyro, index: -1, hz: c.gyro})
	}
	if c.pose > 0 {
		ws = append(ws, wanted{stream: sensor.StreamPose, index: -1, hz: c.pose})
	}
	return ws
}

// pick is the profile chosen for a requested stream, on the sensor at index
// sensor of the device.
type pick struct {
	sensor int
	p      *sensor.StreamProfile
}

// pickProfiles chooses a profile of dev for each requested stream.
func pickProfiles(dev device.Device, c *recordConfig) ([]pick, error) {
	var picks []pick
	for _, w := range c.wanted() {
		var found *pick
		var avail []string
		for si, s := range dev.Sensors() {
			ps := s.Profiles()
			// Default profiles first, so that an unspecified format picks the camera's default.
			sort.SliceStable(ps, func(i, j int) bool { return ps[i].Default && !ps[j].Default })
			for _, p := range ps {
				if p.Stream != w.stream {
					continue
				}
				avail = append(avail, p.String())
				if found == nil && w.matches(p) {
					found = &pick{si, p}
				}
			}
		}
		if found == nil {
			if len(avail) == 0 {
				return nil, fmt.Errorf("the camera has no %s stream (turn it off with --%s off)", w.stream, flagOf(w.stream))
			}
			if len(avail) > 8 {
				avail = append(avail[:8], "...")
			}
			return nil, fmt.Errorf("the camera has no %s profile (available: %s)", w, strings.Join(avail, ", "))
		}
		picks = append(picks, *found)
	}
	return picks, nil
}

// startStreams opens the picked profiles on the sensors of dev (the record
// device, whose sensors wrap those of the device the profiles were picked
// from, in the same order) and starts them with a counting handler.
func startStreams(dev device.Device, picks []pick, c *recordConfig) (*streams, error) {
	st := &streams{keys: map[streamKey]int{}, target: uint64(c.frames), done: make(chan struct{})}
	bySensor := map[sensor.Sensor][]*sensor.StreamProfile{}
	sensors := dev.Sensors()
	for _, pk := range picks {
		s := sensors[pk.sensor]
		if _, ok := bySensor[s]; !ok {
			st.sensors = append(st.sensors, s)
		}
		bySensor[s] = append(bySensor[s], pk.p)
		st.keys[streamKey{pk.p.Stream, pk.p.Index}] = len(st.names)
		st.names = append(st.names, pk.p.Name())
	}
	st.counts = make([]atomic.Uint64, len(st.names))
	for i, s := range st.sensors {
		if err := s.Open(bySensor[s]...); err != nil {
			closeSensors(st.sensors[:i])
			return nil, fmt.Errorf("open %s: %w", sensorName(s), err)
		}
	}
	if err := startSensors(st.sensors, sensor.HandlerFunc(st.handle)); err != nil {
		return nil, err
	}
	return st, nil
}

// startSensors starts every opened sensor with h. On failure it stops the
// ones it started and closes them all.
func startSensors(ss []sensor.Sensor, h sensor.Handler) error {
	for i, s := range ss {
		if err := s.Start(h); err != nil {
			for _, t := range ss[:i] {
				t.Stop()
			}
			closeSensors(ss)
			return fmt.Errorf("start %s: %w", sensorName(s), err)
		}
	}
	return nil
}

func closeSensors(ss []sensor.Sensor) {
	for _, s := range ss {
		s.Close()
	}
}

func sensorName(s sensor.Sensor) string {
	if n := s.Info()[sensor.CameraInfoName]; n != "" {
		return n
	}
	return "sensor"
}

func flagOf(s sensor.Stream) string {
	switch s {
	case sensor.StreamInfrared:
		return "ir"
	default:
		return strings.ToLower(s.String())
	}
}

// recordUntil waits until ctx is done, limit fires or done closes, calling
// tick every half second; it returns early when tick returns false (a
// recording failed).
func recordUntil(ctx context.Context, limit <-chan time.Time, done <-chan struct{}, tick func() bool) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-limit:
			return
		case <-done:
			return
		case <-t.C:
			if !tick() {
				return
			}
		}
	}
}
