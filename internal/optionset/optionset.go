// Package optionset is the options store the backends serve their sensors'
// options from (extensions.Options), with a hook for values that depend on
// the device's state.
package optionset

import (
	"fmt"
	"sort"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/sensor"
)

// OptionSet is a thread-safe set of options that implements
// extensions.Options. Devices embed it (or hold one) to serve their sensors'
// options. The zero value is
// an empty, usable set.
type OptionSet struct {
	mu   sync.RWMutex
	opts map[sensor.Option]*extensions.OptionSpec
	cbs  callbacks.Callbacks[extensions.OptionChange]
	// get, when set, can override the value reported for an option.
	get func(o sensor.Option, v float32) float32
}

var _ extensions.Options = (*OptionSet)(nil)

// Add adds or replaces an option.
func (s *OptionSet) Add(spec extensions.OptionSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts == nil {
		s.opts = make(map[sensor.Option]*extensions.OptionSpec)
	}
	c := spec
	s.opts[spec.Option] = &c
}

// Remove removes an option.
func (s *OptionSet) Remove(o sensor.Option) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.opts, o)
}

// SetValueHook installs f to adjust the value Option and Snapshot report
// (f receives the stored value). It is meant for devices whose reported value
// depends on their state; nil removes the hook.
func (s *OptionSet) SetValueHook(f func(o sensor.Option, stored float32) float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.get = f
}

// Spec returns a copy of the description of o.
func (s *OptionSet) Spec(o sensor.Option) (extensions.OptionSpec, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.opts[o]
	if !ok {
		return extensions.OptionSpec{}, false
	}
	c := *p
	if s.get != nil {
		c.Value = s.get(o, c.Value)
	}
	return c, true
}

// Specs returns copies of every option in ascending enum order.
func (s *OptionSet) Specs() []extensions.OptionSpec {
	opts := s.SupportedOptions()
	out := make([]extensions.OptionSpec, 0, len(opts))
	for _, o := range opts {
		if sp, ok := s.Spec(o); ok {
			out = append(out, sp)
		}
	}
	return out
}

// SupportedOptions lists the options in ascending enum order.
func (s *OptionSet) SupportedOptions() []sensor.Option {
	s.mu.RLock()
	out := make([]sensor.Option, 0, len(s.opts))
	for o := range s.opts {
		out = append(out, o)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Option returns the current value of o.
func (s *OptionSet) Option(o sensor.Option) (float32, error) {
	sp, ok := s.Spec(o)
	if !ok {
		return 0, fmt.Errorf("option %s: %w", o, extensions.ErrUnsupportedOption)
	}
	return sp.Value, nil
}

// SetOption sets o to v. Read-only options return extensions.ErrReadOnly; values outside
// a non-empty range (Min < Max) return extensions.ErrOutOfRange. Change callbacks run on
// the calling goroutine after the value is stored.
func (s *OptionSet) SetOption(o sensor.Option, v float32) error {
	return s.set(o, v, true)
}

// Update stores v for o regardless of its read-only flag and range (the
// device itself changing a value, e.g. a temperature reading) and runs the
// change callbacks. It fails only if o is not supported.
func (s *OptionSet) Update(o sensor.Option, v float32) error {
	return s.set(o, v, false)
}

func (s *OptionSet) set(o sensor.Option, v float32, check bool) error {
	s.mu.Lock()
	p, ok := s.opts[o]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("option %s: %w", o, extensions.ErrUnsupportedOption)
	}
	if check {
		if p.ReadOnly {
			s.mu.Unlock()
			return fmt.Errorf("option %s: %w", o, extensions.ErrReadOnly)
		}
		if p.Range.Min < p.Range.Max && (v < p.Range.Min || v > p.Range.Max) {
			s.mu.Unlock()
			return fmt.Errorf("option %s: %v not in [%v, %v]: %w", o, v, p.Range.Min, p.Range.Max, extensions.ErrOutOfRange)
		}
	}
	p.Value = v
	s.mu.Unlock()
	s.cbs.Call(extensions.OptionChange{Option: o, Value: v})
	return nil
}

// OptionRange returns the range of o.
func (s *OptionSet) OptionRange(o sensor.Option) (extensions.Range, error) {
	sp, ok := s.Spec(o)
	if !ok {
		return extensions.Range{}, fmt.Errorf("option %s: %w", o, extensions.ErrUnsupportedOption)
	}
	return sp.Range, nil
}

// OptionDescription returns the description of o ("" if unsupported).
func (s *OptionSet) OptionDescription(o sensor.Option) string {
	sp, _ := s.Spec(o)
	return sp.Description
}

// OptionReadOnly reports whether o is read-only (false if unsupported).
func (s *OptionSet) OptionReadOnly(o sensor.Option) bool {
	sp, _ := s.Spec(o)
	return sp.ReadOnly
}

// OnOptionChange registers f to run after every value change, in
// registration order, on the goroutine that made the change, with no lock
// held. cancel unregisters f; it is safe to call more than once.
func (s *OptionSet) OnOptionChange(f func(extensions.OptionChange)) (cancel func()) {
	return s.cbs.Add(f)
}
