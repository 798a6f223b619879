package processing

import (
	"slices"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// TestBlockOptionsMatchLibrealsense pins which options each block lists
// and the options every librealsense stream filter block has, as
// librealsense 2.56.5 defines them: processing_block registers Frames
// Queue Size (src/source.cpp: range 0..32, step 1, default 16);
// stream_filter_processing_block registers Stream Filter (0..RS2_STREAM_COUNT,
// default RS2_STREAM_ANY), Stream Format Filter (0..RS2_FORMAT_COUNT, default
// RS2_FORMAT_ANY) and Stream Index Filter (-1..16, default -1), whose
// values are the block's own filter: depth Z16 for the colorizer and the
// depth filters, depth DISTANCE for the units transform, any for the
// point cloud and the rotation (src/proc/synthetic-stream.cpp, colorizer.cpp,
// decimation-filter.cpp, threshold.cpp, spatial-filter.cpp,
// temporal-filter.cpp, hole-filling-filter.cpp, units-transform.cpp);
// align has Frames Queue Size only (align.h: a generic_processing_block),
// the disparity transform nothing (disparity-transform.cpp unregisters it).
func TestBlockOptionsMatchLibrealsense(t *testing.T) {
	const (
		fqs    = sensor.OptionFramesQueueSize
		stream = sensor.OptionStreamFilter
		format = sensor.OptionStreamFormatFilter
		index  = sensor.OptionStreamIndexFilter
	)
	common := map[sensor.Option]struct {
		rng  extensions.Range
		desc string
	}{
		fqs:    {extensions.Range{Min: 0, Max: 32, Step: 1, Default: 16}, "Max number of frames you can hold at a given time. Increasing this number will reduce frame drops but increase latency, and vice versa"},
		stream: {extensions.Range{Min: 0, Max: 11, Step: 1, Default: 0}, "Stream type"},
		format: {extensions.Range{Min: 0, Max: 34, Step: 1, Default: 0}, "Stream format"},
		index:  {extensions.Range{Min: -1, Max: 16, Step: 1, Default: -1}, "Stream index"},
	}
	for _, tt := range []struct {
		b      Configurable
		opts   []sensor.Option
		filter [3]float32 // values of the stream, format and index filters
	}{
		{NewColorizer(), []sensor.Option{sensor.OptionVisualPreset, fqs, sensor.OptionColorScheme, sensor.OptionHistogramEqualizationEnabled,
			sensor.OptionMinDistance, sensor.OptionMaxDistance, stream, format, index}, [3]float32{1, 1, -1}},
		{NewPointCloud(), []sensor.Option{fqs, sensor.OptionFilterMagnitude, stream, format, index}, [3]float32{0, 0, -1}},
		{NewAlign(sensor.StreamColor, nil), []sensor.Option{fqs}, [3]float32{}},
		{NewDecimation(), []sensor.Option{fqs, sensor.OptionFilterMagnitude, stream, format, index}, [3]float32{1, 1, -1}},
		{NewThreshold(), []sensor.Option{fqs, sensor.OptionMinDistance, sensor.OptionMaxDistance, stream, format, index}, [3]float32{1, 1, -1}},
		{NewDisparityTransform(true, 50), nil, [3]float32{}},
		{NewDisparityTransform(false, 50), nil, [3]float32{}},
		{NewSpatial(), []sensor.Option{fqs, sensor.OptionFilterMagnitude, sensor.OptionFilterSmoothAlpha, sensor.OptionFilterSmoothDelta,
			sensor.OptionHolesFill, stream, format, index}, [3]float32{1, 1, -1}},
		{NewTemporal(), []sensor.Option{fqs, sensor.OptionFilterSmoothAlpha, sensor.OptionFilterSmoothDelta, sensor.OptionHolesFill,
			stream, format, index}, [3]float32{1, 1, -1}},
		{NewHoleFilling(), []sensor.Option{fqs, sensor.OptionHolesFill, stream, format, index}, [3]float32{1, 1, -1}},
		{NewUnitsTransform(), []sensor.Option{fqs, stream, format, index}, [3]float32{1, 21, -1}},
		{NewRotation(), []sensor.Option{fqs, stream, format, index, sensor.OptionRotation}, [3]float32{0, 0, -1}},
	} {
		t.Run(tt.b.Name(), func(t *testing.T) {
			if got := tt.b.SupportedOptions(); !slices.Equal(got, tt.opts) {
				t.Fatalf("options %v, want %v", got, tt.opts)
			}
			for _, o := range tt.opts {
				c, ok := common[o]
				if !ok {
					continue
				}
				if r, err := tt.b.OptionRange(o); err != nil || r != c.rng {
					t.Errorf("%s range %+v (%v), want %+v", o, r, err, c.rng)
				}
				if d := tt.b.OptionDescription(o); d != c.desc {
					t.Errorf("%s description %q, want %q", o, d, c.desc)
				}
				want := c.rng.Default
				if i := slices.Index([]sensor.Option{stream, format, index}, o); i >= 0 {
					want = tt.filter[i]
				}
				if v, err := tt.b.Option(o); err != nil || v != want {
					t.Errorf("%s = %v (%v), want %v", o, v, err, want)
				}
				for _, v := range []float32{c.rng.Min, c.rng.Max} {
					if err := tt.b.SetOption(o, v); err != nil {
						t.Errorf("%s = %v: %v", o, v, err)
					}
				}
				for _, v := range []float32{c.rng.Min - 1, c.rng.Max + 1} {
					if err := tt.b.SetOption(o, v); err == nil {
						t.Errorf("%s = %v taken", o, v)
					}
				}
			}
			vd, ok := tt.b.(interface {
				OptionValueDescription(sensor.Option, float32) string
			})
			if !ok || !slices.Contains(tt.opts, stream) {
				return
			}
			// librealsense names the values below the count only.
			for _, c := range []struct {
				o    sensor.Option
				v    float32
				want string
			}{
				{stream, 0, "Process - Any"}, {stream, 1, "Process - Depth"}, {stream, 10, "Process - Motion"}, {stream, 11, ""},
				{format, 0, "Process - ANY"}, {format, 1, "Process - Z16"}, {format, 21, "Process - DISTANCE"},
				{format, 33, "Process - COMBINED_MOTION"}, {format, 34, ""}, {index, 0, ""},
			} {
				if got := vd.OptionValueDescription(c.o, c.v); got != c.want {
					t.Errorf("%s value %v: %q, want %q", c.o, c.v, got, c.want)
				}
			}
		})
	}
}

// TestStreamFilterPassThrough: a block passes through, unchanged, a frame
// its stream filter options do not select, and processes one they select,
// as librealsense 2.56.5's blocks did with these settings on the depth and
// color frames of a bag (capi/testdata/procopts.cc, procopts.expected):
// stream_filter::match for decimation and threshold,
// depth_processing_block::should_process for the spatial, temporal and
// hole filling filters (a depth or disparity format filter selects every
// depth or disparity frame), no filter at all for the colorizer and the
// units transform, which take every depth frame.
func TestStreamFilterPassThrough(t *testing.T) {
	type set struct {
		name string
		vals map[sensor.Option]float32
	}
	settings := []set{
		{"defaults", nil},
		{"stream-color", map[sensor.Option]float32{sensor.OptionStreamFilter: float32(sensor.StreamColor)}},
		{"stream-infrared", map[sensor.Option]float32{sensor.OptionStreamFilter: float32(sensor.StreamInfrared)}},
		{"stream-any", map[sensor.Option]float32{sensor.OptionStreamFilter: float32(sensor.StreamAny)}},
		{"format-any", map[sensor.Option]float32{sensor.OptionStreamFormatFilter: float32(sensor.FormatAny)}},
		{"format-rgb8", map[sensor.Option]float32{sensor.OptionStreamFormatFilter: float32(sensor.FormatRGB8)}},
		{"format-disparity32", map[sensor.Option]float32{sensor.OptionStreamFormatFilter: float32(sensor.FormatDisparity32)}},
		{"index-1", map[sensor.Option]float32{sensor.OptionStreamIndexFilter: 1}},
		{"index-0", map[sensor.Option]float32{sensor.OptionStreamIndexFilter: 0}},
	}
	// processed[block] lists the settings under which the depth frame is
	// processed; under the others it passes through.
	depthBlocks := []string{"defaults", "stream-any", "format-any", "index-0"}
	all := []string{"defaults", "stream-color", "stream-infrared", "stream-any", "format-any", "format-rgb8", "format-disparity32", "index-1", "index-0"}
	for _, tt := range []struct {
		mk        func() Block
		processed []string
	}{
		{func() Block { return NewDecimation() }, depthBlocks},
		{func() Block { return NewThreshold() }, depthBlocks},
		{func() Block { return NewSpatial() }, append(slices.Clone(depthBlocks), "format-disparity32")},
		{func() Block { return NewTemporal() }, append(slices.Clone(depthBlocks), "format-disparity32")},
		{func() Block { return NewHoleFilling() }, append(slices.Clone(depthBlocks), "format-disparity32")},
		{func() Block { return NewColorizer() }, all},
		{func() Block { return NewUnitsTransform() }, all},
	} {
		for _, st := range settings {
			b := tt.mk()
			t.Run(b.Name()+"/"+st.name, func(t *testing.T) {
				for o, v := range st.vals {
					if err := b.SetOption(o, v); err != nil {
						t.Fatal(err)
					}
				}
				depth := synthDepth(64, 48, sensor.FormatZ16)
				out, err := b.Process(depth)
				if err != nil {
					t.Fatal(err)
				}
				if pass, want := out == depth, !slices.Contains(tt.processed, st.name); pass != want {
					t.Errorf("depth passed through: %v, want %v", pass, want)
				}
			})
		}
	}
}
