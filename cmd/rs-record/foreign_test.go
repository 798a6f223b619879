package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/rosbag"
)

// foreignMsg is a message of a topic outside the RealSense layout.
type foreignMsg struct {
	t    rosbag.Time
	data string
}

// foreign returns the connections (by topic) and messages of the topics
// outside the RealSense layout of the bags, the messages in bag order, the
// bags one after the other.
func foreign(t *testing.T, bags ...string) (map[string]rosbag.Connection, map[string][]foreignMsg) {
	t.Helper()
	conns, out := map[string]rosbag.Connection{}, map[string][]foreignMsg{}
	for _, bag := range bags {
		r, err := rosbag.Open(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Connections() {
			if layout.Parse(c.Topic).Kind == layout.KindUnknown {
				c.ID = 0
				if old, ok := conns[c.Topic]; ok && fmt.Sprint(old) != fmt.Sprint(*c) {
					t.Errorf("%s: connection %+v, in another part %+v", bag, *c, old)
				}
				conns[c.Topic] = *c
			}
		}
		it := r.Messages(&rosbag.Query{})
		for it.Next() {
			m := it.Message()
			if _, ok := conns[m.Conn.Topic]; ok && m.Time > rosbag.Time(layout.StaticTimeNs) {
				out[m.Conn.Topic] = append(out[m.Conn.Topic], foreignMsg{m.Time, string(m.Data)})
			}
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	return conns, out
}

// withUserTopic copies bag to out with a topic of the user's own beside
// the camera's: a message type of its own, header fields, messages before
// the first frame, between frames and after the last one.
func withUserTopic(t *testing.T, bag, out string, last rosbag.Time) {
	t.Helper()
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = writeAtomically(out, func(f *os.File) error {
		w, err := rosbag.NewWriter(f, nil)
		if err != nil {
			return err
		}
		if _, err := copyBag(w, r); err != nil {
			return err
		}
		id, err := w.AddConnection("/robot/odometer", "robot_msgs/Odometer", "0123456789abcdef0123456789abcdef",
			"# distance driven\nfloat64 meters\n", map[string]string{"callerid": "/robot", "latching": "0"})

		if err != nil {
			return err
		}
		for i, at := range []rosbag.Time{rosbag.Time(layout.SamplesStartNs), 40e6, 110e6, last, last + 25e6} {
			if err := w.WriteMessage(id, at, []byte{byte(i), 0, 0, 0, 0, 0, 0, 0}); err != nil {
				return err
			}
		}
		return w.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEditKeepsForeignTopics: trim, split, compress, decompress and an
// MCAP export imported back keep
// every message of the topics outside the RealSense layout (a synthetic
// camera's ground truth, a topic of the user's own with messages after the
// last frame) whose bag time is in the window they keep, with its time
// and bytes, and their connections as they are; trim --streams keeps the
// ground truth of the kept streams only.
func TestEditKeepsForeignTopics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gt := filepath.Join(dir, "gt.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "8", "--motion", "pan", "--ground-truth",
		"--depth", "64x48@30", "--color", "64x48@30", "--accel", "100", "--gyro", "200", "-f", gt); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	user := filepath.Join(dir, "user.bag")
	withUserTopic(t, gt, user, timelineOf(t, gt).last)
	for _, bag := range []string{gt, user} {
		wantConns, all := foreign(t, bag)
		if len(all["/ground_truth/Depth_0/depth"]) != 8 || len(all["/ground_truth/Gyro_0/pose"]) == 0 {
			t.Fatalf("%s: ground truth %v", bag, slices.Collect(maps.Keys(all)))
		}
		within := func(from, to rosbag.Time, keep func(topic string) bool) map[string][]foreignMsg {
			w := map[string][]foreignMsg{}
			for topic, ms := range all {
				for _, m := range ms {
					if m.t >= from && m.t < to && (keep == nil || keep(topic)) {
						w[topic] = append(w[topic], m)
					}
				}
			}
			return w
		}
		end := ^rosbag.Time(0)
		for _, c := range []struct {
			name string
			args []string
			want map[string][]foreignMsg
		}{
			{"trim", []string{"edit", "trim"}, all},
			{"trim start", []string{"edit", "trim", "--start", "50ms"}, within(50e6, end, nil)},
			{"trim end", []string{"edit", "trim", "--end", "120ms"}, within(0, 120e6, nil)},
			{"trim window", []string{"edit", "trim", "--start", "30ms", "--end", "150ms"}, within(30e6, 150e6, nil)},
			{"trim streams", []string{"edit", "trim", "--streams", "depth,gyro"}, within(0, end, func(topic string) bool {
				return !strings.HasPrefix(topic, "/ground_truth/") || strings.HasPrefix(topic, "/ground_truth/Depth_0/") || strings.HasPrefix(topic, "/ground_truth/Gyro_0/")
			})},
			{"split", []string{"edit", "split", "--every", "100ms"}, all},
			{"export import", []string{"export"}, all},
			{"compress", []string{"edit", "compress"}, all},
			{"decompress", []string{"edit", "decompress"}, all},
		} {
			t.Run(filepath.Base(bag)+" "+c.name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out")
				outs := []string{out}
				args := append(c.args, "-o", out, bag)
				switch c.name {
				case "split":
					outs = []string{out + "_0.bag", out + "_1.bag", out + "_2.bag"}
				case "export import":
					args = []string{"export", "--mcap", out + ".mcap", bag}
				}
				if r := rsRecord(t, args...); r.code != 0 {
					t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
				}
				if c.name == "export import" {
					if r := rsRecord(t, "import", out+".mcap", out); r.code != 0 {
						t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
					}
				}
				conns, got := foreign(t, outs...)
				for topic, ms := range c.want {
					if !slices.Equal(got[topic], ms) {
						t.Errorf("%s: %d messages at %v, want %d at %v", topic, len(got[topic]), times(got[topic]), len(ms), times(ms))
					}
					if fmt.Sprint(conns[topic]) != fmt.Sprint(wantConns[topic]) {
						t.Errorf("%s: connection %+v, want %+v", topic, conns[topic], wantConns[topic])
					}
				}
				for topic := range got {
					if _, ok := c.want[topic]; !ok {
						t.Errorf("%s: %d messages, want none", topic, len(got[topic]))
					}
				}
			})
		}
	}
}

// times returns the bag times of ms.
func times(ms []foreignMsg) []rosbag.Time {
	var ts []rosbag.Time
	for _, m := range ms {
		ts = append(ts, m.t)
	}
	return ts
}
