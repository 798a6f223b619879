package software_test

import (
	"fmt"
	"sync"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// Build a software device from code, start its sensor and inject a frame.
func ExampleDevice() {
	dev := software.New(sensor.Info{sensor.CameraInfoName: "My Camera"})
	defer dev.Close()
	depth := dev.AddSensor("Stereo Module")
	depth.AddOption(sensor.OptionDepthUnits, 0.001, software.DefaultRange(0.001), true)
	p := depth.AddVideoStream(software.VideoStream{
		Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: 4, Height: 2, FPS: 30, Default: true,
	})
	if err := depth.Open(p); err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	if err := depth.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		fmt.Printf("%s #%d %dx%d stride %d, %g m/unit\n", f.Profile.Name(), f.Number, f.Width, f.Height, f.Stride, f.DepthUnits)
		wg.Done()
	})); err != nil {
		panic(err)
	}
	_ = depth.Inject(&sensor.Frame{Profile: p, Number: 1, TimestampMs: 1, Data: make([]byte, 4*2*2)})
	wg.Wait()
	fmt.Println(depth.Kinds())
	// Output:
	// Depth/0 #1 4x2 stride 8, 0.001 m/unit
	// [depth_sensor]
}

// Run the synthetic camera of depth_color.bag as fast as the handler takes
// the frames.
func ExampleNewSynthetic() {
	cfg := software.SyntheticConfig{
		Depth:    &software.Video{Width: 424, Height: 240, FPS: 30},
		Color:    &software.Video{Width: 424, Height: 240, FPS: 30},
		Frames:   3,
		Metadata: software.MetadataBasic,
	}
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		panic(err)
	}
	defer cam.Close()
	var mu sync.Mutex
	count := map[string]int{}
	for _, s := range cam.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			panic(err)
		}
	}
	for _, s := range cam.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			mu.Lock()
			count[f.Profile.Name()]++
			mu.Unlock()
		})); err != nil {
			panic(err)
		}
	}
	<-cam.Done()
	fmt.Println(cam.Info()[sensor.CameraInfoName], count["Depth/0"], count["Color/0"])
	// Output:
	// Intel RealSense D435I 3 3
}
