package processing_test

import (
	"fmt"
	"log"
	"os"
	"sync"

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

// Align depth to color and make a colored point cloud of the first pair of
// frames of a bag, saved as a PLY file.
func ExamplePointCloud() {
	dev, err := playback.Open("../testdata/librealsense/depth_color.bag", &playback.Options{NonRealTime: true})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	var (
		mu           sync.Mutex
		depth, color *sensor.Frame
		got          = make(chan struct{})
	)
	for _, s := range dev.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			log.Fatal(err)
		}
	}
	var once sync.Once
	for _, s := range dev.Sensors() {
		err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			mu.Lock()
			defer mu.Unlock()
			switch f.Profile.Stream {
			case sensor.StreamDepth:
				if depth == nil {
					depth = f
				}
			case sensor.StreamColor:
				if color == nil {
					color = f
				}
			}
			if depth != nil && color != nil {
				once.Do(func() { close(got) })
			}
		}))
		if err != nil {
			log.Fatal(err)
		}
	}
	<-got
	mu.Lock()
	defer mu.Unlock()

	// Depth in the color camera's geometry: one depth per color pixel.
	align := processing.NewAlign(sensor.StreamColor, dev)
	aligned, err := align.Process(depth, color)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("aligned:", aligned.Profile, aligned.Width, "x", aligned.Height)

	// Points in meters with texture coordinates in the color picture.
	pc := processing.NewPointCloud()
	toColor, err := dev.Extrinsics(depth.Profile, color.Profile)
	if err != nil {
		log.Fatal(err)
	}
	if err := pc.MapTo(color.Profile, toColor); err != nil {
		log.Fatal(err)
	}
	points, err := pc.Calculate(depth)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("points:", len(points.Vertices), "texture coordinates:", len(points.TexCoords))

	f, err := os.CreateTemp("", "cloud-*.ply")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	if err := points.WritePLY(f, color, processing.PLYOptions{}); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// aligned: Depth/0 Z16 424x240@30 424 x 240
	// points: 101760 texture coordinates: 101760
}
