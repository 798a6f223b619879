package playback

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// rewrite copies src to a new bag, letting edit change each message: it
// returns the data to write (nil drops the message) and, when wrongType is
// set, writes it on a std_msgs/String connection of the same topic.
func rewrite(t *testing.T, src string, edit func(topic string, n int, data []byte) (out []byte, wrongType bool)) string {
	t.Helper()
	r, err := rosbag.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	w, err := rosbag.Create(dst, &rosbag.WriterOptions{Compression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	conns := map[uint32]uint32{}
	wrong := map[string]uint32{}
	count := map[string]int{}
	it := r.Messages(nil)
	for it.Next() {
		m := it.Message()
		c := m.Conn
		out, wt := edit(c.Topic, count[c.Topic], m.Data)
		count[c.Topic]++
		if out == nil {
			continue
		}
		var id uint32
		if wt {
			var ok bool
			if id, ok = wrong[c.Topic]; !ok {
				if id, err = w.AddConnection(c.Topic, new(msgs.String).Type().Name, new(msgs.String).Type().MD5, new(msgs.String).Type().Definition, nil); err != nil {
					t.Fatal(err)
				}
				wrong[c.Topic] = id
			}
		} else {
			var ok bool
			if id, ok = conns[c.ID]; !ok {
				if id, err = w.AddConnection(c.Topic, c.Type, c.MD5Sum, c.MessageDefinition, nil); err != nil {
					t.Fatal(err)
				}
				conns[c.ID] = id
			}
		}
		if err := w.WriteMessage(id, m.Time, out); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

const depthTopic = "/device_0/sensor_0/Depth_0/image/data"

func TestBadFrameMessages(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(topic string, n int, data []byte) ([]byte, bool)
		want   string
		frames int // about this many frames before the bad one
	}{
		{"wrong type", func(topic string, n int, data []byte) ([]byte, bool) {
			// The writer allows one connection per topic: the whole topic
			// gets the wrong type, so the bag is refused at Open (frames < 0),
			// as info and export refuse it.
			if topic == depthTopic {
				return []byte{3, 0, 0, 0, 'b', 'a', 'd'}, true
			}
			return data, false
		}, "want sensor_msgs/Image", -1},
		{"truncated image", func(topic string, n int, data []byte) ([]byte, bool) {
			if topic == depthTopic && n == 10 {
				return data[:len(data)/2], false
			}
			return data, false
		}, "decoding sensor_msgs/Image", 20},
		{"missing depth_units", func(topic string, n int, data []byte) ([]byte, bool) {
			if topic == depthTopic && n == 10 {
				return data[:len(data)-4], false
			}
			return data, false
		}, "depth_units", 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := rewrite(t, depthColor, c.edit)
			if c.frames < 0 {
				_, err := Open(path, &Options{NonRealTime: true})
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), depthTopic) {
					t.Fatalf("Open: %v, want an error naming %s and %q", err, depthTopic, c.want)
				}
				return
			}
			d := open(t, path, &Options{NonRealTime: true})
			col := newCollector(d)
			var notes []sensor.Notification
			for _, s := range d.Sensors() {
				s.(extensions.Notifier).OnNotification(func(n sensor.Notification) { notes = append(notes, n) })
			}
			startAll(t, d, col)
			col.waitStopped(t)
			err := d.Err()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), depthTopic) {
				t.Fatalf("Err() = %v, want an error naming %s and %q", err, depthTopic, c.want)
			}
			if n := len(col.snapshot()); n < c.frames-1 || n > c.frames+1 {
				t.Errorf("%d frames delivered before the bad message, want about %d", n, c.frames)
			}
			d.ev.flush()
			if len(notes) == 0 || notes[0].Severity != sensor.SeverityError {
				t.Errorf("notifications %+v, want an error notification", notes)
			}
			if d.Status() != extensions.StatusStopped {
				t.Errorf("status %v", d.Status())
			}
		})
	}
}

func TestFileVersions(t *testing.T) {
	for _, v := range []uint32{0, 1, 5, 7} {
		path := rewrite(t, poseBag, func(topic string, n int, data []byte) ([]byte, bool) {
			if topic == layout.FileVersionTopic {
				return binary.LittleEndian.AppendUint32(nil, v), false
			}
			return data, false
		})
		_, err := Open(path, nil)
		if err == nil || !strings.Contains(err.Error(), "file version "+string(rune('0'+v))) || !strings.Contains(err.Error(), path) {
			t.Errorf("version %d: Open error %v, want one naming the version and the file", v, err)
		}
	}
	path := rewrite(t, poseBag, func(topic string, n int, data []byte) ([]byte, bool) {
		if topic == layout.FileVersionTopic {
			return nil, false
		}
		return data, false
	})
	if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), layout.FileVersionTopic) {
		t.Errorf("no version topic: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.bag"), nil); err == nil {
		t.Error("Open of a missing file succeeded")
	}
}

func TestUnrecognizedD400Sensor(t *testing.T) {
	path := rewrite(t, realBag, func(topic string, n int, data []byte) ([]byte, bool) {
		if topic == "/device_0/sensor_1/info" {
			return append(append(binary.LittleEndian.AppendUint32(nil, 4), "Name"...),
				append(binary.LittleEndian.AppendUint32(nil, 5), "Other"...)...), false
		}
		return data, false
	})
	if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), "unrecognized sensor name") {
		t.Errorf("Open = %v, want an unrecognized sensor name error", err)
	}
}

func TestUnindexedBag(t *testing.T) {
	b, err := os.ReadFile(irBag)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.bag")
	if err := os.WriteFile(path, b[:len(b)*6/10], 0o644); err != nil {
		t.Fatal(err)
	}
	d := open(t, path, &Options{NonRealTime: true})
	if d.Recovery() == nil {
		t.Error("no recovery report for a truncated bag")
	}
	c := newCollector(d)
	startAll(t, d, c)
	c.waitStopped(t)
	if n := len(c.snapshot()); n == 0 || n >= 48 {
		t.Errorf("recovered %d frames of 48", n)
	}
}

// TestOptionTimeline: option values recorded during the recording take
// effect from their bag time, during playback and after seeks.
func TestOptionTimeline(t *testing.T) {
	const topic = "/device_0/sensor_0/option/Exposure/value"
	r, err := rosbag.Open(depthColor, nil)
	if err != nil {
		t.Fatal(err)
	}
	var conn *rosbag.Connection
	for _, c := range r.Connections() {
		if c.Topic == topic {
			conn = c
		}
	}
	r.Close()
	if conn == nil {
		t.Fatal("no Exposure topic")
	}
	// Add a change to 33000 at 400 ms by writing a second bag with it.
	src := rewrite(t, depthColor, func(topic string, n int, data []byte) ([]byte, bool) { return data, false })
	rr, _ := rosbag.Open(src, nil)
	dst := filepath.Join(t.TempDir(), "opt.bag")
	w, _ := rosbag.Create(dst, &rosbag.WriterOptions{Compression: "none"})
	ids := map[uint32]uint32{}
	it := rr.Messages(nil)
	for it.Next() {
		m := it.Message()
		id, ok := ids[m.Conn.ID]
		if !ok {
			id, _ = w.AddConnection(m.Conn.Topic, m.Conn.Type, m.Conn.MD5Sum, m.Conn.MessageDefinition, nil)
			ids[m.Conn.ID] = id
		}
		w.WriteMessage(id, m.Time, m.Data)
	}
	for cid, id := range ids {
		if conn.Topic == topic && cid == conn.ID {
			w.WriteMessage(id, 400_000_000, binary.LittleEndian.AppendUint32(nil, 0x4700e800)) // 33000
		}
	}
	rr.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d := open(t, dst, &Options{NonRealTime: true})
	o := d.Sensors()[0].(extensions.Options)
	value := func() float32 { v, _ := o.Option(sensor.OptionExposure); return v }
	if value() != 8500 {
		t.Fatalf("initial Exposure %v, want 8500", value())
	}
	changes := make(chan extensions.OptionChange, 8)
	o.OnOptionChange(func(c extensions.OptionChange) { changes <- c })
	if err := d.Seek(450_000_000); err != nil {
		t.Fatal(err)
	}
	if value() != 33000 {
		t.Errorf("Exposure after seek past the change %v, want 33000", value())
	}
	if err := d.Seek(100_000_000); err != nil {
		t.Fatal(err)
	}
	if value() != 8500 {
		t.Errorf("Exposure after seek before the change %v, want 8500", value())
	}
	var seen []float32
	c := newCollector(d)
	c.delay = func() {
		v := value()
		if len(seen) == 0 || seen[len(seen)-1] != v {
			seen = append(seen, v)
		}
	}
	startAll(t, d, c)
	c.waitStopped(t)
	if len(seen) != 2 || seen[0] != 8500 || seen[1] != 33000 {
		t.Errorf("Exposure seen by handlers %v, want [8500 33000]", seen)
	}
	if len(changes) == 0 {
		t.Error("no option change callback")
	}
}
