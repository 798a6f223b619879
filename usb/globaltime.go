package usb

import (
	"context"
	"encoding/binary"
	"math"
	"sync"
	"time"
)

// Global time, as librealsense computes it (src/global_timestamp_reader.cpp,
// time_diff_keeper and CLinearCoefficients; d400_device::get_device_time_ms
// in src/ds/d400/d400-device.cpp). While a sensor streams, the device clock
// is sampled through the firmware command MRD of register REGISTER_CLOCK_0
// (0x0001613C, src/ds/ds-private.h; a uint32 in microseconds) every 100 ms,
// every 1000 ms once 15 samples are kept. Each sample pairs the device time
// with the host time at the end of the command minus the smallest half
// round trip seen so far (earlier samples are shifted when a smaller one
// appears). A least-squares line through the last samples, taken relative
// to the oldest, maps hardware timestamps to host time; a new line is
// blended in linearly over one second. Device-clock wraps (2^32 µs) rebase
// the samples. Frames whose hardware-clock timestamp is mapped report the
// global-time domain.
const (
	regClock0        = 0x0001613C
	globalPollMs     = 100
	globalSamples    = 15
	globalBlendMs    = 1000.0
	deviceClockRange = 4294967296 * 0.001 // 2^32 µs in ms
)

type timeSample struct{ x, y float64 } // device ms, host ms

// linearFit is CLinearCoefficients.
type linearFit struct {
	samples        []timeSample // newest first
	base           timeSample
	destA, destB   float64
	prevA, prevB   float64
	prevTime       float64
	lastRequestDev float64
}

func (l *linearFit) reset() { l.samples = l.samples[:0] }

func (l *linearFit) full() bool { return len(l.samples) >= globalSamples }

func (l *linearFit) add(s timeSample) {
	for len(l.samples) > globalSamples {
		l.samples = l.samples[:len(l.samples)-1]
	}
	l.samples = append([]timeSample{s}, l.samples...)
	l.fit()
}

func (l *linearFit) shiftY(dy float64) {
	for i := range l.samples {
		l.samples[i].y += dy
	}
}

func (l *linearFit) fit() {
	n := float64(len(l.samples))
	a, b, dt := 1.0, 0.0, 1.0
	if n == 1 {
		l.base = l.samples[len(l.samples)-1]
		l.destA, l.destB, l.prevA, l.prevB = 1, 0, 0, 0
		l.lastRequestDev = l.samples[0].x
	} else {
		var sx, sy, sxy, sx2 float64
		for _, s := range l.samples {
			x, y := s.x-l.base.x, s.y-l.base.y
			sx += x
			sy += y
			sxy += x * y
			sx2 += x * x
		}
		if d := n*sx2 - sx*sx; d > 2.220446049250313e-16 {
			b = (sy*sx2 - sx*sxy) / d
			a = (n*sxy - sx*sy) / d
		} else {
			a, b = l.destA, l.destB
		}
		if l.lastRequestDev-l.prevTime < globalBlendMs {
			dt = (l.lastRequestDev - l.prevTime) / globalBlendMs
		}
	}
	l.prevA = l.destA*dt + l.prevA*(1-dt)
	l.prevB = l.destB*dt + l.prevB*(1-dt)
	l.destA, l.destB = a, b
	l.prevTime = l.lastRequestDev
}

func (l *linearFit) coefs(x float64) (a, b float64) {
	a, b = l.destA, l.destB
	if x-l.prevTime < globalBlendMs {
		dt := (x - l.prevTime) / globalBlendMs
		a = l.destA*dt + l.prevA*(1-dt)
		b = l.destB*dt + l.prevB*(1-dt)
	}
	return a, b
}

func (l *linearFit) value(x float64) float64 {
	a, b := l.coefs(x)
	return a*(x-l.base.x) + b + l.base.y
}

// rebase moves the samples across a device-clock wrap seen at x.
func (l *linearFit) rebase(x float64) {
	if len(l.samples) == 0 {
		return
	}
	var shift float64
	switch {
	case l.samples[0].x-x > deviceClockRange/2:
		shift = deviceClockRange
	case x-l.samples[0].x > deviceClockRange/2:
		shift = -deviceClockRange
	default:
		return
	}
	for i := range l.samples {
		l.samples[i].x -= shift
	}
	l.prevTime -= shift
	l.base.x -= shift
}

// timeKeeper is time_diff_keeper: it samples the device clock while at
// least one sensor streams.
type timeKeeper struct {
	clock func(ctx context.Context) (float64, error) // device time, ms
	now   func() float64                             // host time, ms

	mu       sync.Mutex // guards fit, ready, minDelay
	fit      linearFit
	ready    bool
	minDelay float64

	emu    sync.Mutex // guards users, cancel
	users  int
	cancel context.CancelFunc
	done   chan struct{}
}

func newTimeKeeper(clock func(ctx context.Context) (float64, error), now func() float64) *timeKeeper {
	return &timeKeeper{clock: clock, now: now, minDelay: 1000}
}

// deviceClock reads REGISTER_CLOCK_0 through c.
func deviceClock(c *hwm) func(ctx context.Context) (float64, error) {
	return func(ctx context.Context) (float64, error) {
		b, err := c.command(ctx, hwmMRD, regClock0, regClock0+4, 0, 0, nil)
		if err != nil {
			return 0, err
		}
		if len(b) < 4 {
			return 0, errShortClock
		}
		return float64(binary.LittleEndian.Uint32(b)) * 0.001, nil
	}
}

var errShortClock = &HWMError{Op: hwmMRD, Code: math.MinInt32}

// sample takes one device-time sample (update_diff_time).
func (k *timeKeeper) sample(ctx context.Context) bool {
	start := k.now()
	hw, err := k.clock(ctx)
	finish := k.now()
	if err != nil {
		return false
	}
	delay := (finish - start) / 2
	k.mu.Lock()
	defer k.mu.Unlock()
	if delay < k.minDelay {
		k.fit.shiftY(delay - k.minDelay)
		k.minDelay = delay
	}
	if k.ready {
		k.fit.rebase(hw)
	}
	k.fit.add(timeSample{hw, finish - k.minDelay})
	k.ready = true
	return true
}

// start registers a streaming user; the first user takes one sample
// before returning (so the first frames are already mapped) and starts the
// polling goroutine.
func (k *timeKeeper) start(timeout time.Duration) {
	k.emu.Lock()
	defer k.emu.Unlock()
	k.users++
	if k.users > 1 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	k.cancel, k.done = cancel, make(chan struct{})
	sctx, scancel := context.WithTimeout(ctx, timeout)
	k.sample(sctx)
	scancel()
	go k.poll(ctx, timeout, k.done)
}

func (k *timeKeeper) poll(ctx context.Context, timeout time.Duration, done chan struct{}) {
	defer close(done)
	for {
		k.mu.Lock()
		wait := globalPollMs * time.Millisecond
		if k.fit.full() {
			wait *= 10
		}
		k.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		sctx, cancel := context.WithTimeout(ctx, timeout)
		k.sample(sctx)
		cancel()
	}
}

// stop unregisters a user; the last one stops polling and forgets the
// samples.
func (k *timeKeeper) stop() {
	k.emu.Lock()
	defer k.emu.Unlock()
	if k.users == 0 {
		return
	}
	k.users--
	if k.users > 0 {
		return
	}
	k.cancel()
	<-k.done
	k.mu.Lock()
	k.ready = false
	k.fit.reset()
	k.mu.Unlock()
}

// toHost maps a device timestamp (ms) to host time (get_system_hw_time).
func (k *timeKeeper) toHost(hw float64) (float64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.ready {
		return hw, false
	}
	k.fit.rebase(hw)
	k.fit.lastRequestDev = hw
	return k.fit.value(hw), true
}
