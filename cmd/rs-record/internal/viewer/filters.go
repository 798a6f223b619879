package viewer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// filterOrder is the order in which the depth filters run, librealsense's
// post-processing order (rs-post-processing, rs-record dump --processing):
// the transform back from disparity runs after the temporal filter and is
// not a toggle of its own (it follows "Depth to Disparity").
var filterOrder = []string{"Decimation Filter", "Threshold Filter", "Depth to Disparity", "Spatial Filter", "Temporal Filter", "Hole Filling Filter"}

// hiddenOptions are the options of a block the page does not offer: which
// streams it processes is the viewer's business.
var hiddenOptions = []sensor.Option{sensor.OptionStreamFilter, sensor.OptionStreamFormatFilter, sensor.OptionStreamIndexFilter,
	sensor.OptionFramesQueueSize, sensor.OptionColorScheme}

// colorizerName is the name the page gives the colorizer's options.
const colorizerName = "Depth Visualization"

// filter is one depth filter of the page.
type filter struct {
	name  string
	block block
	on    bool
}

// block is a processing block that processes one frame and describes its
// options.
type block interface {
	processing.Block
	OptionDescription(o sensor.Option) string
}

// filterChain holds the depth filters of the primary depth stream: the
// sensor's recommended filters (every one of filterOrder when it
// recommends none of them), each off until a page turns it on.
type filterChain struct {
	mu      sync.Mutex
	filters []*filter
	back    processing.Block // disparity back to depth
}

// newFilterChain makes the filters of depth sensor sn.
func newFilterChain(sn sensor.Sensor) (*filterChain, error) {
	var recommended []string
	if rf, ok := sn.(extensions.RecommendedFilters); ok {
		recommended = rf.RecommendedFilters()
	}
	if !slices.ContainsFunc(filterOrder, func(n string) bool {
		return slices.Contains(recommended, n) || n == "Depth to Disparity" && slices.Contains(recommended, "Disparity Filter")
	}) {
		recommended = filterOrder
	}
	var baseline float32
	if st, ok := sn.(extensions.DepthStereoSensor); ok {
		baseline = st.StereoBaselineMM()
	}
	fc := &filterChain{back: processing.NewDisparityTransform(false, baseline)}
	for _, name := range filterOrder {
		if !slices.Contains(recommended, name) && !(name == "Depth to Disparity" && slices.Contains(recommended, "Disparity Filter")) {
			continue
		}
		b, err := processing.NewByName(name, baseline)
		if err != nil {
			return nil, err
		}
		bl, ok := b.(block)
		if !ok {
			return nil, fmt.Errorf("%s: not a block of one frame", name)
		}
		fc.filters = append(fc.filters, &filter{name: name, block: bl})
	}
	return fc, nil
}

// find returns the filter named name.
func (fc *filterChain) find(name string) (*filter, error) {
	for _, f := range fc.filters {
		if f.name == name {
			return f, nil
		}
	}
	names := make([]string, len(fc.filters))
	for i, f := range fc.filters {
		names[i] = f.name
	}
	return nil, fmt.Errorf("no filter %q (the filters are %q and %q)", name, names, colorizerName)
}

// process runs the filters that are on over f.
func (fc *filterChain) process(f *sensor.Frame) (*sensor.Frame, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	disparity := false
	for _, fl := range fc.filters {
		if fl.name == "Hole Filling Filter" && disparity {
			var err error
			if f, err = fc.back.Process(f); err != nil {
				return nil, fmt.Errorf("%s: %w", fc.back.Name(), err)
			}
			disparity = false
		}
		if !fl.on {
			continue
		}
		out, err := fl.block.Process(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fl.name, err)
		}
		f = out
		disparity = disparity || fl.name == "Depth to Disparity"
	}
	if disparity {
		return fc.back.Process(f)
	}
	return f, nil
}

// helloRange is an option of a block as the page shows it: a slider (or a
// toggle) with librealsense's range and default.
type helloRange struct {
	ID          int32    `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Min         float32  `json:"min"`
	Max         float32  `json:"max"`
	Step        float32  `json:"step"`
	Default     float32  `json:"default"`
	Value       float32  `json:"value"`
	Values      []string `json:"values,omitempty"` // names of Min, Min+Step, ...
}

type helloFilter struct {
	Name    string       `json:"name"`
	On      bool         `json:"on"`
	Options []helloRange `json:"options"`
}

// valueNamer is a block that names its option values.
type valueNamer interface {
	OptionValueDescription(o sensor.Option, v float32) string
}

// optionSource is what has options with ranges: a processing block or a
// sensor (extensions.Options).
type optionSource interface {
	Option(o sensor.Option) (float32, error)
	OptionRange(o sensor.Option) (extensions.Range, error)
	OptionDescription(o sensor.Option) string
}

// describeOption describes option o of b with its range, its value and
// the names of its values (when b names every one); ok is false when b
// gives no range for it.
func describeOption(b optionSource, o sensor.Option) (h helloRange, ok bool) {
	h = helloRange{ID: int32(o), Name: o.String(), Description: b.OptionDescription(o)}
	r, err := b.OptionRange(o)
	if err != nil {
		return h, false
	}
	for _, v := range []float32{r.Min, r.Max, r.Step, r.Default} {
		if !finite(v) { // JSON has no NaN: such a range is not offered
			return h, false
		}
	}
	h.Min, h.Max, h.Step, h.Default = r.Min, r.Max, r.Step, r.Default
	if v, err := b.Option(o); err == nil && finite(v) {
		h.Value = v
	} else {
		h.Value = r.Default
	}
	if vn, ok := b.(valueNamer); ok && r.Step > 0 && (r.Max-r.Min)/r.Step <= 16 {
		for x := r.Min; x <= r.Max; x += r.Step {
			if d := vn.OptionValueDescription(o, x); d != "" {
				h.Values = append(h.Values, d)
			}
		}
		if len(h.Values) != int((r.Max-r.Min)/r.Step)+1 {
			h.Values = nil
		}
	}
	return h, true
}

func finite(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// blockOptions describes the options of block b the page offers.
func blockOptions(b processing.Configurable) []helloRange {
	out := []helloRange{}
	for _, o := range b.SupportedOptions() {
		if slices.Contains(hiddenOptions, o) {
			continue
		}
		if h, ok := describeOption(b, o); ok {
			out = append(out, h)
		}
	}
	return out
}

// filtersState describes the filters and the colorizer to the page: in
// the hello and, after every change, in the state.
func (s *Server) filtersState() (filters []helloFilter, colorizer []helloRange) {
	if s.filters != nil {
		s.filters.mu.Lock()
		for _, f := range s.filters.filters {
			filters = append(filters, helloFilter{Name: f.name, On: f.on, Options: blockOptions(f.block)})
		}
		s.filters.mu.Unlock()
	}
	return filters, blockOptions(s.col)
}

// stateFilter is a filter's state in the state message: on or off and
// its options' values, in the hello's order.
type stateFilter struct {
	On     bool      `json:"on"`
	Values []float32 `json:"values"`
}

// filterValues are the filters' states and the colorizer's option values,
// for the state message.
func (s *Server) filterValues() ([]stateFilter, []float32) {
	values := func(opts []helloRange) []float32 {
		v := make([]float32, len(opts))
		for i, o := range opts {
			v[i] = o.Value
		}
		return v
	}
	fs, col := s.filtersState()
	out := make([]stateFilter, len(fs))
	for i, f := range fs {
		out[i] = stateFilter{On: f.On, Values: values(f.Options)}
	}
	return out, values(col)
}

// setFilter turns a filter on or off.
func (s *Server) setFilter(name string, on bool) error {
	if s.filters == nil {
		return errNoFilters
	}
	f, err := s.filters.find(name)
	if err != nil {
		return err
	}
	s.filters.mu.Lock()
	f.on = on
	s.filters.mu.Unlock()
	s.procChanged()
	return nil
}

var errNoFilters = errors.New("no depth filters: the stream on view is not Z16 depth")

// setBlockOption sets an option of a filter or of the colorizer.
func (s *Server) setBlockOption(name string, id int, v float64) error {
	var b processing.Configurable = s.col
	if name != colorizerName {
		if s.filters == nil {
			return errNoFilters
		}
		f, err := s.filters.find(name)
		if err != nil {
			return err
		}
		b = f.block
	}
	o := sensor.Option(id)
	if !slices.Contains(b.SupportedOptions(), o) || slices.Contains(hiddenOptions, o) {
		return fmt.Errorf("%s has no option %d offered here", name, id)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s = %v: not a number", name, o, v)
	}
	if err := b.SetOption(o, float32(v)); err != nil {
		return err
	}
	if b == s.col {
		// A preset sets the color scheme too: the scheme menu follows.
		if sc, err := s.col.Option(sensor.OptionColorScheme); err == nil {
			s.scheme.Store(int32(sc))
		}
	}
	s.procChanged()
	return nil
}

// procChanged makes the depth pictures and the cloud be made again.
func (s *Server) procChanged() {
	s.procVer.Add(1)
	s.wakeEncoders()
}

// filter runs the depth filters over f; on an error it shows f as it is
// and says why.
func (s *Server) filter(f *sensor.Frame) *sensor.Frame {
	if s.filters == nil || f.Profile.Format != sensor.FormatZ16 {
		return f
	}
	out, err := s.filters.process(f)
	if err != nil {
		s.setErr(fmt.Errorf("depth filters on %s frame %d: %w", f.Profile.Name(), f.Number, err))
		return f
	}
	return out
}
