package playback

import (
	"testing"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// bagWriter writes test bags message by message: one connection per topic,
// created with the message's type descriptor on first use.
type bagWriter struct {
	tb    testing.TB
	w     *rosbag.Writer
	conns map[string]uint32
	buf   []byte
}

func newBagWriter(tb testing.TB, path string, opts *rosbag.WriterOptions) *bagWriter {
	tb.Helper()
	w, err := rosbag.Create(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return &bagWriter{tb: tb, w: w, conns: map[string]uint32{}}
}

// write writes m on topic at bag time t.
func (b *bagWriter) write(topic string, t rosbag.Time, m msgs.Message) {
	b.tb.Helper()
	id, ok := b.conns[topic]
	if !ok {
		typ := m.Type()
		var err error
		if id, err = b.w.AddConnection(topic, typ.Name, typ.MD5, typ.Definition, nil); err != nil {
			b.tb.Fatal(err)
		}
		b.conns[topic] = id
	}
	b.buf = msgs.Append(b.buf[:0], m)
	if err := b.w.WriteMessage(id, t, b.buf); err != nil {
		b.tb.Fatal(err)
	}
}

func (b *bagWriter) close() {
	b.tb.Helper()
	if err := b.w.Close(); err != nil {
		b.tb.Fatal(err)
	}
}
