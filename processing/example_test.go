package processing_test

import (
	"fmt"
	"log"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// Colorize the depth frames of a bag, as the RealSense Viewer shows them.
func ExampleColorizer() {
	dev, err := playback.Open("../testdata/librealsense/depth_color.bag", &playback.Options{NonRealTime: true})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	col := processing.NewColorizer()
	if err := col.SetOption(sensor.OptionColorScheme, 3); err != nil { // Black to White
		log.Fatal(err)
	}
	done := make(chan struct{})
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			close(done)
		}
	})
	depth := dev.Sensors()[0]
	if err := depth.Open(depth.Profiles()[0]); err != nil {
		log.Fatal(err)
	}
	n := 0
	err = depth.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		rgb, err := col.Process(f)
		if err != nil {
			log.Fatal(err)
		}
		if n++; n == 1 {
			fmt.Println(rgb.Profile, len(rgb.Data), "bytes")
		}
	}))
	if err != nil {
		log.Fatal(err)
	}
	<-done
	fmt.Println(n, "frames colorized")
	// Output:
	// Depth/0 RGB8 424x240@30 305280 bytes
	// 30 frames colorized
}
