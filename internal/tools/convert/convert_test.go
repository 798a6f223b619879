package convert

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

const refDir = "../../../testdata/librealsense"

// played returns every frame of a bag, played in non-real-time mode, with
// its bag position.
type playedFrame struct {
	f   *sensor.Frame
	pos time.Duration
}

func played(t *testing.T, bag string) ([]playedFrame, *playback.Device) {
	t.Helper()
	dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	var mu sync.Mutex
	var out []playedFrame
	done := make(chan struct{})
	var once sync.Once
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			once.Do(func() { close(done) })
		}
	})
	var opened []sensor.Sensor
	for _, s := range dev.Sensors() {
		if len(s.Profiles()) == 0 {
			continue
		}
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
		opened = append(opened, s)
	}
	for _, s := range opened {
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			mu.Lock()
			out = append(out, playedFrame{f, dev.Position()})
			mu.Unlock()
		})); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	for _, s := range opened {
		s.Stop()
	}
	if err := dev.Err(); err != nil {
		t.Fatal(err)
	}
	return out, dev
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// metadataText is the metadata file rs-convert writes for f.
func metadataText(f *sensor.Frame) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Stream: %s\n", f.Profile.Stream)
	for k := sensor.MetadataKey(0); int(k) < sensor.Count[sensor.MetadataKey](); k++ {
		if v, ok := f.Metadata.Get(k); ok {
			fmt.Fprintf(&b, "%s: %d\n", k, v)
		}
	}
	return b.String()
}

// TestFileNamesAndMetadata pins rs-convert's names and metadata text for
// the first depth frame of a reference bag (values from its
// expected.jsonl: frame 1 at 12345.678 ms).
func TestFileNamesAndMetadata(t *testing.T) {
	frames, _ := played(t, filepath.Join(refDir, "depth_color.bag"))
	var first *sensor.Frame
	for _, p := range frames {
		if p.f.Profile.Stream == sensor.StreamDepth {
			first = p.f
			break
		}
	}
	if got, want := frameFile("out/x", first, "png"), "out/x_Depth_12345.67799999999988.png"; got != want {
		t.Errorf("file name %q, want %q", got, want)
	}
	if got, want := metadataFile("out/x", first), "out/x_Depth_metadata_12345.67799999999988.txt"; got != want {
		t.Errorf("metadata name %q, want %q", got, want)
	}
	want := "Stream: Depth\nFrame Counter: 1\nFrame Timestamp: 12345678\nSensor Timestamp: 12345178\nActual Fps: 81\n"
	if got := metadataText(first); got != want {
		t.Errorf("metadata text %q, want %q", got, want)
	}
	ir := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 2}
	if got := streamName(ir); got != "Infrared 2" {
		t.Errorf("stream name %q, want Infrared 2", got)
	}
}

// TestConvertAll converts the video reference bags to every output with
// two workers and checks each file against the frame it came from: PNG
// depth is the colorizer's picture and PNG color the frame's pixels, RAW
// is the frame's bytes, CSV and BIN are the distances, PLY holds the
// non-zero points of the cloud, and each has its metadata file.
func TestConvertAll(t *testing.T) {
	for _, name := range []string{"depth_color.bag", "depth_color_ir2_uncompressed.bag", "metadata_rich.bag"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bag := filepath.Join(refDir, name)
			frames, _ := played(t, bag)
			dir := t.TempDir()
			for _, d := range []string{"png", "raw", "csv", "bin", "ply"} {
				if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			o := Options{PNG: filepath.Join(dir, "png", "x"), RAW: filepath.Join(dir, "raw", "x"), CSV: filepath.Join(dir, "csv", "x"),
				BIN: filepath.Join(dir, "bin", "x"), PLY: filepath.Join(dir, "ply", "x"), Workers: 2}
			res, err := Run(context.Background(), bag, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Damage.Damaged() {
				t.Fatalf("damage reported: %v", res.Damage.Lines())
			}
			col := processing.NewColorizer()
			wantFiles := map[string]int{}
			var depths []*sensor.Frame
			for _, p := range frames {
				f := p.f
				if !f.IsVideo() {
					continue
				}
				wantFiles["png"] += 2
				wantFiles["raw"] += 2
				checkPNG(t, frameFile(o.PNG, f, "png"), f, col)
				if got := readFile(t, frameFile(o.RAW, f, "raw")); !bytes.Equal(got, f.Data[:f.Stride*f.Height]) {
					t.Errorf("%s: RAW differs from the frame's bytes", frameFile(o.RAW, f, "raw"))
				}
				for _, pre := range []string{o.PNG, o.RAW} {
					if got := string(readFile(t, metadataFile(pre, f))); got != metadataText(f) {
						t.Errorf("%s: %q, want %q", metadataFile(pre, f), got, metadataText(f))
					}
				}
				if f.Profile.Stream != sensor.StreamDepth {
					continue
				}
				depths = append(depths, f)
				wantFiles["csv"] += 2
				wantFiles["bin"] += 2
				checkDepth(t, f, readFile(t, frameFile(o.CSV, f, "csv")), readFile(t, frameFile(o.BIN, f, "bin")))
			}
			for d, n := range wantFiles {
				if got, _ := filepath.Glob(filepath.Join(dir, d, "*")); len(got) != n {
					t.Errorf("%s: %d files, want %d", d, len(got), n)
				}
			}
			if got := res.Converted["PNG"]["Depth"]; got != len(depths) {
				t.Errorf("Converted PNG Depth = %d, want %d", got, len(depths))
			}
			// Every depth frame has a cloud with as many vertices as it
			// has non-zero depth pixels.
			plys, _ := filepath.Glob(filepath.Join(dir, "ply", "*.ply"))
			if len(plys) != len(depths) {
				t.Fatalf("%d PLY files, want one per depth frame (%d)", len(plys), len(depths))
			}
			for _, f := range depths {
				name := fmt.Sprintf("%s_%.14f.ply", o.PLY, f.TimestampMs)
				if got, want := plyVertices(t, name), nonZero(f); got != want {
					t.Errorf("%s: %d vertices, want %d", name, got, want)
				}
			}
		})
	}
}

func nonZero(f *sensor.Frame) int {
	n := 0
	for y := 0; y < f.Height; y++ {
		for x := 0; x < f.Width; x++ {
			if binary.LittleEndian.Uint16(f.Data[y*f.Stride+2*x:]) != 0 {
				n++
			}
		}
	}
	return n
}

func plyVertices(t *testing.T, name string) int {
	t.Helper()
	s := bufio.NewScanner(bytes.NewReader(readFile(t, name)))
	for s.Scan() {
		if n, ok := strings.CutPrefix(s.Text(), "element vertex "); ok {
			v, _ := strconv.Atoi(n)
			return v
		}
	}
	t.Fatalf("%s: no vertex element", name)
	return 0
}

// checkPNG decodes a PNG and compares its pixels with the colorizer's
// picture (depth) or the frame's own (RGB8, Y8).
func checkPNG(t *testing.T, name string, f *sensor.Frame, col *processing.Colorizer) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(readFile(t, name)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() != f.Width || b.Dy() != f.Height {
		t.Fatalf("%s: %v, want %dx%d", name, b, f.Width, f.Height)
	}
	var want []byte // RGB rows
	bpp := 3
	switch f.Profile.Format {
	case sensor.FormatZ16:
		c, err := col.Process(f)
		if err != nil {
			t.Fatal(err)
		}
		want = c.Data
	case sensor.FormatRGB8:
		want = f.Data
	case sensor.FormatY8:
		want, bpp = f.Data, 1
	default:
		return
	}
	for y := 0; y < f.Height; y++ {
		for x := 0; x < f.Width; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			px := want[y*f.Width*bpp+x*bpp:]
			exp := [3]uint32{uint32(px[0]), uint32(px[0]), uint32(px[0])}
			if bpp == 3 {
				exp = [3]uint32{uint32(px[0]), uint32(px[1]), uint32(px[2])}
			}
			if got := [3]uint32{r >> 8, g >> 8, b >> 8}; got != exp || a != 0xffff {
				t.Fatalf("%s: pixel (%d,%d) = %v alpha %d, want %v", name, x, y, got, a>>8, exp)
			}
		}
	}
	if _, gray := img.(*image.Gray); (bpp == 1) != gray {
		t.Errorf("%s: %T for %s", name, img, f.Profile.Format)
	}
}

// checkDepth compares the CSV (six significant digits) and BIN (exact
// float32) matrices with the frame's distances.
func checkDepth(t *testing.T, f *sensor.Frame, csv, bin []byte) {
	t.Helper()
	rows := strings.Split(strings.TrimSuffix(string(csv), "\n"), "\n")
	if len(rows) != f.Height || len(bin) != 4*f.Width*f.Height {
		t.Fatalf("frame %d: %d CSV rows, %d BIN bytes; want %d rows, %d bytes", f.Number, len(rows), len(bin), f.Height, 4*f.Width*f.Height)
	}
	for y, row := range rows {
		cells := strings.Split(row, ",")
		if len(cells) != f.Width {
			t.Fatalf("frame %d row %d: %d cells, want %d", f.Number, y, len(cells), f.Width)
		}
		for x, c := range cells {
			d, err := f.Distance(x, y)
			if err != nil {
				t.Fatal(err)
			}
			v, err := strconv.ParseFloat(c, 32)
			if err != nil || math.Abs(v-float64(d)) > 5e-6*math.Abs(float64(d)) {
				t.Fatalf("frame %d (%d,%d): CSV %q, want %v", f.Number, x, y, c, d)
			}
			if b := math.Float32frombits(binary.LittleEndian.Uint32(bin[4*(y*f.Width+x):])); b != d {
				t.Fatalf("frame %d (%d,%d): BIN %v, want %v", f.Number, x, y, b, d)
			}
		}
	}
}

// TestMotionCSV: the IMU and pose CSV has one section per stream, in
// rs2_stream order, with one row per sample: its number, timestamps
// metadata and values with three decimals.
func TestMotionCSV(t *testing.T) {
	for _, name := range []string{"motion_accel_gyro.bag", "pose.bag"} {
		t.Run(name, func(t *testing.T) {
			bag := filepath.Join(refDir, name)
			frames, _ := played(t, bag)
			dir := t.TempDir()
			at := time.Date(2026, 11, 25, 10, 11, 12, 0, time.Local)
			if _, err := Run(context.Background(), bag, Options{CSV: filepath.Join(dir, "m"), Time: at}); err != nil {
				t.Fatal(err)
			}
			got := string(readFile(t, filepath.Join(dir, "m_20261125101112_imu_pose.csv")))
			var want strings.Builder
			var streams []sensor.Stream
			for _, p := range frames {
				if !slices.Contains(streams, p.f.Profile.Stream) && !p.f.IsVideo() {
					streams = append(streams, p.f.Profile.Stream)
				}
			}
			slices.Sort(streams)
			for _, st := range streams {
				want.WriteString("\n\nStream Type,F#,HW Timestamp (ms),Backend Timestamp(ms),Host Timestamp(ms)")
				if st == sensor.StreamPose {
					want.WriteString(",t_x,t_y,t_z,r_x,r_y,r_z,r_w\n")
				} else {
					want.WriteString(",3DOF_x,3DOF_y,3DOF_z\n")
				}
				for _, p := range frames {
					f := p.f
					if f.Profile.Stream != st {
						continue
					}
					ts, _ := f.Metadata.Get(sensor.MetadataKeyFrameTimestamp)
					be, _ := f.Metadata.Get(sensor.MetadataKeyBackendTimestamp)
					ar, _ := f.Metadata.Get(sensor.MetadataKeyTimeOfArrival)
					fmt.Fprintf(&want, "%s,%d,%d,%d,%d", st, f.Number, ts, be, ar)
					vals := f.Motion[:]
					if f.IsPose() {
						vals = append(append([]float32{}, f.Pose.Translation[:]...), f.Pose.Rotation[:]...)
					}
					for _, v := range vals {
						fmt.Fprintf(&want, ",%.3f", v)
					}
					want.WriteString("\n")
				}
			}
			if got != want.String() {
				t.Errorf("CSV:\n%s\nwant\n%s", got, want.String())
			}
			if len(streams) == 0 || !strings.Contains(got, ",") {
				t.Fatal("no motion streams")
			}
		})
	}
}

// TestWindowAndFrames: -s/-e and --frames keep exactly the frames of the
// window (both ends included) and of the number range.
func TestWindowAndFrames(t *testing.T) {
	bag := filepath.Join(refDir, "depth_color.bag")
	frames, _ := played(t, bag)
	lo, hi := frames[len(frames)/4].pos, frames[len(frames)*3/4].pos
	for _, c := range []struct {
		name string
		o    Options
		keep func(p playedFrame) bool
	}{
		{"window", Options{Start: lo, End: hi}, func(p playedFrame) bool { return p.pos >= lo && p.pos <= hi }},
		{"frames", Options{Frames: &FrameRange{First: 5, Last: 9}}, func(p playedFrame) bool { return p.f.Number >= 5 && p.f.Number <= 9 }},
		{"depth", Options{Stream: sensor.StreamDepth}, func(p playedFrame) bool { return p.f.Profile.Stream == sensor.StreamDepth }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.o.RAW = filepath.Join(dir, "x")
			if _, err := Run(context.Background(), bag, c.o); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range frames {
				if c.keep(p) {
					want = append(want, filepath.Base(frameFile(c.o.RAW, p.f, "raw")))
				}
			}
			got, _ := filepath.Glob(filepath.Join(dir, "*.raw"))
			for i := range got {
				got[i] = filepath.Base(got[i])
			}
			slices.Sort(want)
			if len(want) == 0 || len(want) == len(frames) || !slices.Equal(got, want) {
				t.Errorf("files %v, want %v", got, want)
			}
		})
	}
}

// TestErrors: no output, a PNG directory that vanished mid-way (a write
// error stops the conversion with an error naming the file, and no part
// file is left), a bag that is not there.
func TestErrors(t *testing.T) {
	bag := filepath.Join(refDir, "depth_color.bag")
	if _, err := Run(context.Background(), bag, Options{}); err != ErrNoOutput {
		t.Errorf("no output: %v", err)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), filepath.Join(dir, "none.bag"), Options{RAW: filepath.Join(dir, "x")}); err == nil || !strings.Contains(err.Error(), "none.bag") {
		t.Errorf("missing bag: %v", err)
	}
	gone := filepath.Join(dir, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	_, err := Run(context.Background(), bag, Options{RAW: filepath.Join(gone, "x"), Workers: 1,
		Progress: func(time.Duration, time.Duration) { once.Do(func() { os.RemoveAll(gone) }) }})
	if err == nil || !strings.Contains(err.Error(), "gone/x_") {
		t.Errorf("vanished directory: %v, want an error naming the file", err)
	}
}

// TestPairOrder: depth frames that arrive before any color frame, or
// several before the next color frame, each get a point cloud; a depth
// frame with no color frame at all is reported, not silently dropped.
func TestPairOrder(t *testing.T) {
	depthP := &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Kind: sensor.KindVideo}
	colorP := &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Kind: sensor.KindVideo}
	frame := func(p *sensor.StreamProfile, n uint64) *sensor.Frame {
		return &sensor.Frame{Profile: p, Number: n, TimestampMs: float64(n) * 33}
	}
	for _, c := range []struct {
		name  string
		order []*sensor.Frame
		want  int
	}{
		{"depth first", []*sensor.Frame{frame(depthP, 1), frame(depthP, 2), frame(colorP, 1), frame(colorP, 2), frame(depthP, 3)}, 3},
		{"color first", []*sensor.Frame{frame(colorP, 1), frame(depthP, 1), frame(colorP, 2), frame(depthP, 2)}, 2},
		{"no color", []*sensor.Frame{frame(depthP, 1), frame(depthP, 2)}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cv := newConverter(ctx, cancel, nil, Options{PLY: "x"})
			cv.depthP, cv.colorP = depthP, colorP
			cancel() // the workers skip the jobs: they are counted, not written
			defer cv.jobs.wait()
			for _, f := range c.order {
				cv.pair(f)
			}
			cv.mu.Lock()
			cv.ctx = context.Background()
			cv.mu.Unlock()
			cv.flush()
			if got := cv.converted["PLY"]["Depth"]; got != c.want {
				t.Errorf("%d clouds, want %d", got, c.want)
			}
			if _, said := cv.skipped["PLY"]; said != (c.want == 0) {
				t.Errorf("skipped %v", cv.skipped)
			}
		})
	}
}
