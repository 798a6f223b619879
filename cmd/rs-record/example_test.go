package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// Record a device: wrap it in a record device and stream through the
// record device's sensors. Any device.Device works: usb.Open(ctx, nil) for a
// live camera, playback.Open for a bag, or the synthetic camera used here.
func Example_record() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "session.bag")

	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth:  &software.Video{Width: 640, Height: 480, FPS: 30},
		Frames: 10, // then the camera stops producing
		Speed:  0,  // as fast as the recorder takes them
	})
	if err != nil {
		log.Fatal(err)
	}
	defer cam.Close()
	rec, err := record.Create(cam, path, &record.Options{Lossless: true})
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(10)
	depth := rec.Sensors()[0]
	if err := depth.Open(depth.Profiles()[0]); err != nil {
		log.Fatal(err)
	}
	if err := depth.Start(sensor.HandlerFunc(func(f *sensor.Frame) { wg.Done() })); err != nil {
		log.Fatal(err)
	}
	wg.Wait()
	depth.Stop()
	depth.Close()
	if err := rec.Close(); err != nil { // writes the index
		log.Fatal(err)
	}
	fmt.Println(rec.Stats().Frames, "frames recorded")
	// Output: 10 frames recorded
}

// Open a bag as a device and read its frames: non-real-time playback
// delivers every frame, in bag order, as fast as the handler takes them.
func Example_playback() {
	dev, err := playback.Open("../../testdata/librealsense/depth_color.bag", &playback.Options{NonRealTime: true})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	done := make(chan struct{})
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			close(done)
		}
	})
	var mu sync.Mutex
	frames := map[string]int{}
	var bytes int
	// Open every sensor first: non-real-time playback begins once every
	// opened sensor is started, so no stream misses its first frames.
	for _, s := range dev.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			log.Fatal(err)
		}
	}
	for _, s := range dev.Sensors() {
		err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			mu.Lock()
			frames[f.Profile.String()]++
			bytes += len(f.Data)
			mu.Unlock()
		}))
		if err != nil {
			log.Fatal(err)
		}
	}
	<-done // the end of the file stops the sensors
	fmt.Println(dev.Info()[sensor.CameraInfoName])
	fmt.Println(frames, bytes, "bytes")
	// Output:
	// Intel RealSense D435I
	// map[Color/0 RGB8 424x240@30:30 Depth/0 Z16 424x240@30:30] 15264000 bytes
}
