package units

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/rosbag"
)

// bagPrefix is the prefix of the bag topics unit outputs are recorded on.
const bagPrefix = "/units/"

// BagTopic returns the bag topic an output topic is recorded on: the output
// topic "obstacle/near" is recorded on "/units/obstacle/near". Players of the
// RealSense format (librealsense, package playback) ignore these topics.
func BagTopic(topic string) string { return bagPrefix + strings.TrimPrefix(topic, "/") }

// outputDefinition is the ROS message definition of a recorded output.
const outputDefinition = `# An output of a unit (github.com/rsbag/rsbag/units): the schema version of
# its topic, its stamp, where it was published and its value as JSON.
uint32 version
int64 stamp_ns
string unit
string handler
string input
string value
`

// outputType is the ROS type of recorded unit outputs, "rsbag_units/Output".
var outputType = msgs.Type{
	Name: outputTypeName, MD5: rosMD5(outputDefinition), Definition: outputDefinition,
	Size:      func(m msgs.Message) int { return m.(*outputMsg).size() },
	Append:    func(b []byte, m msgs.Message) []byte { return m.(*outputMsg).appendTo(b) },
	Unmarshal: func(b []byte, m msgs.Message) error { return m.(*outputMsg).unmarshal(b) },
}

// outputTypeName is outputType's name.
const outputTypeName = "rsbag_units/Output"

// rosMD5 is ROS's md5sum of a message definition of built-in types only:
// the MD5 of its field lines without comments, joined by newlines.
func rosMD5(def string) string {
	var lines []string
	for _, l := range strings.Split(def, "\n") {
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	sum := md5.Sum([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// outputMsg is a recorded output, a msgs.Message of outputType.
type outputMsg struct {
	Version                     uint32
	StampNs                     int64
	Unit, Handler, Input, Value string
}

// Type returns &outputType.
func (m *outputMsg) Type() *msgs.Type { return &outputType }

// size returns the encoded size.
func (m *outputMsg) size() int {
	return 4 + 8 + 4*4 + len(m.Unit) + len(m.Handler) + len(m.Input) + len(m.Value)
}

// appendTo appends the ROS 1 encoding to b.
func (m *outputMsg) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.Version)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.StampNs))
	for _, s := range []string{m.Unit, m.Handler, m.Input, m.Value} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// unmarshal decodes an encoded message, replacing every field.
func (m *outputMsg) unmarshal(b []byte) error {
	if len(b) < 12 {
		return fmt.Errorf("%s: %d bytes, want at least 12", outputTypeName, len(b))
	}
	m.Version = binary.LittleEndian.Uint32(b)
	m.StampNs = int64(binary.LittleEndian.Uint64(b[4:]))
	b = b[12:]
	for _, s := range []*string{&m.Unit, &m.Handler, &m.Input, &m.Value} {
		if len(b) < 4 || uint64(len(b)-4) < uint64(binary.LittleEndian.Uint32(b)) {
			return fmt.Errorf("%s: a string runs past the message's end", outputTypeName)
		}
		n := binary.LittleEndian.Uint32(b)
		*s, b = string(b[4:4+n]), b[4+n:]
	}
	if len(b) != 0 {
		return fmt.Errorf("%s: %d bytes after the last field", outputTypeName, len(b))
	}
	return nil
}

// Recorded is the outputs recorded in a bag: per output topic, in bag
// order, with each topic's schema version.
type Recorded struct {
	Outputs  map[string][]Record
	Versions map[string]int
	// Files names the bag each topic was recorded in.
	Files map[string]string
}

// ErrSchemaVersion reports a recorded topic whose schema version is not
// the graph's.
var ErrSchemaVersion = errors.New("units: schema version mismatch")

// ReadRecorded reads the unit outputs recorded in the bags (or a session
// manifest's bags, or MCAP files exported from them). A message that does not decode, or versions that
// differ within one topic, are errors naming the bag and topic.
func ReadRecorded(bags []string) (*Recorded, error) {
	if len(bags) == 1 && rigfiles.IsManifest(bags[0]) {
		m, err := rig.ReadManifest(bags[0])
		if err != nil {
			return nil, fmt.Errorf("units: %w", err)
		}
		bags = m.Paths(bags[0])
	}
	paths, cleanup, err := fromMCAP(bags)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	rec := &Recorded{Outputs: map[string][]Record{}, Versions: map[string]int{}, Files: map[string]string{}}
	for i, path := range paths {
		if err := rec.read(path, bags[i]); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

func (rec *Recorded) read(file, path string) error {
	r, err := rosbag.Open(file, nil)
	if r == nil {
		return fmt.Errorf("units: %w", err)
	}
	defer r.Close()
	var conns []uint32
	for _, c := range r.Connections() {
		if !strings.HasPrefix(c.Topic, bagPrefix) {
			continue
		}
		if c.Type != outputType.Name || c.MD5Sum != outputType.MD5 {
			return fmt.Errorf("units: %s: topic %s has type %s (md5sum %s), want %s (md5sum %s)", path, c.Topic, c.Type, c.MD5Sum, outputType.Name, outputType.MD5)
		}
		conns = append(conns, c.ID)
	}
	if len(conns) == 0 {
		return nil
	}
	it := r.Messages(&rosbag.Query{Connections: conns})
	defer it.Close()
	var m outputMsg
	for it.Next() {
		msg := it.Message()
		topic := strings.TrimPrefix(msg.Conn.Topic, bagPrefix)
		if err := msgs.Unmarshal(msg.Data, &m); err != nil {
			return fmt.Errorf("units: %s: topic %s at bag time %v: %w", path, msg.Conn.Topic, time.Duration(msg.Time), err)
		}
		if v, ok := rec.Versions[topic]; ok && v != int(m.Version) {
			return fmt.Errorf("%w: %s: topic %s holds versions %d and %d", ErrSchemaVersion, path, msg.Conn.Topic, v, m.Version)
		}
		rec.Versions[topic] = int(m.Version)
		rec.Files[topic] = path
		rec.Outputs[topic] = append(rec.Outputs[topic], Record{Time: time.Duration(msg.Time), Stamp: time.Duration(m.StampNs), Topic: topic,
			Unit: m.Unit, Handler: m.Handler, Input: m.Input, Value: []byte(m.Value)})
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("units: %s: %w", path, err)
	}
	return nil
}

// Divergence is where a replay's outputs first differ from recorded ones
// (or from another variant's).
type Divergence struct {
	Topic string
	// Index is the position of the output in its topic.
	Index int
	// Time is the bag time of the new output (of the recorded one when
	// the new outputs ended first).
	Time time.Duration
	// Recorded and New are the outputs that differ; one is nil when its
	// side ended first.
	Recorded, New *Record
}

// String describes the divergence: topic, output, bag time, input, and
// both values.
func (d *Divergence) String() string {
	side := func(r *Record) string {
		if r == nil {
			return "nothing (ended)"
		}
		return fmt.Sprintf("%s (stamp %v, input %s)", r.Value, r.Stamp, r.Input)
	}
	input := ""
	if d.New != nil {
		input = ", input " + d.New.Input
	} else if d.Recorded != nil {
		input = ", input " + d.Recorded.Input
	}
	return fmt.Sprintf("topic %s, output %d, bag time %v%s: recorded %s, now %s", d.Topic, d.Index, d.Time, input, side(d.Recorded), side(d.New))
}

// Comparison is a replay compared with the outputs recorded live.
type Comparison struct {
	Result   *Result
	Recorded *Recorded
	// Topics are the topics compared: those recorded that the graph
	// publishes, but the Clocked ones.
	Topics []string
	// Clocked are the recorded topics not compared: those published by
	// rate or external handlers, by handlers with a clock input, or by
	// handlers that take such a topic. Their calls followed the wall
	// clock or the triggers live, which a replay does not reproduce.
	Clocked []string
	// First is the first divergence in bag time, nil when the outputs are
	// the same.
	First *Divergence
}

// Compare replays the graph over bags that hold recorded outputs (see
// LiveOptions.Record) and compares, per topic the graph publishes and the
// bags hold, the outputs now with the outputs recorded live: their stamps
// and values, in order (but the Clocked topics). A recorded topic of
// another schema version than the graph's is refused (ErrSchemaVersion)
// before anything runs.
func Compare(ctx context.Context, g *Graph, bags []string, opts *ReplayOptions) (*Comparison, error) {
	rec, err := ReadRecorded(bags)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Recorded: rec}
	for topic, v := range rec.Versions {
		sp, ok := g.specs[topic]
		if !ok {
			continue
		}
		if sp.version != v {
			return nil, fmt.Errorf("%w: topic %s was recorded with version %d (%s), the graph publishes version %d", ErrSchemaVersion, topic, v, rec.Files[topic], sp.version)
		}
		if g.clocked(g.pub[topic]) {
			c.Clocked = append(c.Clocked, topic)
			continue
		}
		c.Topics = append(c.Topics, topic)
	}
	sort.Strings(c.Topics)
	sort.Strings(c.Clocked)
	res, err := Replay(ctx, g, bags, opts)
	if err != nil {
		return nil, err
	}
	c.Result = res
	now := res.ByTopic()
	for _, topic := range c.Topics {
		if d := diverge(topic, rec.Outputs[topic], now[topic], true); d != nil && (c.First == nil || d.Time < c.First.Time) {
			c.First = d
		}
	}
	return c, nil
}

// clocked reports whether the calls of n depend on a clock or a trigger:
// it is a rate or external handler, takes a clock, or takes a topic of such
// a handler (the graph has no cycle).
func (g *Graph) clocked(n *node) bool {
	if n.sync.kind == syncRate || n.sync.kind == syncExternal {
		return true
	}
	for _, t := range n.topics {
		if strings.HasPrefix(t, clockPrefix) {
			return true
		}
		if p := g.pub[t]; p != nil && g.clocked(p) {
			return true
		}
	}
	return false
}

// ByTopic returns the outputs per topic, in order.
func (r *Result) ByTopic() map[string][]Record {
	m := map[string][]Record{}
	for _, o := range r.Outputs {
		m[o.Topic] = append(m[o.Topic], o)
	}
	return m
}

// diverge returns the first difference between two output sequences of a
// topic: their values, and their stamps when stamps is set.
func diverge(topic string, a, b []Record, stamps bool) *Divergence {
	for i := range max(len(a), len(b)) {
		var x, y *Record
		if i < len(a) {
			x = &a[i]
		}
		if i < len(b) {
			y = &b[i]
		}
		if x != nil && y != nil && string(x.Value) == string(y.Value) && (!stamps || x.Stamp == y.Stamp) {
			continue
		}
		d := &Divergence{Topic: topic, Index: i, Recorded: x, New: y}
		if y != nil {
			d.Time = y.Time
		} else {
			d.Time = x.Time
		}
		return d
	}
	return nil
}
