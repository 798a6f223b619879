package units_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/units"
)

// A graph is validated before anything runs: here a cycle between two
// units.
func ExampleNewGraph() {
	ping := units.NewTopic[int]("ping")
	pong := units.NewTopic[int]("pong")
	nop := func(*units.Context, []*units.Msg) error { return nil }
	_, err := units.NewGraph(
		units.Unit{Name: "a", Handlers: []units.Handler{{Name: "h", Inputs: []units.Input{pong.In()}, Outputs: []units.Output{ping}, Func: nop}}},
		units.Unit{Name: "b", Handlers: []units.Handler{{Name: "h", Inputs: []units.Input{ping.In()}, Outputs: []units.Output{pong}, Func: nop}}},
	)
	fmt.Println(errors.Is(err, units.ErrGraph))
	fmt.Println(err)
	// Output:
	// true
	// units: invalid graph: cycle a.h → b.h → a.h
}

// Record a bag, then replay a graph over it: the brightest depth pixel of
// every frame, and every 100 ms of bag time the largest seen so far.
func ExampleReplay() {
	dir, err := os.MkdirTemp("", "units-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bag := filepath.Join(dir, "robot.bag")
	recordSynthetic(bag)

	far := units.NewTopic[int]("far/pixel")
	peak := units.NewTopic[int]("far/peak")
	newGraph := func() (*units.Graph, error) {
		most := 0
		return units.NewGraph(
			units.Unit{Name: "far", Handlers: []units.Handler{{
				Name: "depth", Inputs: []units.Input{units.Camera("", sensor.StreamDepth, 0)}, Outputs: []units.Output{far},
				Func: func(c *units.Context, in []*units.Msg) error {
					d, v := in[0].Frame.Data, 0
					for i := 0; i+1 < len(d); i += 2 {
						v = max(v, int(d[i])|int(d[i+1])<<8)
					}
					return far.Publish(c, v)
				}}}},
			units.Unit{Name: "peak", Handlers: []units.Handler{
				{Name: "track", Inputs: []units.Input{far.In()}, Func: func(c *units.Context, in []*units.Msg) error {
					v, _ := far.Value(in[0])
					most = max(most, v)
					return nil
				}},
				{Name: "report", Sync: units.Rate(100 * time.Millisecond), Outputs: []units.Output{peak}, Func: func(c *units.Context, in []*units.Msg) error {
					return peak.Publish(c, most)
				}},
			}},
		)
	}
	g, err := newGraph()
	if err != nil {
		log.Fatal(err)
	}
	res, err := units.Replay(context.Background(), g, []string{bag}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Calls["far.depth"], "depth frames,", len(res.ByTopic()["far/pixel"]), "far/pixel outputs")
	first := res.ByTopic()["far/pixel"][0]
	fmt.Println("first:", first.Topic, string(first.Value), "from", first.Input)
	for _, o := range res.ByTopic()["far/peak"] {
		fmt.Println(o.Time, o.Topic, string(o.Value))
	}
	// Output:
	// 30 depth frames, 30 far/pixel outputs
	// first: far/pixel 1771 from [/camera/SYN1/Depth/0 #1]
	// 100ms far/peak 1785
	// 200ms far/peak 1806
	// 300ms far/peak 1827
	// 400ms far/peak 1848
	// 500ms far/peak 1869
	// 600ms far/peak 1890
	// 700ms far/peak 1911
	// 800ms far/peak 1932
	// 900ms far/peak 1953
}

// recordSynthetic records 30 depth frames of the synthetic camera.
func recordSynthetic(bag string) {
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth:  &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
		Frames: 30,
		Info:   map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: "SYN1"},
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
}

// Sweep one recording through two variants of a graph: the second, with
// another threshold, diverges from the first.
func ExampleSweep() {
	dir, err := os.MkdirTemp("", "units-sweep")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bag := filepath.Join(dir, "robot.bag")
	recordSynthetic(bag)

	near := units.NewTopic[int]("near/pixels")
	variant := func(threshold int) func() (*units.Graph, error) {
		return func() (*units.Graph, error) {
			return units.NewGraph(units.Unit{Name: "near", Handlers: []units.Handler{{
				Name: "depth", Inputs: []units.Input{units.Camera("", sensor.StreamDepth, 0)}, Outputs: []units.Output{near},
				Func: func(c *units.Context, in []*units.Msg) error {
					d, n := in[0].Frame.Data, 0
					for i := 0; i+1 < len(d); i += 2 {
						if v := int(d[i]) | int(d[i+1])<<8; v > 0 && v < threshold {
							n++
						}
					}
					return near.Publish(c, n)
				}}}})
		}
	}
	res, err := units.Sweep(context.Background(), []string{bag}, []units.Variant{{Name: "1.5 m", New: variant(1500)}, {Name: "1.7 m", New: variant(1700)}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range res {
		d := v.Topics["near/pixels"]
		fmt.Printf("%s: %d outputs, largest difference %v, first divergence at output %d\n", v.Name, d.Count, d.MaxDiff, firstIndex(d.First))
	}
	// Output:
	// 1.5 m: 30 outputs, largest difference 0, first divergence at output -1
	// 1.7 m: 30 outputs, largest difference 1024, first divergence at output 0
}

func firstIndex(d *units.Divergence) int {
	if d == nil {
		return -1
	}
	return d.Index
}

// On the robot: run a graph live on a camera (here the synthetic one, for
// a second's 30 frames) and record the camera and the graph's outputs into
// one bag, which units.Compare later replays in CI. (Compiled, not run: it
// takes real time.)
func ExampleStart() {
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth:  &software.Video{Width: 640, Height: 480, FPS: 30, Format: sensor.FormatZ16},
		Speed:  1,
		Frames: 30,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer cam.Close()
	count := units.NewTopic[int]("depth/frames")
	n := 0
	g, err := units.NewGraph(units.Unit{Name: "count", Handlers: []units.Handler{{
		Name: "depth", Inputs: []units.Input{units.Camera("", sensor.StreamDepth, 0)}, Outputs: []units.Output{count},
		Func: func(c *units.Context, in []*units.Msg) error { n++; return count.Publish(c, n) },
	}}})
	if err != nil {
		log.Fatal(err)
	}
	rec, err := record.Create(cam, "robot.bag", nil)
	if err != nil {
		log.Fatal(err)
	}
	l, err := units.Start(context.Background(), g, []device.Device{rec}, &units.LiveOptions{Record: rec})
	if err != nil {
		log.Fatal(err)
	}
	<-cam.Done() // the camera's last frame
	if err := l.Stop(); err != nil {
		log.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Stats()["count.depth"].Calls, "calls")
}
