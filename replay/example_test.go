package replay_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// The record-on-robot, replay-in-CI workflow: the robot records its camera
// to a bag; a test replays the bag through the processing code and gets
// the same outputs on every run (replaytest.Golden compares them with a
// golden file).
func Example() {
	dir, err := os.MkdirTemp("", "replay-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bag := filepath.Join(dir, "robot.bag")

	// On the robot: record 30 depth frames (here from the synthetic camera).
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth:  &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
		Frames: 30,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer cam.Close()
	rec, err := record.Create(cam, bag, &record.Options{Lossless: true})
	if err != nil {
		log.Fatal(err)
	}
	depth := rec.Sensors()[0]
	if err := depth.Open(depth.Profiles()...); err != nil {
		log.Fatal(err)
	}
	if err := depth.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
		log.Fatal(err)
	}
	<-cam.Done()
	depth.Stop()
	if err := rec.Close(); err != nil {
		log.Fatal(err)
	}

	// In CI: the code under test counts the pixels nearer than 2 m in
	// every depth frame; the replay records what it publishes.
	near := func(c *replay.Context, f *sensor.Frame) error {
		n := 0
		for i := 0; i+1 < len(f.Data); i += 2 {
			if d := float32(binary.LittleEndian.Uint16(f.Data[i:])) * f.Units(); d > 0 && d < 2 {
				n++
			}
		}
		return c.Publish("near_pixels", n)
	}
	res, err := replay.Run(context.Background(), []string{bag}, replay.Handlers{
		Streams: map[replay.StreamKey]replay.FrameFunc{{Stream: sensor.StreamDepth}: near},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Frames, "frames,", len(res.Outputs), "outputs")
	fmt.Println("first:", res.Outputs[0].Input, res.Outputs[0].Name, string(res.Outputs[0].Value))
	// Output:
	// 30 frames, 30 outputs
	// first: Depth/0 #1 near_pixels 3072
}
