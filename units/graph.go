package units

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Reserved topic prefixes: the runners publish the camera streams, the
// pipeline's framesets and the clocks under them; a unit may subscribe to
// them but not publish under them.
const (
	cameraPrefix = "/camera/"
	clockPrefix  = "/clock/"
)

// cameraTopic returns the topic of a camera stream (see Camera).
func cameraTopic(device string, s sensor.Stream, index int) string {
	if device == "" {
		return fmt.Sprintf("%s%s/%d", cameraPrefix, s, index)
	}
	return fmt.Sprintf("%s%s/%s/%d", cameraPrefix, device, s, index)
}

// framesetTopic returns the topic of a device's framesets (see Framesets).
func framesetTopic(device string) string {
	if device == "" {
		return cameraPrefix + "frameset"
	}
	return cameraPrefix + device + "/frameset"
}

// clockTopic returns the topic of a clock (see Clock).
func clockTopic(period time.Duration) string { return clockPrefix + period.String() }

// Input is one input of a handler: a topic (a camera stream, framesets, a
// clock or another unit's output) and how the synchronizer treats it.
type Input struct {
	// Topic is the topic's name; it may hold {var} templates (Unit.Vars).
	Topic string
	// Optional inputs need not have a message for the handler to fire
	// (the handler then gets nil in their place).
	Optional bool
	// Cached inputs never trigger the handler: it gets the latest message
	// received (sample and hold), and nil while none was (with Optional;
	// a required cached input holds the handler back until it has one).
	Cached bool
}

// In returns the input of a topic.
func In(topic string) Input { return Input{Topic: topic} }

// Camera returns the input of a camera stream, on topic "/camera/Depth/0"
// for the stream of every device of the recording or rig (device ""), else
// "/camera/SERIAL/Depth/0" for the device with that serial number. The
// device may be a template ("{cam}", see Unit.Vars). Topics under "/camera/"
// and "/clock/" are the runners': a unit may subscribe to them but not
// publish under them.
func Camera(device string, s sensor.Stream, index int) Input {
	return Input{Topic: cameraTopic(device, s, index)}
}

// Framesets returns the input of the framesets the pipeline's syncer makes
// of a device's frames, on topic "/camera/frameset" for every device, else
// "/camera/SERIAL/frameset".
func Framesets(device string) Input { return Input{Topic: framesetTopic(device)} }

// Clock returns the input of a clock that ticks every period, on topic
// "/clock/100ms" (for 100ms): on bag time in deterministic replay, on the
// wall clock live. Its messages hold the tick's time (a time.Duration) as
// Value.
func Clock(period time.Duration) Input { return Input{Topic: clockTopic(period)} }

// AsOptional returns the input made optional.
func (in Input) AsOptional() Input { in.Optional = true; return in }

// AsCached returns the input made cached.
func (in Input) AsCached() Input { in.Cached = true; return in }

// syncKind is the rule of a synchronizer.
type syncKind int

// The synchronizer rules.
const (
	// syncAll fires once every required, uncached input has a new
	// message; the messages are consumed. It is the zero value.
	syncAll syncKind = iota
	// syncEqual fires with one message per required, uncached input whose
	// stamps are all equal.
	syncEqual
	// syncApproximate fires with one message per required, uncached input
	// whose stamps lie within the tolerance of each other.
	syncApproximate
	// syncRate fires every period of the clock with the latest message of
	// each input (sample and hold), once every required input has one.
	syncRate
	// syncExternal fires when triggered from outside the graph (Trigger),
	// with the latest message of each input.
	syncExternal
)

// Sync is a handler's synchronizer: when it fires and with what. It is made
// by All (the zero value), Equal, Approximate, Rate or External.
type Sync struct {
	kind syncKind
	// tolerance of syncApproximate.
	tolerance time.Duration
	// period of syncRate.
	period time.Duration
}

// All fires when every required input has a new message.
func All() Sync { return Sync{kind: syncAll} }

// Equal fires with messages of equal stamps.
func Equal() Sync { return Sync{kind: syncEqual} }

// Approximate fires with messages whose stamps lie within tolerance.
func Approximate(tolerance time.Duration) Sync {
	return Sync{kind: syncApproximate, tolerance: tolerance}
}

// Rate fires every period of the clock.
func Rate(period time.Duration) Sync { return Sync{kind: syncRate, period: period} }

// External fires when triggered (Trigger live, ReplayOptions.Triggers in
// replay).
func External() Sync { return Sync{kind: syncExternal} }

// String names the rule: "all", "approximate(5ms)", ...
func (s Sync) String() string {
	switch s.kind {
	case syncAll:
		return "all"
	case syncEqual:
		return "equal"
	case syncApproximate:
		return "approximate(" + s.tolerance.String() + ")"
	case syncRate:
		return "rate(" + s.period.String() + ")"
	case syncExternal:
		return "external"
	}
	return fmt.Sprintf("sync(%d)", int(s.kind))
}

// Msg is a message on a topic. Messages are shared between the handlers
// that receive them: a handler must not change a message, its frame or its
// value.
type Msg struct {
	// Topic is the topic it was published on (for a camera stream, the
	// device-qualified topic "/camera/SERIAL/Depth/0").
	Topic string
	// Stamp is the time of the data: a frame's timestamp, a clock's tick,
	// and for unit outputs the stamp their publisher gave (by default the
	// latest stamp of the inputs that made it).
	Stamp time.Duration
	// Time is the clock's time when it was published: bag time in replay,
	// the time since the start live.
	Time time.Duration
	// Device is the serial number of the camera of a frame or frameset.
	Device string
	// Frame is the frame of a camera stream's message.
	Frame *sensor.Frame
	// Frameset is the frameset of a frameset topic's message.
	Frameset *pipeline.Frameset
	// Value is a unit output's value (of its Topic's type), or a clock
	// tick's time.Duration.
	Value any

	// raw is a unit output's value encoded as JSON.
	raw []byte
	// dev is, in replay, the device that played a camera message's frame.
	dev *playback.Device
}

// GroundTruth returns, in replay, the ground truth that the bag of a
// synthetic recording (rs-record record --ground-truth) holds for the
// frame of a camera message: its stream's pose in the filmed scene and,
// for depth, the exact depth (playback.Device.GroundTruth). The error
// wraps playback.ErrNoGroundTruth when the bag holds none, for a message
// without a frame and for a live camera's.
func (m *Msg) GroundTruth() (playback.GroundTruth, error) {
	if m.dev == nil || m.Frame == nil {
		return playback.GroundTruth{}, fmt.Errorf("units: %s: %w", m, playback.ErrNoGroundTruth)
	}
	return m.dev.GroundTruth(m.Frame, m.Time)
}

// String describes the message: its topic, and the frame's number or the
// bag time.
func (m *Msg) String() string {
	if m == nil {
		return "none"
	}
	switch {
	case m.Frame != nil:
		return m.Topic + " #" + strconv.FormatUint(m.Frame.Number, 10)
	case m.Frameset != nil:
		return m.Topic + " " + m.Frameset.String()
	}
	return m.Topic + " @" + m.Time.String()
}

// Output is a topic a handler may publish: a Topic[T].
type Output interface {
	spec() outSpec
}

type outSpec struct {
	name    string
	version int
	typ     string
}

// Topic is a typed output topic: values of T, encoded as JSON in logs and
// recordings, with a schema version that recordings carry (a recording of
// another version is refused).
type Topic[T any] struct {
	// Name may hold {var} templates (Unit.Vars).
	Name string
	// Version is the schema version of T's encoding; change it when T's
	// meaning or encoding changes.
	Version int
}

// NewTopic returns a topic of T, version 1.
func NewTopic[T any](name string) Topic[T] { return Topic[T]{Name: name, Version: 1} }

func (t Topic[T]) spec() outSpec {
	return outSpec{name: t.Name, version: t.Version, typ: fmt.Sprintf("%T", *new(T))}
}

// In returns the topic as an input.
func (t Topic[T]) In() Input { return Input{Topic: t.Name} }

// Publish publishes v on the topic, from the handler call of c.
func (t Topic[T]) Publish(c *Context, v T) error { return c.publish(t.Name, v) }

// Value returns the value of a message of the topic; ok is false for a nil
// message or a value of another type.
func (t Topic[T]) Value(m *Msg) (v T, ok bool) {
	if m == nil {
		return v, false
	}
	v, ok = m.Value.(T)
	return v, ok
}

// Func is a handler's code: in holds one message per input, in the order
// of Handler.Inputs (nil for an optional or cached input without one).
type Func func(c *Context, in []*Msg) error

// Handler is a function of a unit with its inputs, synchronizer and
// outputs.
type Handler struct {
	Name    string
	Inputs  []Input
	Sync    Sync
	Outputs []Output
	Func    Func
}

// Unit is a named set of handlers that share state: its handlers never run
// at the same time, so they need no locks. Units run in parallel.
type Unit struct {
	// Name may hold templates, as topics do.
	Name     string
	Handlers []Handler
	// Vars fill the templates "{key}" of the unit's name, input topics and
	// output topics: two instances of one unit with different Vars (and
	// so different names) work on different topics.
	Vars map[string]string
}

// ErrGraph reports a graph that cannot run: a cycle, a topic nobody
// publishes, two publishers of one topic, or a malformed unit.
var ErrGraph = errors.New("units: invalid graph")

// Graph is a validated set of units. Units keep their state in their
// handlers' closures, so a graph run twice goes on from the state the first
// run left: build the graph anew for each run (a function that returns it,
// as Sweep takes).
type Graph struct {
	units []*unitNode
	nodes []*node // handlers in topological order
	// pub maps a unit output topic to the node publishing it.
	pub map[string]*node
	// subs maps every subscribed topic to its subscribers, in node order.
	subs map[string][]*node
	// specs maps a unit output topic to its spec.
	specs map[string]outSpec
}

type unitNode struct {
	name  string
	index int
	nodes []*node // in topological order
}

// node is one handler of the graph.
type node struct {
	unit    *unitNode
	name    string
	index   int // topological position
	inputs  []Input
	topics  []string // expanded input topics
	sync    Sync
	outs    map[string]string // template name → expanded name
	outList []string          // expanded output topics, declaration order
	decl    []Output
	fn      Func
}

// String names the handler "unit.handler".
func (n *node) String() string { return n.unit.name + "." + n.name }

// expand fills the {key} templates of s from vars.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// NewGraph validates units as one graph. A cycle between handlers, a topic
// subscribed that no unit publishes (other than camera and clock topics),
// two publishers of one topic and malformed units are errors (wrapping
// ErrGraph) that name them.
func NewGraph(units ...Unit) (*Graph, error) {
	g := &Graph{pub: map[string]*node{}, subs: map[string][]*node{}, specs: map[string]outSpec{}}
	var all []*node
	names := map[string]bool{}
	for ui, u := range units {
		un := &unitNode{name: expand(u.Name, u.Vars), index: ui}
		if un.name == "" || strings.Contains(un.name, "{") {
			return nil, fmt.Errorf("%w: unit %d has no name (or an unfilled template %q)", ErrGraph, ui, un.name)
		}
		if names[un.name] {
			return nil, fmt.Errorf("%w: two units named %q", ErrGraph, un.name)
		}
		names[un.name] = true
		hnames := map[string]bool{}
		for _, h := range u.Handlers {
			n := &node{unit: un, name: h.Name, inputs: h.Inputs, sync: h.Sync, outs: map[string]string{}, decl: h.Outputs, fn: h.Func}
			if err := n.check(hnames, u.Vars, g); err != nil {
				return nil, err
			}
			un.nodes = append(un.nodes, n)
			all = append(all, n)
		}
		g.units = append(g.units, un)
	}
	for _, n := range all {
		for _, t := range n.topics {
			if strings.HasPrefix(t, cameraPrefix) || strings.HasPrefix(t, clockPrefix) {
				continue
			}
			if g.pub[t] == nil {
				return nil, fmt.Errorf("%w: topic %q, an input of %s, is published by no unit", ErrGraph, t, n)
			}
		}
	}
	if err := g.sort(all); err != nil {
		return nil, err
	}
	for _, n := range g.nodes {
		for _, t := range n.topics {
			g.subs[t] = append(g.subs[t], n)
		}
		if n.sync.kind == syncRate {
			t := clockTopic(n.sync.period)
			g.subs[t] = appendOnce(g.subs[t], n)
		}
	}
	for _, un := range g.units {
		sort.Slice(un.nodes, func(i, j int) bool { return un.nodes[i].index < un.nodes[j].index })
	}
	return g, nil
}

func appendOnce(ns []*node, n *node) []*node {
	if slices.Contains(ns, n) {
		return ns
	}
	return append(ns, n)
}

// check validates a handler and registers its outputs.
func (n *node) check(hnames map[string]bool, vars map[string]string, g *Graph) error {
	if n.name == "" || hnames[n.name] {
		return fmt.Errorf("%w: unit %s: handler name %q empty or used twice", ErrGraph, n.unit.name, n.name)
	}
	hnames[n.name] = true
	if n.fn == nil {
		return fmt.Errorf("%w: handler %s has no Func", ErrGraph, n)
	}
	switch n.sync.kind {
	case syncAll, syncEqual, syncExternal:
	case syncApproximate:
		if n.sync.tolerance < 0 {
			return fmt.Errorf("%w: handler %s: tolerance %v < 0", ErrGraph, n, n.sync.tolerance)
		}
	case syncRate:
		if n.sync.period <= 0 {
			return fmt.Errorf("%w: handler %s: rate period %v, want > 0", ErrGraph, n, n.sync.period)
		}
	default:
		return fmt.Errorf("%w: handler %s: unknown synchronizer %v", ErrGraph, n, n.sync)
	}
	triggers := 0
	for _, in := range n.inputs {
		t := expand(in.Topic, vars)
		if t == "" || strings.Contains(t, "{") {
			return fmt.Errorf("%w: handler %s: input topic %q is empty or has an unfilled template", ErrGraph, n, t)
		}
		if slices.Contains(n.topics, t) {
			return fmt.Errorf("%w: handler %s subscribes to %q twice", ErrGraph, n, t)
		}
		n.topics = append(n.topics, t)
		if !in.Cached {
			triggers++
		}
	}
	if triggers == 0 && (n.sync.kind == syncAll || n.sync.kind == syncEqual || n.sync.kind == syncApproximate) {
		return fmt.Errorf("%w: handler %s (%v) has no uncached input to fire on", ErrGraph, n, n.sync)
	}
	for _, o := range n.decl {
		sp := o.spec()
		name := expand(sp.name, vars)
		if name == "" || strings.Contains(name, "{") || strings.HasPrefix(name, cameraPrefix) || strings.HasPrefix(name, clockPrefix) {
			return fmt.Errorf("%w: handler %s: output topic %q is empty, has an unfilled template or a reserved prefix", ErrGraph, n, name)
		}
		if p := g.pub[name]; p != nil {
			return fmt.Errorf("%w: topic %q has two publishers: %s and %s", ErrGraph, name, p, n)
		}
		g.pub[name] = n
		sp.name = name
		g.specs[name] = sp
		n.outs[o.spec().name] = name
		n.outList = append(n.outList, name)
	}
	return nil
}

// sort orders the handlers topologically (a stable order: among handlers
// free to go, the one declared first), or reports a cycle.
func (g *Graph) sort(all []*node) error {
	deps := make(map[*node][]*node, len(all))
	for _, n := range all {
		for _, t := range n.topics {
			if p := g.pub[t]; p != nil {
				deps[n] = appendOnce(deps[n], p)
			}
		}
	}
	state := map[*node]int{} // 0 new, 1 on stack, 2 done
	var stack []*node
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case 1:
			// The stack runs from subscriber to publisher: name the cycle
			// in the direction the messages flow.
			i := slices.Index(stack, n)
			path := []string{n.String()}
			for j := len(stack) - 1; j >= i; j-- {
				path = append(path, stack[j].String())
			}
			return fmt.Errorf("%w: cycle %s", ErrGraph, strings.Join(path, " → "))
		case 2:
			return nil
		}
		state[n] = 1
		stack = append(stack, n)
		for _, d := range deps[n] {
			if err := visit(d); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		n.index = len(g.nodes)
		g.nodes = append(g.nodes, n)
		return nil
	}
	for _, n := range all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// Topics returns the output topics of the graph with their schema
// versions.
func (g *Graph) Topics() map[string]int {
	m := make(map[string]int, len(g.specs))
	for k, s := range g.specs {
		m[k] = s.version
	}
	return m
}

// Units returns the names of the units, in declaration order.
func (g *Graph) Units() []string {
	var s []string
	for _, u := range g.units {
		s = append(s, u.name)
	}
	return s
}
