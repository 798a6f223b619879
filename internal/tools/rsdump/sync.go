package rsdump

import (
	"io"
	"sync"

	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/sensor"
)

// RunSync plays the bag at path (real time off), hands every frame to a
// pipeline.Syncer made from the device's stream profiles and drains it
// after each frame, and writes one frameset line per released frameset,
// in the schema of testdata/librealsense/sync/README.md.
func RunSync(w io.Writer, path string) error {
	d := newDumper(w, path)
	dev, err := d.open(path)
	if err != nil {
		return err
	}
	defer dev.Close()
	var profiles []*sensor.StreamProfile
	for _, s := range dev.Sensors() {
		profiles = append(profiles, s.Profiles()...)
	}
	sy := pipeline.NewSyncer(profiles, 1000)
	var mu sync.Mutex
	frames := 0
	drain := func(after *sensor.Frame) {
		for {
			fs, ok := sy.PollForFrames()
			if !ok {
				return
			}
			l := newLine("frameset")
			if after != nil {
				l.object("after")
				l.str("stream", after.Profile.Name())
				l.uint("number", after.Number)
				l.end()
			} else {
				l.str("after", "flush")
			}
			l.array("frames")
			for _, f := range fs.Frames() {
				l.sep()
				l.open('{')
				l.str("stream", f.Profile.Name())
				l.uint("number", f.Number)
				l.f64("timestamp", f.TimestampMs)
				l.str("domain", f.Domain.String())
				l.end()
			}
			l.endArray()
			d.emit(l)
		}
	}
	done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		defer mu.Unlock()
		frames++
		sy.HandleFrame(f)
		drain(f)
	}))
	if err != nil {
		return d.fail("start", err)
	}
	<-done
	if err := dev.Err(); err != nil {
		return d.fail("play", err)
	}
	mu.Lock()
	defer mu.Unlock()
	drain(nil)
	l := newLine("summary")
	l.int("frames", int64(frames))
	d.emit(l)
	return d.err
}
