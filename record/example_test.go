package record_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// Record three frames per stream of the synthetic camera of depth_color.bag
// to a bag file, then list what the bag holds.
func ExampleCreate() {
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
	defer cam.Close() // the record device borrows cam and never closes it

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "out.bag")
	// Lossless: the synthetic camera runs as fast as it can, so wait for the
	// disk instead of dropping frames.
	rec, err := record.Create(cam, path, &record.Options{Lossless: true})
	if err != nil {
		panic(err)
	}
	for _, s := range rec.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			panic(err)
		}
	}
	for _, s := range rec.Sensors() {
		// The handler gets the very frames the camera delivers.
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {})); err != nil {
			panic(err)
		}
	}
	<-cam.Done()
	for _, s := range rec.Sensors() {
		_ = s.Stop()
	}
	if err := rec.Close(); err != nil { // writes the index
		panic(err)
	}
	for _, st := range rec.Stats().Streams {
		fmt.Printf("%s: %d frames written, %d dropped\n", st.Name(), st.Frames, st.Dropped)
	}

	r, err := rosbag.Open(path, nil)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	it := r.Messages(&rosbag.Query{Topics: []string{"/file_version", "/device_0/sensor_0/Depth_0/image/data"}})
	n := 0
	for it.Next() {
		n++
	}
	fmt.Println("indexed:", r.Info().Indexed, "file version + depth frames:", n)
	// Output:
	// Depth/0: 3 frames written, 0 dropped
	// Color/0: 3 frames written, 0 dropped
	// indexed: true file version + depth frames: 4
}
