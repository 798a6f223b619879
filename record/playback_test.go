package record

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// playAll plays a bag in non-real-time mode and returns the frames per
// stream ("sensor:Stream/index").
func playAll(t *testing.T, path string) map[string][]*sensor.Frame {
	t.Helper()
	pb, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatalf("playback open: %v", err)
	}
	defer pb.Close()
	stopped := make(chan struct{})
	var once sync.Once
	playing := false
	pb.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusPlaying {
			playing = true
		}
		if s == extensions.StatusStopped && playing {
			once.Do(func() { close(stopped) })
		}
	})
	var mu sync.Mutex
	out := map[string][]*sensor.Frame{}
	if err := pb.Pause(); err != nil {
		t.Fatal(err)
	}
	for i, s := range pb.Sensors() {
		if len(s.Profiles()) == 0 {
			continue
		}
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			mu.Lock()
			k := fmt.Sprintf("%d:%s", i, f.Profile.Name())
			out[k] = append(out[k], f)
			mu.Unlock()
		})); err != nil {
			t.Fatal(err)
		}
	}
	if err := pb.Resume(); err != nil {
		t.Fatal(err)
	}
	await.Recv(t, "the end of playback", stopped)
	if err := pb.Err(); err != nil {
		t.Fatalf("playback: %v", err)
	}
	return out
}

// TestPlaybackRoundTrip plays our recordings of the synthetic camera back
// and checks that playback reports, frame for frame, what the camera
// produced.
func TestPlaybackRoundTrip(t *testing.T) {
	names := []string{"depth_color_ir2_uncompressed", "motion_accel_gyro", "pose", "metadata_rich", "options_pause_notify"}
	if testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".bag")
			rec, produced := recordSynthetic(t, name, path)
			// The recorded frames: everything the handler saw minus those
			// that arrived while paused.
			want := map[string][]*sensor.Frame{}
			for _, f := range produced {
				want[f.Profile.Name()] = append(want[f.Profile.Name()], f)
			}
			for _, st := range rec.Streams {
				k := st.Name()
				if uint64(len(want[k])) != st.Frames+st.Paused {
					t.Errorf("%s: handler saw %d frames, recorder wrote %d and skipped %d", k, len(want[k]), st.Frames, st.Paused)
				}
			}
			got := playAll(t, path)
			total := 0
			for k, fs := range got {
				total += len(fs)
				name := k[2:]
				ws := want[name]
				// Drop the frames produced while paused: playback cannot
				// have them. They are the ones whose numbers are missing.
				idx := 0
				for _, g := range fs {
					for idx < len(ws) && ws[idx].Number != g.Number {
						idx++
					}
					if idx == len(ws) {
						t.Errorf("%s: played frame #%d was not produced", k, g.Number)
						break
					}
					if d := diffFrame(g, ws[idx]); d != "" {
						t.Errorf("%s #%d: %s", k, g.Number, d)
					}
					idx++
				}
			}
			if uint64(total) != rec.Frames {
				t.Errorf("played %d frames, recorded %d", total, rec.Frames)
			}
		})
	}
}

// diffFrame compares a played frame with the produced one.
func diffFrame(g, w *sensor.Frame) string {
	if g.Profile.Stream != w.Profile.Stream || g.Profile.Index != w.Profile.Index || g.Profile.Format != w.Profile.Format {
		return fmt.Sprintf("profile %s, produced %s", g.Profile, w.Profile)
	}
	var wantTS float64
	if w.Profile.Kind != sensor.KindPose {
		s := stamp(w.TimestampMs)
		wantTS = (float64(s.Sec) + 1e-9*float64(s.Nsec)) * 1000
	} else {
		wantTS, _ = strconv.ParseFloat(strconv.FormatFloat(w.TimestampMs, 'f', 6, 64), 64)
	}
	if g.TimestampMs != wantTS || g.Domain != w.Domain {
		return fmt.Sprintf("timestamp %v %v, want %v %v", g.TimestampMs, g.Domain, wantTS, w.Domain)
	}
	if g.Metadata != w.Metadata {
		return fmt.Sprintf("metadata differs: %v, want %v", mdString(&g.Metadata), mdString(&w.Metadata))
	}
	if !bytes.Equal(g.Data, w.Data) {
		return fmt.Sprintf("data differs (%d bytes, want %d)", len(g.Data), len(w.Data))
	}
	if w.Profile.Kind == sensor.KindVideo {
		if g.Width != w.Width || g.Height != w.Height || g.Stride != w.Stride || g.DepthUnits != w.DepthUnits {
			return fmt.Sprintf("%dx%d stride %d units %v, want %dx%d stride %d units %v",
				g.Width, g.Height, g.Stride, g.DepthUnits, w.Width, w.Height, w.Stride, w.DepthUnits)
		}
	}
	return ""
}

func mdString(m *sensor.Metadata) string {
	var b bytes.Buffer
	m.Range(func(k sensor.MetadataKey, v int64) bool {
		fmt.Fprintf(&b, "%s=%d ", k, v)
		return true
	})
	return b.String()
}
