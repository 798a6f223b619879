package units

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// queueCap bounds the messages an equal or approximate synchronizer keeps
// per input while waiting for a match; the oldest is dropped beyond it.
const queueCap = 64

// state is a handler's synchronizer state. It is used by one goroutine at
// a time (the unit's).
type state struct {
	n      *node
	latest []*Msg   // per input: the latest message
	fresh  []*Msg   // syncAll: per uncached input, the message since the last call
	queues [][]*Msg // syncEqual, syncApproximate: per uncached input, messages waiting
	// required counts the required uncached inputs.
	required int
	pivot    int    // syncEqual, syncApproximate: the input whose messages are matched
	clock    string // syncRate: its clock's topic
	calls    [][]*Msg
}

func newState(n *node) *state {
	s := &state{n: n, latest: make([]*Msg, len(n.inputs)), fresh: make([]*Msg, len(n.inputs))}
	if n.sync.kind == syncEqual || n.sync.kind == syncApproximate {
		s.queues = make([][]*Msg, len(n.inputs))
	}
	s.pivot = -1
	for i, in := range n.inputs {
		if !in.Cached && !in.Optional {
			if s.required == 0 {
				s.pivot = i
			}
			s.required++
		}
	}
	if s.pivot < 0 {
		s.pivot = slices.IndexFunc(n.inputs, func(in Input) bool { return !in.Cached })
	}
	if n.sync.kind == syncRate {
		s.clock = clockTopic(n.sync.period)
	}
	return s
}

// triggerTopic is the topic of the external trigger of a handler.
func triggerTopic(n *node) string { return "/trigger/" + n.String() }

// add delivers m, a message of input i (-1: the handler's clock or
// trigger), and returns the inputs of the calls it fires, in order.
func (s *state) add(i int, m *Msg) [][]*Msg {
	if i >= 0 {
		s.latest[i] = m
	}
	one := func(in []*Msg) [][]*Msg {
		if in == nil {
			return nil
		}
		s.calls = append(s.calls[:0], in) // reused: the caller is done with it by the next add
		return s.calls
	}
	switch s.n.sync.kind {
	case syncRate:
		if m.Topic == s.clock {
			return one(s.held())
		}
		return nil
	case syncExternal:
		if i < 0 {
			return one(s.held())
		}
		return nil
	}
	if i < 0 || s.n.inputs[i].Cached {
		return nil
	}
	if s.n.sync.kind == syncAll {
		return one(s.all(i, m))
	}
	return s.match(i, m)
}

// held returns the latest message of every input, or nil while a required
// input has none.
func (s *state) held() []*Msg {
	for i, in := range s.n.inputs {
		if !in.Optional && s.latest[i] == nil {
			return nil
		}
	}
	return append(make([]*Msg, 0, len(s.latest)), s.latest...) // not nil without inputs
}

func (s *state) all(i int, m *Msg) []*Msg {
	s.fresh[i] = m
	if s.required == 0 {
		return s.take()
	}
	for j, in := range s.n.inputs {
		if in.Optional {
			continue
		}
		if in.Cached && s.latest[j] == nil || !in.Cached && s.fresh[j] == nil {
			return nil
		}
	}
	return s.take()
}

// take returns the fresh messages (the latest of the cached inputs) and
// consumes them.
func (s *state) take() []*Msg {
	out := make([]*Msg, len(s.fresh))
	for j, in := range s.n.inputs {
		if in.Cached {
			out[j] = s.latest[j]
		} else {
			out[j], s.fresh[j] = s.fresh[j], nil
		}
	}
	return out
}

// match queues m and resolves the messages of the pivot (the first
// required uncached input) in order. A pivot message is resolved once
// every other required input has a message stamped at or after it: its
// nearest message on each input (the earlier on a tie) is then known, and
// no later arrival could change it. The call fires when those messages lie
// within the tolerance of each other (equal stamps for syncEqual); the
// messages used, and the older ones of their inputs, are consumed. So a
// match depends on the stamps of the messages, not on the order in which
// the inputs' messages arrived: live and in replay a handler gets the same
// matches.
func (s *state) match(i int, m *Msg) [][]*Msg {
	q := append(s.queues[i], m)
	if len(q) > queueCap {
		q = q[1:]
	}
	s.queues[i] = q
	tol := s.n.sync.tolerance
	if s.n.sync.kind == syncEqual {
		tol = 0
	}
	var calls [][]*Msg
	p := s.pivot
	for len(s.queues[p]) > 0 {
		pm := s.queues[p][0]
		for j, jn := range s.n.inputs {
			if j == p || jn.Cached || jn.Optional {
				continue
			}
			qj := s.queues[j]
			if len(qj) == 0 || qj[len(qj)-1].Stamp < pm.Stamp {
				return calls // not resolved yet
			}
		}
		s.queues[p] = s.queues[p][1:]
		if in := s.pick(p, pm, tol); in != nil {
			calls = append(calls, in)
		}
	}
	return calls
}

// pick returns the inputs matched with pm, the pivot's message, and
// consumes them, or nil when a required input has none within the
// tolerance. Messages too old to match a later pivot are dropped.
func (s *state) pick(p int, pm *Msg, tol time.Duration) []*Msg {
	out := make([]*Msg, len(s.n.inputs))
	out[p] = pm
	lo, hi := pm.Stamp, pm.Stamp
	pick := make([]int, len(s.n.inputs))
	ok := true
	for j, jn := range s.n.inputs {
		pick[j] = -1
		switch {
		case j == p:
			continue
		case jn.Cached:
			out[j] = s.latest[j]
			if out[j] == nil && !jn.Optional {
				ok = false
			}
			continue
		}
		best := -1
		var bestD time.Duration
		for k, c := range s.queues[j] {
			d := c.Stamp - pm.Stamp
			if d < 0 {
				d = -d
			}
			if best < 0 || d < bestD {
				best, bestD = k, d
			}
		}
		if best >= 0 {
			st := s.queues[j][best].Stamp
			if nlo, nhi := min(lo, st), max(hi, st); nhi-nlo <= tol {
				lo, hi, pick[j], out[j] = nlo, nhi, best, s.queues[j][best]
				continue
			}
		}
		if !jn.Optional {
			ok = false
		}
	}
	for j := range s.n.inputs {
		if j == p || s.n.inputs[j].Cached {
			continue
		}
		q := s.queues[j]
		k := 0
		if ok && pick[j] >= 0 {
			k = pick[j] + 1 // the match and everything before it are used up
		}
		for k < len(q) && q[k].Stamp < pm.Stamp-tol {
			k++ // too old for any later pivot
		}
		s.queues[j] = append(q[:0], q[k:]...)
	}
	if !ok {
		return nil
	}
	return out
}

// Context is what a handler call gets: its clock, its stamp and the
// output sink. It is valid only during the call.
type Context struct {
	n     *node
	now   time.Duration
	stamp time.Duration
	out   []*Msg
}

// Now returns the clock's time: the bag time of the input being handled
// in replay, the time since the start live.
func (c *Context) Now() time.Duration { return c.now }

// Stamp returns the stamp outputs get: the latest stamp among the call's
// inputs (a tick's time for rate and external handlers).
func (c *Context) Stamp() time.Duration { return c.stamp }

// SetStamp sets the stamp of the outputs published after it.
func (c *Context) SetStamp(t time.Duration) { c.stamp = t }

// Unit returns the unit's name.
func (c *Context) Unit() string { return c.n.unit.name }

// Handler returns the handler's name.
func (c *Context) Handler() string { return c.n.name }

// publish encodes v and queues it on the topic (a name as declared in
// Handler.Outputs, templates and all).
func (c *Context) publish(name string, v any) error {
	topic, ok := c.n.outs[name]
	if !ok {
		return fmt.Errorf("publish on %q: not an output of %s (outputs %v)", name, c.n, c.n.outList)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("publish on %q: the value cannot be encoded: %w", topic, err)
	}
	c.out = append(c.out, &Msg{Topic: topic, Stamp: c.stamp, Time: c.now, Value: v, raw: raw})
	return nil
}

// HandlerError is a handler's error or panic, with where it happened.
type HandlerError struct {
	Unit, Handler string
	// Time is the clock's time of the call.
	Time time.Duration
	// Input describes the call's inputs.
	Input string
	Err   error
}

// Error says where the handler failed and why.
func (e *HandlerError) Error() string {
	return fmt.Sprintf("units: unit %s, handler %s, at %v, input %s: %v", e.Unit, e.Handler, e.Time, e.Input, e.Err)
}

// Unwrap returns the handler's error.
func (e *HandlerError) Unwrap() error { return e.Err }

// describe names the messages of a call.
func describe(in []*Msg) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, m := range in {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.String())
	}
	b.WriteByte(']')
	return b.String()
}

// stampOf is the latest stamp among in.
func stampOf(in []*Msg, tick *Msg) time.Duration {
	if tick != nil {
		return tick.Stamp
	}
	var t time.Duration
	first := true
	for _, m := range in {
		if m != nil && (first || m.Stamp > t) {
			t, first = m.Stamp, false
		}
	}
	return t
}

// call runs the handler on in at clock time now; a panic is returned as an
// error. The outputs are c.out.
func (n *node) call(c *Context, now time.Duration, in []*Msg, tick *Msg) (err error) {
	*c = Context{n: n, now: now, stamp: stampOf(in, tick)}
	defer func() {
		if r := recover(); r != nil {
			err = &HandlerError{Unit: n.unit.name, Handler: n.name, Time: now, Input: describe(in), Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	if e := n.fn(c, in); e != nil {
		return &HandlerError{Unit: n.unit.name, Handler: n.name, Time: now, Input: describe(in), Err: e}
	}
	return nil
}
