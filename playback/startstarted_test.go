package playback_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestStartStartedWhileHandlerWaits starts a started sensor again while,
// in non-real-time mode, the reader waits for a handler that waits for
// the caller: Start answers sensor.ErrAlreadyStarted at once (it waited
// for the reader for ever before).
func TestStartStartedWhileHandlerWaits(t *testing.T) {
	bag := filepath.Join(t.TempDir(), "d.bag")
	synthrig.Bag(t, bag, software.SyntheticConfig{Depth: &software.Video{Width: 16, Height: 12, FPS: 30}, Frames: 3})
	dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	s := dev.Sensors()[0]
	if err := s.Open(s.Profiles()...); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	first := true
	if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {
		if first {
			first = false
			close(entered)
			<-release
		}
	})); err != nil {
		t.Fatal(err)
	}
	<-entered
	err = s.Start(sensor.HandlerFunc(func(*sensor.Frame) {}))
	close(release)
	if !errors.Is(err, sensor.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v, want %v", err, sensor.ErrAlreadyStarted)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}
