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
	// Chunks large and flushes rare enough that only the flush the test
	// asks for writes the frames taken before it.
	rec, err := Create(cam, path, &Options{Lossless: true, ChunkThreshold: 256 << 20, FlushInterval: time.Hour})
	if err != nil {
		return 4
	}
	var mu sync.Mutex
	var first time.Time
	var last uint64 // the number of the last depth frame taken
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
			last = f.Number
			fmt.Fprintf(os.Stdout, "F %d %d\n", f.Number, time.Since(first).Milliseconds())
			mu.Unlock()
		})); err != nil {
			return 6
		}
	}
	os.Stdout.WriteString("recording\n")
	// Each line on stdin asks for a flush: the child notes the last depth
	// frame the recorder has taken, flushes, and reports that frame. Record
	// until killed; should the test end without killing, its end closes the
	// pipe of our stdin.
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		mu.Lock()
		n := last
		mu.Unlock()
		if err := rec.Flush(); err != nil {
			return 8
		}
		fmt.Fprintf(os.Stdout, "FLUSHED %d\n", n)
	}
	return 7
}

// TestKilledRecording kills a recording process with SIGKILL while it
// records and checks that the file opens without repair (by rosbag's
// recovery) and holds every frame recorded before a Flush that returned:
// after 2 s of frames (by the child's clock) the test asks the child to
// flush and kills it as soon as the flush has returned. What the bag holds
// is decided by the flush, not by the machine's speed: a loaded machine
// only makes the waits longer.
func TestKilledRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time recording of 2 s")
	}
	path := filepath.Join(t.TempDir(), "killed.bag")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe() // open while the test runs
	if err != nil {
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
	var taken []uint64 // depth frames the recorder took, in order
	frame := func(l string) (ms int64, ok bool) {
		var n uint64
		if _, err := fmt.Sscanf(l, "F %d %d", &n, &ms); err != nil {
			return 0, false
		}
		taken = append(taken, n)
		return ms, true
	}
	next := func() string {
		l, ok := <-lines
		if !ok {
			t.Fatal("child ended before it was killed")
		}
		return l
	}
	for {
		if ms, ok := frame(next()); ok && ms >= 2000 {
			break
		}
	}
	if _, err := io.WriteString(in, "flush\n"); err != nil {
		t.Fatal(err)
	}
	// Kill as soon as the flush has returned: the frames taken before it
	// are in the file, those after it may still be in the open chunk.
	var flushed uint64 // frames up to this number were taken before the flush
	for {
		l := next()
		if _, err := fmt.Sscanf(l, "FLUSHED %d", &flushed); err == nil {
			break
		}
		if _, ok := frame(l); !ok {
			t.Fatalf("child: %q", l)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for l := range lines {
		frame(l)
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
	inBag := map[uint64]bool{}
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data"}})
	for it.Next() {
		var img msgs.Image
		if err := msgs.Unmarshal(it.Message().Data, &img); err != nil {
			t.Fatalf("frame %d: %v", frames, err)
		}
		frames++
		inBag[uint64(img.Header.Seq)] = true
		last = it.Message().Time
	}
	if it.Err() != nil {
		t.Fatalf("read: %v", it.Err())
	}
	missing := 0
	for _, n := range taken {
		if n <= flushed && !inBag[n] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of the depth frames up to frame %d, taken before the flush, missing; %d frames up to bag time %v", missing, flushed, frames, last)
	}
	for _, topic := range []string{"/file_version", "/device_0/info", "/device_0/sensor_0/Depth_0/info"} {
		it := r.Messages(&rosbag.Query{Topics: []string{topic}})
		if !it.Next() {
			t.Errorf("%s missing", topic)
		}
	}
}
