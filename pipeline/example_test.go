package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Play a bag through a pipeline, as fast as it can be read, and compute
// the mean depth in meters of each depth frame (pixels without depth left
// out).
func Example() {
	cfg := &pipeline.Config{}
	// Played once: at its end WaitForFrames returns ErrEndOfStream.
	if err := cfg.EnableDeviceFromFile("../testdata/librealsense/depth_color.bag", false); err != nil {
		log.Fatal(err)
	}
	cfg.EnableStream(pipeline.StreamRequest{Stream: sensor.StreamDepth, Index: pipeline.AnyIndex})
	p := pipeline.New()
	prof, err := p.Start(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	// The playback device paces at 1x by default; read as fast as we can.
	if err := prof.Device().(extensions.Playback).SetRealTime(false); err != nil {
		log.Fatal(err)
	}
	for n := 0; ; n++ {
		fs, err := p.WaitForFrames(context.Background())
		if errors.Is(err, pipeline.ErrEndOfStream) {
			fmt.Println(n, "depth frames")
			return
		}
		if err != nil {
			log.Fatal(err)
		}
		depth := fs.Depth()
		var sum float64
		var valid int
		for y := 0; y < depth.Height; y++ {
			for x := 0; x < depth.Width; x++ {
				if d, err := depth.Distance(x, y); err == nil && d > 0 {
					sum += float64(d)
					valid++
				}
			}
		}
		if n < 3 {
			fmt.Printf("frame %d: mean depth %.3f m over %d pixels\n", depth.Number, sum/float64(valid), valid)
		}
	}
	// Output:
	// frame 1: mean depth 3.434 m over 101760 pixels
	// frame 2: mean depth 3.441 m over 101760 pixels
	// frame 3: mean depth 3.448 m over 101760 pixels
	// 30 depth frames
}

// Record two seconds of a camera's depth and color (the synthetic camera
// when none is attached) through a pipeline into a bag.
func Example_record() {
	out := filepath.Join(os.TempDir(), "rsbag-pipeline-example.bag")
	defer os.Remove(out)
	cfg := &pipeline.Config{}
	cfg.EnableSynthetic() // leave out to use an attached camera
	cfg.EnableStream(pipeline.StreamRequest{Stream: sensor.StreamDepth, Index: pipeline.AnyIndex})
	cfg.EnableStream(pipeline.StreamRequest{Stream: sensor.StreamColor, Index: pipeline.AnyIndex})
	if err := cfg.EnableRecordToFile(out); err != nil {
		log.Fatal(err)
	}
	p := pipeline.New()
	if _, err := p.Start(context.Background(), cfg); err != nil {
		log.Fatal(err)
	}
	var start float64 = -1
	for {
		fs, err := p.WaitForFrames(context.Background())
		if err != nil {
			log.Fatal(err)
		}
		f := fs.At(0)
		if start < 0 {
			start = f.TimestampMs
		}
		if f.TimestampMs-start >= 2000 {
			break
		}
	}
	// Stop finishes the bag: chunks, index and connections are written.
	if err := p.Stop(); err != nil {
		log.Fatal(err)
	}

	pb, err := playback.Open(out, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer pb.Close()
	for _, s := range pb.Sensors() {
		for _, q := range s.Profiles() {
			fmt.Println(q)
		}
	}
	// Output:
	// Depth/0 Z16 848x480@30
	// Color/0 RGB8 1280x720@30
}
