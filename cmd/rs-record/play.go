package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// playConfig holds the flags of "rs-record play".
type playConfig struct {
	path     string
	rate     float64
	loop     bool
	start    time.Duration
	duration time.Duration
	realtime bool
	streams  []string // lower-case stream names or "name/index"
	allow    bool     // --allow-damaged
	paths    []string // every bag given (several: a session)
}

// session reports whether several bags, or a manifest, are played as one
// session.
func (c *playConfig) session() bool { return len(c.paths) > 1 || rigfiles.IsManifest(c.path) }

const seekStep = 5 * time.Second

func parsePlayFlags(e *env, args []string) (*playConfig, error) {
	c := &playConfig{}
	fs := newFlagSet(e, "play", "play [flags] BAG\n"+
		"       play [flags] BAG BAG... | play [flags] SESSION.session.json\n\n"+
		"Plays a bag through the playback device and prints per-stream frames, fps and drops.\n"+
		"Frames lost to damage are counted apart from drops, each lost part is reported on\n"+
		"stderr, and a damaged bag exits with status 3 (0 with --allow-damaged).\n"+
		"Several bags of one session, or its manifest, play together: one clock, one speed, one\n"+
		"pause and seek for every device, frames counted per device and stream.\n"+
		"On a terminal: space pauses and resumes, the left and right arrows seek -5 s / +5 s, q quits.")
	floatIn(fs, &c.rate, "rate", 1, minRate, 1000, false, "playback speed factor `X` (0.001 to 1000)")
	fs.BoolVar(&c.loop, "loop", false, "start again at the end")
	timeFlag(fs, &c.start, "start", 0, "start at position `T` (seconds, or a duration such as 1500ms, from the start of the recording, as the position shown)")
	timeFlag(fs, &c.duration, "duration", 0, "play only the frames of the `T` (seconds or a duration) from the start (0: to the end)")
	fs.BoolVar(&c.realtime, "realtime", true, "pace frames at their recorded times (false: as fast as consumed, lossless)")
	fs.BoolVar(&c.allow, "allow-damaged", false, allowDamagedUsage)
	streams := fs.String("streams", "", "play only these streams, comma-separated `LIST` (e.g. depth,color or infrared/1)")
	pos, err := parseArgs(fs, "play", args)
	if err != nil {
		return nil, err
	}
	if len(pos) == 0 {
		return nil, usageErrorf("play", "want a BAG, several bags of one session, or a session manifest")
	}
	c.path, c.paths = pos[0], pos
	if c.session() && c.loop {
		return nil, usageErrorf("play", "--loop plays one bag; a session (several bags or a manifest) plays once")
	}
	switch {
	case c.rate <= 0:
		return nil, usageErrorf("play", "--rate: %g is not > 0", c.rate)
	}
	for _, s := range strings.Split(*streams, ",") {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			name, _, _ := strings.Cut(s, "/")
			if _, ok := parseStreamName(name); !ok {
				return nil, usageErrorf("play", "--streams: unknown stream %q (e.g. depth, color, infrared/1, accel, gyro, pose)", s)
			}
			c.streams = append(c.streams, s)
		}
	}
	return c, nil
}

// parseStreamName parses a stream type name case-insensitively ("ir" is
// Infrared).
func parseStreamName(s string) (sensor.Stream, bool) {
	if s == "ir" {
		return sensor.StreamInfrared, true
	}
	for st := sensor.Stream(0); int(st) < sensor.Count[sensor.Stream](); st++ {
		if strings.EqualFold(st.String(), s) {
			return st, true
		}
	}
	return 0, false
}

func (c *playConfig) selected(p *sensor.StreamProfile) bool {
	if len(c.streams) == 0 {
		return true
	}
	for _, s := range c.streams {
		n, idx, hasIdx := strings.Cut(s, "/")
		st, _ := parseStreamName(n)
		if st == p.Stream && (!hasIdx || idx == fmt.Sprint(p.Index)) {
			return true
		}
	}
	return false
}

// window returns the positions [start, end) of --start and --duration (end
// 0: to the end).
func (c *playConfig) window() (start, end time.Duration) {
	if c.duration > 0 {
		return c.start, c.start + c.duration
	}
	return c.start, 0
}

// inWindow reports whether the frames [first, last] reach into the window
// [start, end) (end 0: open).
func inWindow(start, end, first, last time.Duration) bool {
	return start <= last && (end == 0 || end > first)
}

// windowError says that the window [start, end) (end 0: open) given by
// the flags startFlag and endFlag holds no frame, and where the frames are;
// cause, when not nil, is wrapped.
func windowError(startFlag, endFlag string, start, end, first, last time.Duration, cause error) error {
	what := fmt.Sprintf("%s %s s is after the last frame", startFlag, fmtTime(start))
	if start <= last {
		what = fmt.Sprintf("the window %s s to %s s (%s, %s) holds no frame", fmtTime(start), fmtTime(end), startFlag, endFlag)
	}
	err := fmt.Errorf("%s; the frames are at %s s to %s s (positions from the start of the recording)", what, fmtTime(first), fmtTime(last))
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// spanOf returns the positions of the first and last frame of the bag at
// path (0, 0 when it cannot be opened: the caller reports another error).
func spanOf(path string) (first, last time.Duration) {
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		return 0, 0
	}
	defer dev.Close()
	return dev.Span()
}

func runPlay(e *env, args []string) error {
	c, err := parsePlayFlags(e, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.session() {
		return runPlaySession(ctx, e, c)
	}

	// The window [start, start+duration) of bag time: exact and the same
	// in real time and non-real-time mode (the device ends at End).
	startAt, endAt := c.window()
	dev, err := playback.Open(c.path, &playback.Options{NonRealTime: !c.realtime, Speed: c.rate, Repeat: c.loop,
		Start: startAt, End: endAt})
	if err != nil {
		if errors.Is(err, playback.ErrOutOfRange) {
			first, last := spanOf(c.path)
			err = windowError("--start", "--duration", startAt, endAt, first, last, err)
		}
		return fileError(c.path, err)
	}
	defer dev.Close()
	if first, last := dev.Span(); !inWindow(startAt, endAt, first, last) {
		return fileError(c.path, windowError("--start", "--duration", startAt, endAt, first, last, nil))
	}
	ended := make(chan struct{}, 1)
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			select {
			case ended <- struct{}{}:
			default:
			}
		}
	})
	st, err := startPlayStreams(dev, c)
	if err != nil {
		if rep := damage.FromPlayback(dev); rep.Damaged() && len(c.streams) == 0 {
			// The damage left nothing to play (e.g. a bag cut inside
			// its description): that is the verdict, as info gives it.
			return reportDamage(e, c.path, rep, c.allow)
		}
		return fileError(c.path, err)
	}
	line := &liveLine{w: e.stdout}
	started := time.Now()
	runErr := controlLoop(ctx, e, dev, ended, func(prev *snapshot) *snapshot {
		cur := st.snapshot(time.Since(started), dev)
		s := progressLine(prev, cur)
		line.show(fmt.Sprintf("%s / %s  %s", fmtSecs(dev.Position()), fmtSecs(dev.Duration()), dev.Status()) + s[strings.IndexByte(s, 's')+1:])
		return cur
	})
	elapsed := time.Since(started)
	stopErr := st.stop()
	final := st.snapshot(elapsed, dev)
	line.clear()
	if err := errors.Join(runErr, stopErr, dev.Err()); err != nil {
		return fileError(c.path, err)
	}
	rep := damage.FromPlayback(dev)
	lost := rep.FramesLost()
	for _, s := range final.Streams {
		fps := 0.0
		if elapsed > 0 {
			fps = float64(s.Frames) / elapsed.Seconds()
		}
		l := fmt.Sprintf("%-12s %8d frames %8.2f fps %6d dropped", s.Name, s.Frames, fps, s.Drops)
		if rep.Damaged() {
			l += fmt.Sprintf(" %6d lost to damage", lost[s.Name])
		}
		fmt.Fprintln(e.stdout, l)
	}
	sum := summaryLine("played", c.path, final)
	if rep.Damaged() {
		n := 0
		for _, v := range lost {
			n += v
		}
		sum += fmt.Sprintf("; %d frames lost to damage", n)
	}
	fmt.Fprintln(e.stdout, sum)
	return reportDamage(e, c.path, rep, c.allow)
}

// control is what the keys act on: a playback device or a session.
type control interface {
	Status() extensions.PlaybackStatus
	Pause() error
	Resume() error
	Seek(time.Duration) error
	Position() time.Duration
	Duration() time.Duration
}

// controlLoop runs until ctx is done, ended receives, q is pressed or a
// control fails: on a terminal, space pauses and resumes and the arrows
// seek; show, called twice a second on a terminal, prints the progress
// line and returns the snapshot it printed.
func controlLoop(ctx context.Context, e *env, pb control, ended <-chan struct{}, show func(prev *snapshot) *snapshot) error {
	keys := make(chan byte, 8)
	done := make(chan struct{})
	var keyReader chan struct{}
	if e.stdinTTY && e.stdoutTTY {
		if restore, err := rawTerminal(e.stdin); err == nil {
			defer restore()
			keyReader = make(chan struct{})
			go readKeys(e.stdin, keys, done, keyReader)
		}
	}
	defer func() {
		close(done)
		if keyReader != nil {
			<-keyReader
		}
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	prev := &snapshot{}
	lastShow := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ended:
			return nil
		case k := <-keys:
			var err error
			switch k {
			case 'q':
				return nil
			case ' ':
				if pb.Status() == extensions.StatusPaused {
					err = pb.Resume()
				} else {
					err = pb.Pause()
				}
			case keyRight, keyLeft:
				to := pb.Position() + seekStep
				if k == keyLeft {
					to = max(pb.Position()-seekStep, 0)
				}
				err = pb.Seek(min(to, pb.Duration()))
			}
			if err != nil {
				return err
			}
		case <-tick.C:
			if e.stdoutTTY && time.Since(lastShow) >= 500*time.Millisecond {
				prev, lastShow = show(prev), time.Now()
			}
		}
	}
}

func fmtSecs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// playStreams counts the frames of the played streams.
type playStreams struct {
	streams
	bytes atomic.Int64
}

func (p *playStreams) handle(f *sensor.Frame) {
	if f.Profile == nil {
		return
	}
	if i, ok := p.keys[streamKey{f.Profile.Stream, f.Profile.Index}]; ok {
		p.counts[i].Add(1)
		p.bytes.Add(int64(len(f.Data)))
	}
}

// snapshot adds the bytes delivered and the frames the playback device
// dropped (real time: a slow handler; any mode: a seek or pause).
func (p *playStreams) snapshot(elapsed time.Duration, dev *playback.Device) *snapshot {
	s := p.streams.snapshot(elapsed)
	s.Bytes = p.bytes.Load()
	for _, ps := range dev.Stats() {
		if ps.Profile == nil {
			continue
		}
		if i, ok := p.keys[streamKey{ps.Profile.Stream, ps.Profile.Index}]; ok {
			s.Streams[i].Drops = ps.Dropped
			s.Drops += ps.Dropped
		}
	}
	return s
}

// startPlayStreams opens the selected streams and starts their sensors while
// playback is paused, so that non-real-time playback is deterministic.
func startPlayStreams(dev *playback.Device, c *playConfig) (*playStreams, error) {
	p := &playStreams{streams: streams{keys: map[streamKey]int{}, done: make(chan struct{})}}
	for _, s := range dev.Sensors() {
		var open []*sensor.StreamProfile
		for _, pr := range s.Profiles() {
			if c.selected(pr) {
				open = append(open, pr)
				p.keys[streamKey{pr.Stream, pr.Index}] = len(p.names)
				p.names = append(p.names, pr.Name())
			}
		}
		if len(open) == 0 {
			continue
		}
		if err := s.Open(open...); err != nil {
			closeSensors(p.sensors)
			return nil, fmt.Errorf("open %s: %w", sensorName(s), err)
		}
		p.sensors = append(p.sensors, s)
	}
	if len(p.sensors) == 0 {
		if len(c.streams) > 0 {
			return nil, fmt.Errorf("no stream matches --streams %s", strings.Join(c.streams, ","))
		}
		return nil, damage.ErrNoStreams
	}
	p.counts = make([]atomic.Uint64, len(p.names))
	// In real time, reading begins with the first started sensor; starting
	// them all while paused gives every stream its first frames.
	if err := dev.Pause(); err != nil {
		closeSensors(p.sensors)
		return nil, err
	}
	if err := startSensors(p.sensors, sensor.HandlerFunc(p.handle)); err != nil {
		return nil, err
	}
	if err := dev.Resume(); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// Keys, as readKeys reports them.
const (
	keyRight = 0x80 + iota
	keyLeft
)

// readKeys reads key presses from a raw terminal until done is closed:
// space, q, and the arrow keys (ESC [ C / ESC [ D) as keyRight/keyLeft.
func readKeys(f *os.File, keys chan<- byte, done <-chan struct{}, exited chan<- struct{}) {
	defer close(exited)
	buf := make([]byte, 16)
	var esc []byte
	for {
		select {
		case <-done:
			return
		default:
		}
		n, err := f.Read(buf)
		if err != nil && n == 0 {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			time.Sleep(100 * time.Millisecond) // EOF on a terminal read with VMIN 0: no key
			continue
		}
		for _, b := range buf[:n] {
			var k byte
			switch {
			case len(esc) > 0 || b == 0x1b:
				esc = append(esc, b)
				if len(esc) == 3 {
					if esc[1] == '[' && esc[2] == 'C' {
						k = keyRight
					} else if esc[1] == '[' && esc[2] == 'D' {
						k = keyLeft
					}
					esc = esc[:0]
				}
			case b == ' ' || b == 'q':
				k = b
			}
			if k != 0 {
				select {
				case keys <- k:
				default:
				}
			}
		}
	}
}
