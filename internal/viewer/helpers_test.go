package viewer

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// vclock is a virtual clock for the synthetic camera and the recorder:
// sleeping advances it at once, so bag times equal stream times.
type vclock struct{ ns atomic.Int64 }

func (c *vclock) Sleep(d time.Duration, done <-chan struct{}) bool {
	select {
	case <-done:
		return false
	default:
	}
	if d > 0 {
		c.ns.Add(int64(d))
	}
	return true
}

func (c *vclock) Now() time.Time { return time.Unix(1_700_000_000, c.ns.Load()) }

// recordReference records the synthetic camera configured as the reference
// bag name (software.ReferenceConfig: the same rsgen command line) with
// rsbag's recorder, in virtual time, and returns the bag's path. Unlike
// librealsense's recorder around its software device, which does not record
// option changes of software-device options, ours records them.
func recordReference(t testing.TB, name string, mutate func(*software.SyntheticConfig)) string {
	t.Helper()
	cfg, ok := software.ReferenceConfig(name)
	if !ok {
		t.Fatalf("no reference config %s", name)
	}
	clk := &vclock{}
	cfg.Speed, cfg.Clock = 1, clk
	cfg.PauseAt, cfg.ResumeAt = 0, 0
	if mutate != nil {
		mutate(&cfg)
	}
	return recordSynthetic(t, name, cfg, clk)
}

// recordSynthetic records the synthetic camera configured by cfg, whose
// clock is clk, and returns the bag's path. With a virtual clock the
// recording takes no time, but bag times (the recorder's clock when it
// writes) bunch up; with nil (the wall clock) they are real arrival times.
func recordSynthetic(t testing.TB, name string, cfg software.SyntheticConfig, clk *vclock) string {
	t.Helper()
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	path := filepath.Join(t.TempDir(), name+".bag")
	opts := &record.Options{Lossless: true}
	if clk != nil {
		opts.Now = clk.Now
	}
	rec, err := record.New(cam, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range rec.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
			t.Fatal(err)
		}
	}
	<-cam.Done()
	for _, s := range rec.Sensors() {
		s.Stop()
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
