package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/sensor"
)

// TestViewGroundTruth: `view` of a --ground-truth bag sends with every
// picture its frame's pose, the one a replay handler gets for that frame
// (playback.Device.GroundTruth at its bag time), and hovering depth gives
// the exact depth recorded at the pixel.
func TestViewGroundTruth(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "gt.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "6", "--motion", "walk", "--ground-truth",
		"--depth", "64x48@30", "--color", "64x48@30", "-f", bag); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	exact := exactDepths(t, bag)
	// The reference: the ground truth a replay gives each video frame.
	type key struct {
		name   string
		number uint64
	}
	ref := map[key]playback.GroundTruth{}
	_, err := replay.Run(context.Background(), []string{bag}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
		if f.Profile.Kind == sensor.KindVideo {
			gt, err := c.GroundTruth()
			ref[key{f.Profile.Name(), f.Number}] = gt
			return err
		}
		return nil
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref) != 12 {
		t.Fatalf("%d frames with ground truth in the reference, want 12", len(ref))
	}

	cmd, line, e := startView(t, "--port", "0", bag)
	ctx, cancel := await.Context(t, context.Background()) // a hang fails at the test's deadline
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(strings.TrimSpace(line), "http")+"ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	send := func(cmd string) {
		if err := conn.Write(ctx, websocket.MessageText, []byte(cmd)); err != nil {
			t.Fatal(err)
		}
	}
	names := map[int]string{}
	seen := map[string]int{}
	var depthID int
	hovered := false
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v (seen %v)", err, seen)
		}
		if typ == websocket.MessageBinary {
			n := binary.LittleEndian.Uint32(b)
			var h struct {
				Kind   string
				ID     int
				Number uint64
				Truth  *struct {
					T [3]float64
					Q [4]float64
				}
			}
			if err := json.Unmarshal(b[4:4+n], &h); err != nil {
				t.Fatal(err)
			}
			if h.Kind == "cloud" {
				continue
			}
			want, ok := ref[key{names[h.ID], h.Number}]
			if !ok || h.Truth == nil || h.Truth.T != want.Translation || h.Truth.Q != want.Rotation {
				t.Fatalf("%s frame %d: truth %+v, want %v %v", names[h.ID], h.Number, h.Truth, want.Translation, want.Rotation)
			}
			seen[names[h.ID]]++
			continue
		}
		var m struct {
			Type    string
			Ended   bool
			Streams []struct {
				ID   int
				Name string
			}
			Cmd    string
			Error  string
			Number uint64
			X, Y   int
			Exact  *float64
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Type == "hello":
			for _, s := range m.Streams {
				names[s.ID] = s.Name
				if s.Name == "Depth/0" {
					depthID = s.ID
				}
			}
			send(`{"cmd":"play"}`)
		case m.Type == "state" && m.Ended && !hovered:
			hovered = true
			send(fmt.Sprintf(`{"cmd":"hover","id":%d,"x":40,"y":30}`, depthID))
		case m.Type == "reply" && m.Cmd == "hover":
			if m.Error != "" || m.Exact == nil {
				t.Fatalf("hover: frame %d, exact %v, error %q", m.Number, m.Exact, m.Error)
			}
			if want := float64(exact[uint32(m.Number)][30*64+40]); *m.Exact != want {
				t.Errorf("hover (40, 30) of frame %d: exact %v, want %v", m.Number, *m.Exact, want)
			}
			if seen["Depth/0"] == 0 || seen["Color/0"] == 0 {
				t.Errorf("pictures with a pose: %v", seen)
			}
			cmd.Process.Signal(syscall.SIGINT)
			if err := cmd.Wait(); err != nil {
				t.Errorf("view after SIGINT: %v\n%s", err, e.String())
			}
			return
		}
	}
}
