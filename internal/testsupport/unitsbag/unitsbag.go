// Package unitsbag records, for tests, a bag with unit outputs (package
// units) as a robot does: the synthetic camera recorded live with a
// graph's outputs. (The units package's own tests cannot use it: it
// imports units.)
package unitsbag

import (
	"context"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/units"
)

// Record records the synthetic camera of cfg into the bag at path with the
// outputs of g run live on it, until the camera is done; settle (if not
// nil) then waits for the last frames to reach the handlers, e.g.
// synctest.Wait in a bubble.
func Record(t testing.TB, path string, cfg software.SyntheticConfig, g *units.Graph, settle func()) {
	t.Helper()
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	rec, err := record.Create(cam, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := units.Start(context.Background(), g, []device.Device{rec}, &units.LiveOptions{Record: rec})
	if err != nil {
		rec.Close()
		t.Fatal(err)
	}
	<-cam.Done()
	if settle != nil {
		settle()
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}
