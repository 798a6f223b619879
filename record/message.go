package record

import (
	"errors"
	"fmt"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
)

// ErrTopic reports a message topic WriteMessage does not accept.
var ErrTopic = errors.New("record: topic not accepted for an extra message")

// WriteMessage records m on topic beside the device's streams, at the bag
// time of now (a message written before the first frame is at bag time
// 0). The topic must not be one of the RealSense file format (players
// ignore other topics: librealsense plays the bag as if they were not
// there) and keeps the type of its first message. Messages are queued for
// the writer goroutine, never dropped; m must not change afterwards. After
// Close (or a write error) nothing more is recorded and the error says so.
func (d *Device) WriteMessage(topic string, m msgs.Message) error {
	if len(topic) < 2 || topic[0] != '/' || layout.Parse(topic).Kind != layout.KindUnknown {
		return fmt.Errorf("%w: %q is not a topic name outside the RealSense layout", ErrTopic, topic)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		if d.failErr != nil {
			return d.failErr
		}
		return ErrClosed
	}
	if d.extra == nil {
		d.extra = map[string]*msgs.Type{}
	}
	if t, ok := d.extra[topic]; ok && t != m.Type() {
		return fmt.Errorf("%w: %s holds %s messages, not %s", ErrTopic, topic, t.Name, m.Type().Name)
	}
	d.extra[topic] = m.Type()
	d.q.push(event{kind: evMessage, t: d.captureLocked(time.Now()), topic: topic, msg: m})
	return nil
}

// writeMessage writes an extra message (WriteMessage).
func (w *writer) writeMessage(e *event) {
	w.put(e.topic, bagTime(e.t), e.msg)
}
