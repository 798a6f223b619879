package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
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
	cfg, _ := refcam.Config("depth_color")
	cfg.Frames = 0 // until stopped
	cfg.Speed = 1
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		return 3
	}
	// Lossless: the synthetic camera waits for its handler, so a loaded
	// machine slows it down rather than making the recorder drop frames.
	rec, err := Create(cam, path, &Options{Lossless: true})
	if err != nil {
		return 4
	}
	var mu sync.Mutex
	var first time.Time
	for _, s := range rec.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			return 5
		}
	}
	for _, s := range rec.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			if f.Profile.Stream != sensor.StreamDepth {
				return
			}
			// Report each depth frame the recorder has taken, with its
			// arrival time since the first.
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			fmt.Fprintf(os.Stdout, "F %d %d\n", f.Number, time.Since(first).Milliseconds())
			mu.Unlock()
		})); err != nil {
			return 6
		}
	}
	os.Stdout.WriteString("recording\n")
	// Record until killed; should the test end without killing, its end
	// closes the pipe of our stdin.
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 7
}

// TestKilledRecording kills a recording process with SIGKILL once it has
// delivered 3 s of frames and checks that the file opens without repair (by rosbag's recovery) and
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
	if _, err := cmd.StdinPipe(); err != nil { // open while the test runs
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if l := await.Recv(t, "the child's start", lines); l != "recording" {
		t.Fatalf("child: %q", l)
	}
	// Kill once the child has delivered a depth frame 3 s after its first
	// (by its own clock: a loaded machine only makes the wait longer).
	var early []uint32 // depth frames delivered in the first 2 s
	parse := func(l string) (ms int64) {
		var n uint32
		if _, err := fmt.Sscanf(l, "F %d %d", &n, &ms); err != nil {
			return -1
		}
		if ms < 2000 {
			early = append(early, n)
		}
		return ms
	}
	for {
		l, ok := <-lines
		if !ok {
			t.Fatal("child ended before it was killed")
		}
		if parse(l) >= 3000 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for l := range lines {
		parse(l)
	}

	r, err := rosbag.Open(path, nil)
	if r == nil {
		t.Fatalf("killed bag does not open: %v", err)
	}
	defer r.Close()
	if err := r.Unindexed(); err != nil && !errors.Is(err, rosbag.ErrUnindexed) {
		t.Fatalf("open: %v", err)
	}
	info := r.Info()
	t.Logf("killed bag: %d bytes, %d chunks, %d messages, recovery %+v", info.Size, info.Chunks, info.Messages, info.Recovery)
	var last rosbag.Time
	frames := 0
	inBag := map[uint32]bool{}
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data"}})
	for it.Next() {
		var img msgs.Image
		if err := img.Unmarshal(it.Message().Data); err != nil {
			t.Fatalf("frame %d: %v", frames, err)
		}
		frames++
		inBag[img.Header.Seq] = true
		last = it.Message().Time
	}
	if it.Err() != nil {
		t.Fatalf("read: %v", it.Err())
	}
	if len(early) == 0 {
		t.Fatal("child reported no depth frame")
	}
	missing := 0
	for _, n := range early {
		if !inBag[n] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of the %d depth frames of the first 2 s missing; %d frames up to bag time %v", missing, len(early), frames, last)
	}
	for _, topic := range []string{"/file_version", "/device_0/info", "/device_0/sensor_0/Depth_0/info"} {
		it := r.Messages(&rosbag.Query{Topics: []string{topic}})
		if !it.Next() {
			t.Errorf("%s missing", topic)
		}
	}
}
