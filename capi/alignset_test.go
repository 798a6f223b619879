package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// alignSetOutput runs testdata/alignset.c through this library on the
// reference bag with depth, color and two infrared streams and returns its
// lines and those librealsense 2.56.5 printed (testdata/alignset.expected:
// the same program built against librealsense's build, `gcc -I.
// testdata/alignset.c -L LRS/build/Release -l:librealsense2.so.2.56
// -lpthread`, and run with LD_LIBRARY_PATH=LRS/build/Release on the same
// bag, its standard output as it is), with the name of
// librealsense's x86 align variant, "Align (SSE3)", as this library names
// the block.
func alignSetOutput(t *testing.T) (got, want []string) {
	t.Helper()
	bag := filepath.Join("..", "testdata", "librealsense", "depth_color_ir2_uncompressed.bag")
	if _, err := os.Stat(bag); err != nil {
		t.Skipf("no reference bag: %v", err)
	}
	exp, err := os.ReadFile(filepath.Join("testdata", "alignset.expected"))
	if err != nil {
		t.Fatal(err)
	}
	out := run(t, program(t, "alignset.c"), bag)
	return strings.Split(strings.TrimSpace(out), "\n"), strings.Split(strings.TrimSpace(strings.ReplaceAll(string(exp), " (SSE3)", "")), "\n")
}

// linesOf returns the lines of a program's output up to (hold false) or
// from (hold true) its first "hold" line.
func linesOf(lines []string, hold bool) string {
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "hold ") {
		i++
	}
	if hold {
		return strings.Join(lines[i:], "\n")
	}
	return strings.Join(lines[:i], "\n")
}

// TestAlignFramesetsMatchLibrealsense compares what the align blocks make
// of framesets of depth, color and both infrared frames, in several
// orders, with librealsense's: aligned to depth, every other frame is
// aligned, and the output frameset holds the aligned frames in the input's
// order, then the depth frame; aligned to color or infrared, the depth
// frame is aligned to the set's first frame of that stream; a set without
// the stream comes back as it is.
func TestAlignFramesetsMatchLibrealsense(t *testing.T) {
	got, want := alignSetOutput(t)
	compareLinesBy(t, linesOf(got, false), linesOf(want, false), func(a, b string) bool { return a == b })
}

// TestFramesQueueSizeMatchesLibrealsense compares what a block gives while
// the program holds its outputs with librealsense's: with Frames Queue
// Size N (16 by default), once the program holds N outputs of a block the
// block gives nothing (and no error) until one is let go; with 0 there is
// no limit; an output the program keeps (rs2_keep_frame) is not counted.
func TestFramesQueueSizeMatchesLibrealsense(t *testing.T) {
	got, want := alignSetOutput(t)
	compareLinesBy(t, linesOf(got, true), linesOf(want, true), func(a, b string) bool { return a == b })
}
