package rig_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/sensor"
)

// event is one delivered frame.
type event struct {
	dev    int
	t      time.Duration
	stream string
	number uint64
}

func (e event) String() string { return fmt.Sprintf("%d@%v %s #%d", e.dev, e.t, e.stream, e.number) }

// playAll plays the session in non-real-time mode and returns what it
// delivered.
func playAll(t *testing.T, paths []string) []event {
	t.Helper()
	s, err := rig.Open(paths, &rig.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var (
		mu  sync.Mutex
		evs []event
	)
	if err := s.Start(nil, func(dev int, bt time.Duration, f *sensor.Frame) {
		mu.Lock()
		evs = append(evs, event{dev, bt, f.Profile.Name(), f.Number})
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := await.Context(t, context.Background())
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return evs
}

// alone plays one bag by itself in non-real-time mode.
func alone(t *testing.T, path string, dev int) []event {
	t.Helper()
	d, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var evs []event
	var mu sync.Mutex
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		evs = append(evs, event{dev, d.Position(), f.Profile.Name(), f.Number})
		mu.Unlock()
	})
	done, err := d.PlayAll(h)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	mu.Lock()
	defer mu.Unlock()
	return evs
}

func TestSessionOrder(t *testing.T) {
	man := synthrig.Record(t, 2)
	m, err := rig.ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Bags) != 2 || m.Bags[0].Serial != "RIG001" || m.Bags[1].File != "rig.RIG002.bag" || m.Start.IsZero() {
		t.Fatalf("manifest %+v", m)
	}
	evs := playAll(t, []string{man})
	// Common bag-time order, equal times in device order.
	for i := 1; i < len(evs); i++ {
		a, b := evs[i-1], evs[i]
		if b.t < a.t || b.t == a.t && b.dev < a.dev && a.stream == b.stream {
			t.Fatalf("frame %d (%v) after %v: not in common time order", i, b, a)
		}
	}
	// Each device's frames are exactly those it plays alone, in its order,
	// and both devices' frames interleave.
	paths := m.Paths(man)
	switches := 0
	for dev, p := range paths {
		var mine []event
		for i, e := range evs {
			if e.dev == dev {
				mine = append(mine, e)
			}
			if i > 0 && evs[i-1].dev != e.dev {
				switches++
			}
		}
		if want := alone(t, p, dev); !slices.Equal(mine, want) {
			t.Fatalf("device %d: %d frames in the session, %d alone; first session frames %v, alone %v", dev, len(mine), len(want), mine[:min(4, len(mine))], want[:min(4, len(want))])
		}
	}
	if switches < 10 {
		t.Fatalf("the devices' frames interleave only %d times: %v", switches, evs[:min(20, len(evs))])
	}
	// The same bags as a list play identically, every time.
	for range 3 {
		if again := playAll(t, paths); !slices.Equal(again, evs) {
			t.Fatal("a second session over the same bags delivered other frames or another order")
		}
	}
}

// TestSessionControls: pause, seek and speed act on every device.
func TestSessionControls(t *testing.T) {
	man := synthrig.Record(t, 2)
	for _, nrt := range []bool{false, true} {
		t.Run(fmt.Sprintf("nonrealtime=%v", nrt), func(t *testing.T) {
			s, err := rig.Open([]string{man}, &rig.Options{NonRealTime: nrt, Speed: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var (
				mu       sync.Mutex
				paused   bool
				bad      []string
				after    = map[int]int{}
				seekDone bool
				seeking  bool
				picture  = map[int]int{}
				target   = s.Duration() / 2
			)
			first := make(chan struct{})
			var once sync.Once
			if err := s.Start(nil, func(dev int, bt time.Duration, f *sensor.Frame) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case paused && seeking:
					// Real time: the devices are paused, and a seek while
					// paused delivers each one's current picture.
					picture[dev]++
					if bt > target {
						bad = append(bad, fmt.Sprintf("device %d picture frame at %v after the target %v", dev, bt, target))
					}
				case paused:
					bad = append(bad, fmt.Sprintf("device %d frame at %v delivered while paused", dev, bt))
				}
				if seekDone {
					after[dev]++
					if bt < target {
						bad = append(bad, fmt.Sprintf("device %d frame at %v after the seek to %v", dev, bt, target))
					}
				}
				once.Do(func() { close(first) })
			}); err != nil {
				t.Fatal(err)
			}
			<-first
			if err := s.Pause(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			paused = true
			mu.Unlock()
			if !nrt {
				for i, d := range s.Devices() {
					if d.Status() != extensions.StatusPaused {
						t.Fatalf("device %d: status %v after the session paused", i, d.Status())
					}
				}
			}
			if err := s.SetSpeed(4); err != nil {
				t.Fatal(err)
			}
			if err := s.SetSpeed(0); err == nil {
				t.Fatal("SetSpeed(0): no error")
			}
			if !nrt {
				for i, d := range s.Devices() {
					if d.Speed() != 4 {
						t.Fatalf("device %d: speed %v after the session's SetSpeed(4)", i, d.Speed())
					}
				}
			}
			mu.Lock()
			seeking = true
			mu.Unlock()
			if err := s.Seek(target); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			paused, seeking, seekDone = false, false, true
			if nrt && len(picture) > 0 || !nrt && (picture[0] == 0 || picture[1] == 0) {
				t.Errorf("picture frames per device %v: want some from both devices in real time only", picture)
			}
			mu.Unlock()
			if err := s.Resume(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := await.Context(t, context.Background())
			defer cancel()
			if err := s.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bad) > 0 {
				t.Fatal(strings.Join(bad, "\n"))
			}
			if after[0] == 0 || after[1] == 0 {
				t.Fatalf("frames after the seek per device: %v; want both devices to play on", after)
			}
			if err := s.Seek(s.Duration() + 1); !errors.Is(err, playback.ErrOutOfRange) {
				t.Fatalf("seek past the end: %v, want ErrOutOfRange", err)
			}
		})
	}
}

func TestSessionBadInput(t *testing.T) {
	man := synthrig.Record(t, 2)
	m, _ := rig.ReadManifest(man)
	paths := m.Paths(man)
	dir := filepath.Dir(man)

	if _, err := rig.Open([]string{paths[0], paths[0]}, nil); !errors.Is(err, rig.ErrSameDevice) || !strings.Contains(err.Error(), "RIG001") {
		t.Errorf("the same bag twice: %v, want rig.ErrSameDevice naming the serial", err)
	}
	apart := synthrig.Record(t, 2, 0, 10*time.Second)
	if _, err := rig.Open([]string{rigfiles.BagPath(apart, "RIG001"), rigfiles.BagPath(apart, "RIG002")}, nil); !errors.Is(err, rig.ErrNoOverlap) {
		t.Errorf("bags 10 s apart: %v, want rig.ErrNoOverlap", err)
	}
	// A manifest naming a missing file.
	missing := *m
	missing.Bags = append([]rig.ManifestBag(nil), m.Bags...)
	missing.Bags[1].File = "gone.bag"
	mp := filepath.Join(dir, "missing"+rigfiles.ManifestSuffix)
	if err := missing.WriteFile(mp); err != nil {
		t.Fatal(err)
	}
	if _, err := rig.Open([]string{mp}, nil); err == nil || !strings.Contains(err.Error(), "gone.bag") {
		t.Errorf("manifest naming a missing bag: %v, want an error naming it", err)
	}
	// A manifest whose serial is not the bag's.
	wrong := *m
	wrong.Bags = append([]rig.ManifestBag(nil), m.Bags...)
	wrong.Bags[0].Serial = "OTHER"
	wp := filepath.Join(dir, "wrong"+rigfiles.ManifestSuffix)
	if err := wrong.WriteFile(wp); err != nil {
		t.Fatal(err)
	}
	if _, err := rig.Open([]string{wp}, nil); err == nil || !strings.Contains(err.Error(), "OTHER") {
		t.Errorf("manifest with a wrong serial: %v", err)
	}
	for name, body := range map[string]string{
		"notjson":   "{",
		"format":    `{"format":"x","version":1,"bags":[{"file":"a.bag","serial":"1"}]}`,
		"version":   `{"format":"rsbag-session","version":9,"bags":[{"file":"a.bag","serial":"1"}]}`,
		"nobags":    `{"format":"rsbag-session","version":1,"bags":[]}`,
		"absolute":  `{"format":"rsbag-session","version":1,"bags":[{"file":"/a.bag","serial":"1"}]}`,
		"twice":     `{"format":"rsbag-session","version":1,"bags":[{"file":"a.bag","serial":"1"},{"file":"b.bag","serial":"1"}]}`,
		"no serial": `{"format":"rsbag-session","version":1,"bags":[{"file":"a.bag"}]}`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "")+rigfiles.ManifestSuffix)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := rig.Open([]string{p}, nil); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming the manifest", name, err)
		}
	}
	if _, err := rig.Open([]string{man, paths[0]}, nil); err == nil {
		t.Error("a manifest with another bag: no error")
	}
}

func TestPaths(t *testing.T) {
	for _, c := range []struct{ file, serial, bag, man string }{
		{"rig.bag", "123", "rig.123.bag", "rig.session.json"},
		{"dir/rig", "A/B", "dir/rig.A_B.bag", "dir/rig.session.json"},
	} {
		if got := rigfiles.BagPath(c.file, c.serial); got != c.bag {
			t.Errorf("rigfiles.BagPath(%q, %q) = %q, want %q", c.file, c.serial, got, c.bag)
		}
		if got := rigfiles.ManifestPath(c.file); got != c.man {
			t.Errorf("rigfiles.ManifestPath(%q) = %q, want %q", c.file, got, c.man)
		}
	}
}

// TestSessionModeSwitch: switching a running non-real-time session to
// real time releases the frames waiting for their turn and gives every
// device the session's speed; switching back restores the common order.
func TestSessionModeSwitch(t *testing.T) {
	man := synthrig.Record(t, 2)
	s, err := rig.Open([]string{man}, &rig.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	n := 0
	first := make(chan struct{})
	var once sync.Once
	if err := s.Start(nil, func(int, time.Duration, *sensor.Frame) {
		mu.Lock()
		n++
		mu.Unlock()
		once.Do(func() { close(first) })
	}); err != nil {
		t.Fatal(err)
	}
	<-first
	if err := s.SetSpeed(8); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRealTime(true); err != nil {
		t.Fatal(err)
	}
	for i, d := range s.Devices() {
		if !d.RealTime() || d.Speed() != 8 {
			t.Fatalf("device %d: real time %v speed %v, want true 8", i, d.RealTime(), d.Speed())
		}
	}
	if err := s.SetRealTime(false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := await.Context(t, context.Background())
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Status() != extensions.StatusStopped || s.RealTime() {
		t.Fatalf("status %v real time %v at the end", s.Status(), s.RealTime())
	}
}
