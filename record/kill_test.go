package record

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// killChildEnv makes the test binary act as the recording child of
// TestKilledRecording: it records the synthetic camera at real-time speed
// into the named file until killed.
const killChildEnv = "RSBAG_RECORD_KILL_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(killChildEnv); path != "" {
		os.Exit(recordUntilKilled(path))
	}
	os.Exit(m.Run())
}

func recordUntilKilled(path string) int {
	cfg, _ := software.ReferenceConfig("depth_color")
	cfg.Frames = 0 // until stopped
	cfg.Speed = 1
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		return 3
	}
	rec, err := New(cam, path, nil)
	if err != nil {
		return 4
	}
	for _, s := range rec.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			return 5
		}
	}
	for _, s := range rec.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
			return 6
		}
	}
	os.Stdout.WriteString("recording\n")
	time.Sleep(time.Minute) // killed long before
	return 7
}

// TestKilledRecording kills a recording process with SIGKILL after about 3 s
// and checks that the file opens without repair (by rosbag's recovery) and
// holds at least the first 2 s of frames.
func TestKilledRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time recording of 3 s")
	}
	path := filepath.Join(t.TempDir(), "killed.bag")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "recording") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child did not start recording: %q", buf[:n])
	}
	time.Sleep(3 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	r, err := rosbag.Open(path, nil)
	if r == nil {
		t.Fatalf("killed bag does not open: %v", err)
	}
	defer r.Close()
	if err != nil && !errors.Is(err, rosbag.ErrUnindexed) {
		t.Fatalf("open: %v", err)
	}
	info := r.Info()
	t.Logf("killed bag: %d bytes, %d chunks, %d messages, recovery %+v", info.Size, info.Chunks, info.Messages, info.Recovery)
	var last rosbag.Time
	frames := 0
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data"}})
	for it.Next() {
		var img msgs.Image
		if err := img.Unmarshal(it.Message().Data); err != nil {
			t.Fatalf("frame %d: %v", frames, err)
		}
		frames++
		last = it.Message().Time
	}
	if it.Err() != nil {
		t.Fatalf("read: %v", it.Err())
	}
	if last < 2_000_000_000 || frames < 60 {
		t.Errorf("depth frames up to bag time %v (%d frames), want at least the first 2 s", last, frames)
	}
	for _, topic := range []string{"/file_version", "/device_0/info", "/device_0/sensor_0/Depth_0/info"} {
		it := r.Messages(&rosbag.Query{Topics: []string{topic}})
		if !it.Next() {
			t.Errorf("%s missing", topic)
		}
	}
}
