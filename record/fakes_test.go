package record

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// fullFake is a sensor implementing every extension a record sensor forwards.
type fullFake struct{}

func (fullFake) Info() sensor.Info                                   { return sensor.Info{} }
func (fullFake) Profiles() []*sensor.StreamProfile                   { return nil }
func (fullFake) Open(...*sensor.StreamProfile) error                 { return nil }
func (fullFake) Start(sensor.Handler) error                          { return nil }
func (fullFake) Stop() error                                         { return nil }
func (fullFake) Close() error                                        { return nil }
func (fullFake) SupportedOptions() []sensor.Option                   { return nil }
func (fullFake) Option(sensor.Option) (float32, error)               { return 0, nil }
func (fullFake) SetOption(sensor.Option, float32) error              { return nil }
func (fullFake) OptionRange(sensor.Option) (extensions.Range, error) { return extensions.Range{}, nil }
func (fullFake) OptionDescription(sensor.Option) string              { return "" }
func (fullFake) OptionReadOnly(sensor.Option) bool                   { return false }
func (fullFake) OnOptionChange(func(extensions.OptionChange)) func() { return func() {} }
func (fullFake) DepthUnits() float32                                 { return 0.001 }
func (fullFake) StereoBaselineMM() float32                           { return 50 }
func (fullFake) Kinds() []extensions.SensorKind                      { return nil }
func (fullFake) RecommendedFilters() []string                        { return nil }

// memFile is an in-memory io.WriteSeeker; with limit > 0 writes beyond limit
// bytes fail like a full disk.
type memFile struct {
	mu    sync.Mutex
	buf   []byte
	pos   int64
	limit int64
	// sticky: once full, every later write fails (a disk that stays
	// full), even at an offset below the limit.
	sticky, full bool
}

var errDiskFull error = &os.PathError{Op: "write", Path: "memfile", Err: syscall.ENOSPC}

func (m *memFile) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(p)
	var err error
	if m.limit > 0 && m.pos+int64(n) > m.limit || m.sticky && m.full {
		n = int(max(m.limit-m.pos, 0))
		if m.full {
			n = 0
		}
		err = errDiskFull
		m.full = true
	}
	if end := m.pos + int64(n); end > int64(len(m.buf)) {
		m.buf = append(m.buf, make([]byte, end-int64(len(m.buf)))...)
	}
	copy(m.buf[m.pos:], p[:n])
	m.pos += int64(n)
	return n, err
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pos, err := seekTo(m.pos, int64(len(m.buf)), off, whence)
	if err == nil {
		m.pos = pos
	}
	return pos, err
}

// seekTo returns the position io.Seeker.Seek(off, whence) moves to from pos
// in a file of size end.
func seekTo(pos, end, off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += pos
	case io.SeekEnd:
		off += end
	default:
		return pos, errors.New("bad whence")
	}
	if off < 0 {
		return pos, errors.New("negative seek")
	}
	return off, nil
}

func (m *memFile) bytes() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]byte(nil), m.buf...)
}

// discardFile is an io.WriteSeeker that keeps nothing (allocation-free).
type discardFile struct {
	mu       sync.Mutex
	pos, end int64
}

func (d *discardFile) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pos += int64(len(p))
	d.end = max(d.end, d.pos)
	return len(p), nil
}

func (d *discardFile) Seek(off int64, whence int) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pos, err := seekTo(d.pos, d.end, off, whence)
	if err == nil {
		d.pos = pos
	}
	return pos, err
}
