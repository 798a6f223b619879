package rsdump

import (
	"context"
	"errors"
	"github.com/rsbag/rsbag/internal/bagname"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/sensor"
)

// DamagedBag names the bag of a session that lost frames to damage.
type DamagedBag struct {
	Path string
	Err  *damage.Error
}

func (e *DamagedBag) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the damage error.
func (e *DamagedBag) Unwrap() error { return e.Err }

// RunSession plays several bags of one session (or a session manifest) in
// non-real-time mode, frames of all devices in common bag-time order, and
// writes a "session" line, a "device" line per bag (index, file, serial,
// info, duration), one "frame" line per frame naming its device by serial
// number, and a summary with the frames per device and stream. A damaged
// bag is reported as Run reports it: the summary's status is "damaged" and
// the error a *damage.Error for the first damaged bag.
func RunSession(ctx context.Context, w io.Writer, paths []string) error {
	d := &dumper{w: w, uid: map[int]int{}}
	s, err := rig.Open(paths, &rig.Options{NonRealTime: true})
	if err != nil {
		return d.fail("load_session", err)
	}
	defer s.Close()
	l := newLine("session")
	var names []string
	for _, dev := range s.Devices() {
		names = append(names, bagname.BaseName(dev.Filename()))
	}
	l.strs("bags", names)
	l.str("librealsense", Reader)
	d.emit(l)
	serials := s.Serials()
	sensorOf := map[int]int{}
	for i, dev := range s.Devices() {
		l := newLine("device")
		l.int("index", int64(i))
		l.str("file", names[i])
		l.str("serial", serials[i])
		writeInfo(l, "info", dev.Info())
		l.int("duration_ns", int64(dev.Duration()))
		d.emit(l)
		for si, sn := range dev.Sensors() {
			for _, p := range sn.Profiles() {
				d.uid[p.UID] = len(d.uid)
				sensorOf[p.UID] = si
			}
		}
	}
	var (
		mu    sync.Mutex
		seq   int
		perSt = map[string]int{}
	)
	err = s.Start(nil, func(dev int, t time.Duration, f *sensor.Frame) {
		mu.Lock()
		defer mu.Unlock()
		d.frameLine(seq, sensorOf[f.Profile.UID], f, int64(t), serials[dev])
		seq++
		perSt[serials[dev]+" "+f.Profile.Name()]++
	})
	if err != nil {
		return d.fail("start", err)
	}
	waitErr := s.Wait(ctx)
	if err := s.Close(); err != nil && waitErr == nil {
		waitErr = err
	}
	status := "ok"
	var firstDamage *damage.Report
	var firstFile string
	for _, dev := range s.Devices() {
		if rep := damage.FromPlayback(dev); rep.Damaged() && firstDamage == nil {
			firstDamage, firstFile = rep, dev.Filename()
		}
	}
	playErr := s.Err()
	switch {
	case waitErr != nil:
		status = "error"
	case playErr != nil:
		status = "error"
	case firstDamage != nil:
		status = "damaged"
	}
	mu.Lock()
	defer mu.Unlock()
	l = newLine("summary")
	l.str("status", status)
	l.int("frames", int64(seq))
	l.object("frames_per_stream")
	for _, k := range slices.Sorted(maps.Keys(perSt)) {
		l.int(k, int64(perSt[k]))
	}
	l.end()
	l.int("duration_ns", int64(s.Duration()))
	d.emit(l)
	if err := errors.Join(waitErr, playErr); err != nil {
		return d.fail("playback", err)
	}
	if d.err == nil && firstDamage != nil {
		return &DamagedBag{Path: firstFile, Err: &damage.Error{Report: firstDamage}}
	}
	return d.err
}
