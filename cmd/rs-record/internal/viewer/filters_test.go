package viewer

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// pictureOf decodes the newest PNG picture of stream id.
func pictureOf(t *testing.T, c *wsClient, id int) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(c.images[id]))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out
}

// processed runs blocks over f in order.
func processed(t *testing.T, f *sensor.Frame, blocks ...processing.Block) *sensor.Frame {
	t.Helper()
	for _, b := range blocks {
		var err error
		if f, err = b.Process(f); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestDepthFilters: the page's filters and colorizer options apply to the
// depth picture on view exactly as the processing blocks do, with
// librealsense's ranges and defaults; bad names and values are refused.
func TestDepthFilters(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	ref := refFrames(t, path)["Depth/0"]
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "?codec=png")
	depth := c.streamID("Depth/0")
	var names []string
	for _, f := range c.hello.Filters {
		names = append(names, f.Name)
		b, err := processing.NewByName(f.Name, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.On {
			t.Errorf("%s is on at the start", f.Name)
		}
		for _, o := range f.Options {
			r, err := b.OptionRange(sensor.Option(o.ID))
			if err != nil || o.Min != r.Min || o.Max != r.Max || o.Step != r.Step || o.Default != r.Default || o.Value != r.Default {
				t.Errorf("%s %s: %+v, want processing's range %+v (%v)", f.Name, o.Name, o, r, err)
			}
		}
	}
	if want := strings.Join(filterOrder, ","); strings.Join(names, ",") != want {
		t.Errorf("filters %q, want %q", names, filterOrder)
	}
	if len(c.hello.Colorizer) == 0 {
		t.Error("no colorizer options in the hello")
	}
	c.must(command{Cmd: "seek", T: ref[5].bagTime.Seconds()})
	f := ref[5].f
	c.waitNumber(depth, f.Number)

	// want waits for the depth picture of the frame processed by blocks
	// (its size tells a processed picture) and compares it with the
	// renderer's picture of it, colorized by col (nil: the defaults).
	want := func(what string, col *processing.Colorizer, blocks ...processing.Block) {
		t.Helper()
		pf := processed(t, f, blocks...)
		c.until(what, func() bool {
			h := c.frames[depth]
			return h.Number == f.Number && h.Width == pf.Width && h.Height == pf.Height
		})
		// A picture of the same size may precede the last change: the
		// pictures after the state that follows the reply are current.
		n := c.nState
		c.until("a state", func() bool { return c.nState > n })
		r := renderer{col: col}
		img, _, err := r.render(pf, 0)
		if err != nil {
			t.Fatal(err)
		}
		c.until(what+": the picture", func() bool {
			return bytes.Equal(pictureOf(t, c, depth).Pix, img.Pix)
		})
	}

	c.must(command{Cmd: "filter", Name: "Decimation Filter", On: true})
	if !c.state.Filters[0].On {
		t.Error("the state does not say decimation is on")
	}
	want("decimated by 2", nil, processing.NewDecimation())
	c.must(command{Cmd: "blockOption", Name: "Decimation Filter", Option: int(sensor.OptionFilterMagnitude), Value: 4})
	dec4 := processing.NewDecimation()
	dec4.SetOption(sensor.OptionFilterMagnitude, 4)
	want("decimated by 4", nil, dec4)
	c.must(command{Cmd: "filter", Name: "Decimation Filter", On: false})

	// Threshold, disparity, spatial and hole filling (the stateless
	// filters), in librealsense's order.
	th := processing.NewThreshold()
	th.SetOption(sensor.OptionMaxDistance, 1)
	for _, cmd := range []command{
		{Cmd: "filter", Name: "Threshold Filter", On: true},
		{Cmd: "blockOption", Name: "Threshold Filter", Option: int(sensor.OptionMaxDistance), Value: 1},
		{Cmd: "filter", Name: "Depth to Disparity", On: true},
		{Cmd: "filter", Name: "Spatial Filter", On: true},
		{Cmd: "filter", Name: "Hole Filling Filter", On: true},
	} {
		c.must(cmd)
	}
	baseline := float32(0)
	for _, sn := range ts.dev.Sensors() {
		if s, ok := sn.(interface{ StereoBaselineMM() float32 }); ok {
			baseline = s.StereoBaselineMM()
		}
	}
	chain := []processing.Block{th, processing.NewDisparityTransform(true, baseline), processing.NewSpatial(),
		processing.NewDisparityTransform(false, baseline), processing.NewHoleFilling()}
	want("threshold, disparity, spatial, hole filling", nil, chain...)
	// The distance under the pointer is the filtered frame's.
	pf := processed(t, f, chain...)
	for _, p := range [][2]int{{0, 0}, {f.Width / 2, f.Height / 2}, {f.Width - 1, f.Height - 1}} {
		m, err := distance(pf, p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		if r := c.do(command{Cmd: "hover", ID: depth, X: float64(p[0]), Y: float64(p[1])}); r.Error != "" || r.Meters != m {
			t.Errorf("hover %v after the filters: %v m (%q), want %v", p, r.Meters, r.Error, m)
		}
	}

	// The colorizer without histogram equalization, 0.2 to 1 m.
	col := processing.NewColorizer()
	for _, o := range []struct {
		id sensor.Option
		v  float32
	}{{sensor.OptionHistogramEqualizationEnabled, 0}, {sensor.OptionMinDistance, 0.2}, {sensor.OptionMaxDistance, 1}} {
		c.must(command{Cmd: "blockOption", Name: colorizerName, Option: int(o.id), Value: float64(o.v)})
		col.SetOption(o.id, o.v)
	}
	want("colorized from 0.2 to 1 m", col, chain...)

	for _, tc := range []struct {
		cmd  command
		want string
	}{
		{command{Cmd: "filter", Name: "Nope", On: true}, `no filter "Nope"`},
		{command{Cmd: "blockOption", Name: "Decimation Filter", Option: int(sensor.OptionFilterMagnitude), Value: 99}, "Decimation"},
		{command{Cmd: "blockOption", Name: "Spatial Filter", Option: int(sensor.OptionStreamFilter), Value: 1}, "no option"},
		{command{Cmd: "blockOption", Name: colorizerName, Option: int(sensor.OptionMaxDistance), Value: -1}, "colorizer"},
	} {
		if r := c.do(tc.cmd); !strings.Contains(r.Error, tc.want) {
			t.Errorf("%+v: error %q, want %q", tc.cmd, r.Error, tc.want)
		}
	}
}

// TestBrowserFilters: toggling a filter on the page changes the depth
// picture and the 3D view; its slider sets its option.
func TestBrowserFilters(t *testing.T) {
	b := openPage(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	depth := b.streamIDs()["Depth/0"]
	canvas := fmt.Sprintf("document.getElementById('canvas-%d')", depth)
	w := eval[int](b, canvas+".width")
	b.do(chromedp.Click("#show3d"))
	b.waitFor("a cloud", `+document.getElementById('cloud').dataset.points > 0`)
	points := b.dataset("cloud", "points")
	b.do(chromedp.Click(`#filter-0`)) // decimation
	b.waitFor("the decimated picture", fmt.Sprintf("%s.width === %d", canvas, (w/2+3)/4*4))
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = document.getElementById('filter-0-%d'); s.value = '4'; s.dispatchEvent(new Event('change'));
	})()`, sensor.OptionFilterMagnitude)))
	b.waitFor("decimated by 4", fmt.Sprintf("%s.width === %d", canvas, (w/4+3)/4*4))
	b.waitFor("the cloud of the decimated frame", fmt.Sprintf(`document.getElementById('cloud').dataset.points !== %q`, points))
	b.screenshot("filters")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
