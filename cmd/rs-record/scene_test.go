package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// firstFrames returns the first frame of every video stream of the bag.
func firstFrames(t *testing.T, bag string) map[sensor.Stream]*sensor.Frame {
	t.Helper()
	dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	got := map[sensor.Stream]*sensor.Frame{}
	var mu sync.Mutex // streams are handled on goroutines of their own
	done, err := dev.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		defer mu.Unlock()
		if f.Profile.Kind == sensor.KindVideo && got[f.Profile.Stream] == nil {
			got[f.Profile.Stream] = f
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return got
}

// TestREADMEFirstCommandFilmsScene: the README's first command, on a
// machine without a camera, records the synthetic camera filming the room:
// the bag's first depth and color frames are the default scene's pictures
// as the synthetic camera renders them (not the reference pattern).
func TestREADMEFirstCommandFilmsScene(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "session.bag")
	r := rsRecord(t, "record", "-t", "3", "-f", bag)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "no RealSense camera found") {
		t.Skipf("a camera seems to be attached (stderr %q)", r.stderr)
	}
	got := firstFrames(t, bag)
	for _, mode := range []struct {
		name  string
		scene *software.SceneConfig
		same  bool
	}{{"scene", &software.SceneConfig{}, true}, {"pattern", nil, false}} {
		cam, err := software.NewSynthetic(software.SyntheticConfig{
			Depth: &software.Video{Width: 848, Height: 480, FPS: 30}, Color: &software.Video{Width: 1280, Height: 720, FPS: 30},
			Frames: 1, Scene: mode.scene,
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[sensor.Stream][]byte{}
		var mu sync.Mutex // one handler goroutine per sensor
		for _, s := range cam.Sensors() {
			if err := s.Open(s.Profiles()...); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range cam.Sensors() {
			if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
				mu.Lock()
				want[f.Profile.Stream] = f.Data
				mu.Unlock()
			})); err != nil {
				t.Fatal(err)
			}
		}
		<-cam.Done()
		cam.Close()
		for _, st := range []sensor.Stream{sensor.StreamDepth, sensor.StreamColor} {
			f := got[st]
			if f == nil {
				t.Fatalf("no %s frame in %s", st, bag)
			}
			if eq := bytes.Equal(f.Data, want[st]); eq != mode.same {
				t.Errorf("%s frame equals the %s's: %v, want %v", st, mode.name, eq, mode.same)
			}
		}
	}
}

// topicMessages returns every message of the bag per topic: its bag time
// and bytes, in bag order.
func topicMessages(t *testing.T, bag string) map[string][]string {
	t.Helper()
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string][]string{}
	it := r.Messages(&rosbag.Query{})
	for it.Next() {
		m := it.Message()
		out[m.Conn.Topic] = append(out[m.Conn.Topic], fmt.Sprintf("%d %x", m.Time, m.Data))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSceneSeedDeterministic: the same scene flags and seed record the
// same bag — every topic the same messages at the same bag times, noise
// included (the order of messages of different sensors at one time
// follows their delivery goroutines) — and another seed another bag.
func TestSceneSeedDeterministic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(name, seed string) map[string][]string {
		bag := filepath.Join(dir, name)
		r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "12", "--scene", "clutter", "--motion", "walk",
			"--seed", seed, "--depth-noise", "0.1", "--edge-holes", "--imu-noise", "--motion-blur",
			"--depth", "212x120@30", "--color", "320x180@30", "--ir", "212x120@30", "--ir-count", "2", "--projector", "-f", bag)
		if r.code != 0 {
			t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
		}
		return topicMessages(t, bag)
	}
	a, b, c := rec("a.bag", "5"), rec("b.bag", "5"), rec("c.bag", "6")
	if len(a) < 20 {
		t.Fatalf("%d topics", len(a))
	}
	for topic, ms := range a {
		if !slices.Equal(ms, b[topic]) {
			t.Errorf("seed 5 twice: %s differs", topic)
		}
	}
	for _, topic := range []string{"/device_0/sensor_0/Depth_0/image/data", "/device_0/sensor_1/Color_0/image/data",
		"/device_0/sensor_0/Infrared_2/image/data", "/device_0/sensor_2/Accel_0/imu/data", "/device_0/sensor_2/Gyro_0/imu/data"} {
		if len(a[topic]) == 0 {
			t.Errorf("no %s", topic)
		}
		if slices.Equal(a[topic], c[topic]) {
			t.Errorf("seeds 5 and 6: the same %s", topic)
		}
	}
}

// TestGroundTruth: --ground-truth records beside every frame the pose of
// its stream and, for depth, the exact depth, at the frame's bag time on
// /ground_truth/ topics; the player plays the bag (exit 0), info lists the
// topics, dump names them; every valid depth pixel is its exact depth in depth units, every
// pixel hidden from the other imager (negative truth) is 0; the depth
// pose is the walk's.
func TestGroundTruth(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "gt.bag")
	r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "8", "--motion", "walk", "--ground-truth",
		"--depth", "212x120@30", "--color", "320x180@30", "-f", bag)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	if r := rsRecord(t, "play", "--realtime=false", bag); r.code != 0 || !strings.Contains(r.stdout, "Depth 8, Color 8") {
		t.Errorf("play: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	info := rsRecord(t, "info", bag)
	for _, topic := range []string{"/ground_truth/Depth_0/depth", "/ground_truth/Depth_0/pose", "/ground_truth/Color_0/pose", "/ground_truth/Accel_0/pose", "/ground_truth/Gyro_0/pose"} {
		if !strings.Contains(info.stdout, topic) {
			t.Errorf("info does not list %s", topic)
		}
	}
	if dump := rsRecord(t, "dump", bag); dump.code != 0 ||
		!strings.Contains(dump.stdout, `{"type":"ground_truth","topic":"/ground_truth/Depth_0/depth","msg_type":"sensor_msgs/Image","messages":8}`) {
		t.Errorf("dump: exit %d, no ground_truth line of the exact depth:\n%.2000s", dump.code, dump.stdout)
	}
	rb, err := rosbag.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	at := map[string]map[rosbag.Time][]byte{}
	it := rb.Messages(&rosbag.Query{})
	for it.Next() {
		m := it.Message()
		if at[m.Conn.Topic] == nil {
			at[m.Conn.Topic] = map[rosbag.Time][]byte{}
		}
		at[m.Conn.Topic][m.Time] = append([]byte(nil), m.Data...)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	depth := at["/device_0/sensor_0/Depth_0/image/data"]
	if len(depth) != 8 || len(at["/ground_truth/Depth_0/depth"]) != 8 || len(at["/ground_truth/Gyro_0/pose"]) != 8 {
		t.Fatalf("%d depth frames, %d exact depths, %d gyro poses: want 8", len(depth), len(at["/ground_truth/Depth_0/depth"]), len(at["/ground_truth/Gyro_0/pose"]))
	}
	walk := walkPose(t)
	hidden := 0
	for bt, data := range depth {
		var img, exact msgs.Image
		var pose msgs.Transform
		if err := msgs.Unmarshal(data, &img); err != nil {
			t.Fatal(err)
		}
		if err := msgs.Unmarshal(at["/ground_truth/Depth_0/depth"][bt], &exact); err != nil {
			t.Fatalf("exact depth at %v: %v", bt, err)
		}
		if err := msgs.Unmarshal(at["/ground_truth/Depth_0/pose"][bt], &pose); err != nil {
			t.Fatalf("pose at %v: %v", bt, err)
		}
		if exact.Encoding != "32FC1" || exact.Header.Seq != img.Header.Seq || exact.Header.Stamp != img.Header.Stamp {
			t.Errorf("exact depth %s seq %d stamp %v, frame seq %d stamp %v", exact.Encoding, exact.Header.Seq, exact.Header.Stamp, img.Header.Seq, img.Header.Stamp)
		}
		for i := range len(img.Data) / 2 {
			z := math.Float32frombits(binary.LittleEndian.Uint32(exact.Data[4*i:]))
			got := binary.LittleEndian.Uint16(img.Data[2*i:])
			want := uint16(math.Round(float64(z) / float64(float32(0.001))))
			if z < 0 {
				hidden++
				want = 0
			}
			if got != want {
				t.Fatalf("frame %d pixel %d: depth %d, exact %g m", img.Header.Seq, i, got, z)
			}
		}
		sec := float64(img.Header.Stamp.Sec) + float64(img.Header.Stamp.Nsec)/1e9 - 12.345678
		want := walk(sec)
		if d := math.Abs(pose.Translation.Z-want.T[2]) + math.Abs(pose.Translation.Y-want.T[1]); d > 1e-6 {
			t.Errorf("frame %d: pose translation %+v, want %v", img.Header.Seq, pose.Translation, want.T)
		}
	}
	if hidden == 0 {
		t.Error("no depth pixel hidden from the other imager")
	}
}

// TestGroundTruthNeedsSynthetic: --ground-truth with a live camera (the
// scripted D435i) is an error that says why, before any file is created;
// with --scene pattern it is a usage error.
func TestGroundTruthNeedsSynthetic(t *testing.T) {
	bag := filepath.Join(t.TempDir(), "live.bag")
	r := runIn(t, usbtest.New(fakeD435i()), "record", "--ground-truth", "--frames", "2", "-f", bag)
	if r.code != 1 || !strings.Contains(r.stderr, "--ground-truth: a live camera has no ground truth") {
		t.Errorf("live camera: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(bag); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want no file", bag, err)
	}
	r = runIn(t, usbtest.New(), "record", "--synthetic", "--ground-truth", "--scene", "pattern", "-f", bag)
	if r.code != 2 || !strings.Contains(r.stderr, "--ground-truth needs a scene") {
		t.Errorf("pattern: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSceneSeedIdenticalFiles: a synthetic recording as fast as possible
// (--speed 0) with one seed is the same file, byte for byte, every time,
// although its sensors' frames reach the recorder in varying order; it
// passes the strict checkers and plays as any recording.
func TestSceneSeedIdenticalFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(name string) []byte {
		bag := filepath.Join(dir, name)
		r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "20", "--scene", "clutter", "--motion", "walk",
			"--seed", "7", "--depth-noise", "0.1", "--imu-noise", "--ground-truth",
			"--depth", "64x48@30", "--color", "64x48@30", "--ir", "64x48@30", "--ir-count", "2", "-f", bag)
		if r.code != 0 {
			t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
		}
		b, err := os.ReadFile(bag)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := rec("0.bag")
	for i := 1; i < 4; i++ {
		if b := rec(fmt.Sprintf("%d.bag", i)); !bytes.Equal(b, first) {
			t.Fatalf("recording %d: %d bytes, not the first's %d bytes", i, len(b), len(first))
		}
	}
	checkStrict(t, filepath.Join(dir, "0.bag"))
	// The file version's connection stays the first, as librealsense
	// writes it and as readers of a bag's first connection expect.
	if id := connID(t, filepath.Join(dir, "0.bag"), layout.FileVersionTopic); id != 0 {
		t.Errorf("the file version is connection %d, want 0", id)
	}
	if r := rsRecord(t, "play", "--realtime=false", filepath.Join(dir, "0.bag")); r.code != 0 || !strings.Contains(r.stdout, "Infrared/2 20, Infrared/1 20, Depth 20, Color 20, Gyro 20, Accel 20 frames; 0 dropped") {
		t.Errorf("play: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
