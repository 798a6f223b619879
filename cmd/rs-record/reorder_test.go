package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/software"
)

// BenchmarkReorderBag measures what one seed, one file costs a scene
// recorded as fast as possible: the rewrite of a bag of 30 frames of
// 848x480 depth and 1280x720 color (bytes/s of the bag file).
func BenchmarkReorderBag(b *testing.B) {
	bag := filepath.Join(b.TempDir(), "scene.bag")
	synthrig.Bag(b, bag, software.SyntheticConfig{
		Depth: &software.Video{Width: 848, Height: 480, FPS: 30}, Color: &software.Video{Width: 1280, Height: 720, FPS: 30},
		Frames: 30, Scene: &software.SceneConfig{},
	})
	st, err := os.Stat(bag)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := reorderBag(bag, rosbag.WriterOptions{Compression: "lz4"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/30, "ms/frameset")
}
