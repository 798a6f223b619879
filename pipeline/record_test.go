package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestPipelineRecordAndPlayBack: recording the synthetic camera through a
// pipeline gives a bag that our playback and both conformance checkers
// accept, and playing it back through a pipeline gives the framesets the
// recording pipeline handed out.
func TestPipelineRecordAndPlayBack(t *testing.T) {
	bag := filepath.Join(t.TempDir(), "session.bag")
	syn := software.SyntheticConfig{
		Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 63,
		GyroFPS:  200,
		Duration: time.Second,
		Speed:    1,
		Metadata: software.MetadataBasic,
	}
	var live []string
	synctest.Test(t, func(t *testing.T) {
		cfg := &Config{}
		cfg.EnableSynthetic()
		cfg.SetSynthetic(syn)
		if err := cfg.EnableRecordToFile(bag); err != nil {
			t.Fatal(err)
		}
		p := New()
		prof, err := p.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(prof.Streams()) != 4 {
			t.Errorf("recording streams %v, want depth, color, accel and gyro", prof.Streams())
		}
		for {
			// The camera stops after its second; every goroutine is then
			// blocked and the virtual clock runs out the deadline.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			fs, err := p.WaitForFrames(ctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, describeAt(fs))
		}
		if err := p.Stop(); err != nil {
			t.Fatalf("Stop (finishes the recording): %v", err)
		}
	})
	// One second: 30 depth+color framesets (or more when a pair splits),
	// each with the latest gyro and accel samples.
	if len(live) < 29 {
		t.Fatalf("the recording pipeline handed out %d framesets", len(live))
	}
	for _, fs := range live {
		if strings.Count(fs, "#") != 4 {
			t.Fatalf("frameset %s, want depth, color, accel and gyro", fs)
		}
	}

	pb, err := playback.Open(bag, nil)
	if err != nil {
		t.Fatalf("playback refuses the pipeline's recording: %v", err)
	}
	pb.Close()
	for _, checker := range []string{conformance.BagcheckROS, conformance.BagcheckJS} {
		path := conformance.Optional(t, checker)
		if path == "" {
			continue
		}
		if out, err := exec.Command(path, "-q", bag).CombinedOutput(); err != nil {
			t.Errorf("%s refuses the pipeline's recording: %v\n%s", checker, err, out)
		}
	}

	cfg := &Config{}
	if err := cfg.EnableDeviceFromFile(bag, false); err != nil {
		t.Fatal(err)
	}
	cfg.SetRealTime(false)
	played := readAllWith(t, cfg, 0, describeAt)
	// Framesets of the same instant (frames of different sensors due
	// together) leave the live syncer in the order the sensors' goroutines
	// ran, and are written in the recorder's order: compare them as a set.
	// A frameset lists its frames in profile id order, and the playback
	// device numbers its profiles its own way: compare the frames as sets.
	live, played = sameInstantSorted(framesSorted(live)), sameInstantSorted(framesSorted(played))
	if !slices.Equal(played, live) {
		n := 0
		for n < min(len(live), len(played)) && live[n] == played[n] {
			n++
		}
		t.Errorf("recorded %d framesets, played back %d; first difference at %d:\nlive:   %q\nplayed: %q",
			len(live), len(played), n, live[n:min(n+5, len(live))], played[n:min(n+5, len(played))])
	}
}

// describeAt is describe prefixed with the timestamp of the frameset's first
// frame, in microseconds.
func describeAt(fs *Frameset) string {
	return fmt.Sprintf("%d %s", int64(math.Round(fs.Frames()[0].TimestampMs*1000)), describe(fs))
}

// framesSorted sorts the frames of each describeAt string.
func framesSorted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		ts, frames, _ := strings.Cut(s, " ")
		f := strings.Fields(frames)
		slices.Sort(f)
		out[i] = ts + " " + strings.Join(f, " ")
	}
	return out
}

// sameInstantSorted sorts each run of consecutive describeAt strings with
// the same timestamp.
func sameInstantSorted(list []string) []string {
	out := slices.Clone(list)
	at := func(s string) string { ts, _, _ := strings.Cut(s, " "); return ts }
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && at(out[j]) == at(out[i]) {
			j++
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

// TestRecordToExistingFileFailedStart: a Start that fails — here on a
// config the device cannot satisfy — leaves the file EnableRecordToFile
// names as it was: nothing is created or truncated before the config is
// known to work.
func TestRecordToExistingFileFailedStart(t *testing.T) {
	dir := t.TempDir()
	bag := filepath.Join(dir, "existing.bag")
	want := []byte("a recording that must survive")
	if err := os.WriteFile(bag, want, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.bag")
	for _, path := range []string{bag, fresh} {
		cfg := &Config{}
		cfg.EnableSynthetic()
		cfg.EnableStream(StreamRequest{Stream: sensor.StreamDepth, Index: AnyIndex, Width: 7, Height: 5})
		if err := cfg.EnableRecordToFile(path); err != nil {
			t.Fatal(err)
		}
		p := New()
		if _, err := p.Start(context.Background(), cfg); !errors.Is(err, ErrUnresolvable) {
			p.Stop()
			t.Fatalf("Start with a depth stream of 7x5: %v, want ErrUnresolvable", err)
		}
	}
	if got, err := os.ReadFile(bag); err != nil || !slices.Equal(got, want) {
		t.Errorf("the existing file after a failed Start: %d bytes (%v), want it unchanged", len(got), err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed Start created %s (%v)", fresh, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want 1", len(ents))
	}
}
