package playback_test

import (
	"fmt"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// ExampleDevice_PlayAll delivers a whole recording to one handler, in real
// time: PlayAll opens and starts every stream, and its channel closes at
// the end of the file.
func ExampleDevice_PlayAll() {
	dev, err := playback.Open("../testdata/librealsense/depth_color.bag", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	var mu sync.Mutex
	counts := map[string]int{}
	done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		counts[f.Profile.Name()]++
		mu.Unlock()
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	<-done
	fmt.Println(counts)
	// Output:
	// map[Color/0:30 Depth/0:30]
}

// Example plays a recording in non-real-time (lossless, deterministic)
// mode and counts the frames of each stream.
func Example() {
	dev, err := playback.Open("../testdata/librealsense/depth_color.bag", &playback.Options{NonRealTime: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	fmt.Println(dev.Info()[sensor.CameraInfoName], dev.Duration())

	done := make(chan struct{})
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			close(done)
		}
	})
	var mu sync.Mutex
	counts := map[string]int{}
	handler := sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		counts[f.Profile.Name()]++
		mu.Unlock()
	})
	// Open every sensor, then start them: in non-real-time mode reading
	// waits until every opened sensor is started, so no frame is lost.
	sensors := dev.Sensors()
	for _, s := range sensors {
		fmt.Println(s.Info()[sensor.CameraInfoName], s.Profiles()[0])
		s.Open(s.Profiles()...)
	}
	for _, s := range sensors {
		s.Start(handler)
	}
	<-done
	fmt.Println(counts)
	// Output:
	// Intel RealSense D435I 967.076033ms
	// Stereo Module Depth/0 Z16 424x240@30
	// RGB Camera Color/0 RGB8 424x240@30
	// map[Color/0:30 Depth/0:30]
}
