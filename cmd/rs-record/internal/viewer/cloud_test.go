package viewer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/internal/imaging"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// decodeCloud reads a cloud message: its header, the points in meters and
// their colors.
func decodeCloud(msg []byte) (cloudHeader, [][3]float32, [][3]byte, error) {
	h, pts, cols, _, err := decodeCloudPixels(msg)
	return h, pts, cols, err
}

// decodeCloudPixels reads a cloud message as decodeCloud does, and the
// index in the (decimated) depth frame of each point's pixel.
func decodeCloudPixels(msg []byte) (cloudHeader, [][3]float32, [][3]byte, []int, error) {
	var h cloudHeader
	if len(msg) < 4 {
		return h, nil, nil, nil, fmt.Errorf("cloud message of %d bytes", len(msg))
	}
	hlen := int(binary.LittleEndian.Uint32(msg))
	if 4+hlen > len(msg) {
		return h, nil, nil, nil, fmt.Errorf("cloud header of %d bytes in a %d-byte message", hlen, len(msg))
	}
	if err := json.Unmarshal(msg[4:4+hlen], &h); err != nil {
		return h, nil, nil, nil, fmt.Errorf("cloud header: %w", err)
	}
	body := msg[4+hlen:]
	if h.Kind != "cloud" || h.Count < 0 || h.ColorOffset < 6*h.Count || h.MaskOffset < h.ColorOffset+3*h.Count || len(body) != h.MaskOffset+(h.Width*h.Height+7)/8 {
		return h, nil, nil, nil, fmt.Errorf("cloud of %d points of %dx%d in %d bytes (colors at %d, mask at %d)", h.Count, h.Width, h.Height, len(body), h.ColorOffset, h.MaskOffset)
	}
	var pix []int
	for i := range h.Width * h.Height {
		if body[h.MaskOffset+i>>3]&(1<<(i&7)) != 0 {
			pix = append(pix, i)
		}
	}
	if len(pix) != h.Count {
		return h, nil, nil, nil, fmt.Errorf("cloud of %d points with %d pixels set in its mask", h.Count, len(pix))
	}
	pts, cols := make([][3]float32, h.Count), make([][3]byte, h.Count)
	for i := range pts {
		for c := range 3 {
			pts[i][c] = float32(int16(binary.LittleEndian.Uint16(body[6*i+2*c:]))) * h.Scale
		}
		copy(cols[i][:], body[h.ColorOffset+3*i:])
	}
	return h, pts, cols, pix, nil
}

// wantCloud is the cloud message's content as processing makes it: the
// vertices of depth frame f decimated by step, mapped to color frame tex
// (nil: colored by the colorizer's picture of it), zero depth left out.
func wantCloud(t *testing.T, s *Server, f, tex *sensor.Frame, step int) ([][3]float32, [][3]byte, []int) {
	t.Helper()
	if step > 1 {
		d := processing.NewDecimation()
		if err := d.SetOption(sensor.OptionFilterMagnitude, float32(step)); err != nil {
			t.Fatal(err)
		}
		var err error
		if f, err = d.Process(f); err != nil {
			t.Fatal(err)
		}
	}
	pc := processing.NewPointCloud()
	var img *image.RGBA
	if tex != nil {
		e, err := s.dev.Extrinsics(s.primary.profile(), s.texture.profile())
		if err != nil {
			t.Fatal(err)
		}
		if err := pc.MapTo(tex.Profile, e); err != nil {
			t.Fatal(err)
		}
		img = image.NewRGBA(image.Rect(0, 0, tex.Width, tex.Height))
		if err := imaging.Draw(img, tex); err != nil {
			t.Fatal(err)
		}
	} else {
		var r renderer
		var err error
		if img, _, err = r.render(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	pts, err := pc.Calculate(f)
	if err != nil {
		t.Fatal(err)
	}
	var vs [][3]float32
	var cs [][3]byte
	var pix []int
	for y := range f.Height {
		for x := range f.Width {
			i := y*f.Width + x
			if pts.Vertices[i][2] <= 0 {
				continue
			}
			vs = append(vs, pts.Vertices[i])
			pix = append(pix, i)
			px, py := x, y
			if tex != nil {
				px, py = int(pts.TexCoords[i][0]*float32(tex.Width)), int(pts.TexCoords[i][1]*float32(tex.Height))
			}
			if px < 0 || py < 0 || px >= img.Rect.Dx() || py >= img.Rect.Dy() {
				cs = append(cs, outsideTexture)
				continue
			}
			o := py*img.Stride + 4*px
			cs = append(cs, [3]byte(img.Pix[o:o+3]))
		}
	}
	return vs, cs, pix
}

// checkCloud compares a cloud message with processing's cloud of the same
// frames: every point within the message's quantization, every color
// exact.
func checkCloud(t *testing.T, msg []byte, wantPts [][3]float32, wantCols [][3]byte, wantPix []int) cloudHeader {
	t.Helper()
	h, pts, cols, pix, err := decodeCloudPixels(msg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pix, wantPix) {
		t.Errorf("cloud of frame %d: the mask gives the pixels of %d points, not those of processing's %d", h.Number, len(pix), len(wantPix))
	}
	if len(pts) != len(wantPts) {
		t.Fatalf("cloud of frame %d: %d points, want %d", h.Number, len(pts), len(wantPts))
	}
	bad := 0
	for i := range pts {
		for c := range 3 {
			if d := math.Abs(float64(pts[i][c] - wantPts[i][c])); d > float64(h.Scale)*0.51 {
				if bad++; bad < 5 {
					t.Errorf("point %d: %v, want %v (scale %v)", i, pts[i], wantPts[i], h.Scale)
				}
				break
			}
		}
		if cols[i] != wantCols[i] {
			if bad++; bad < 5 {
				t.Errorf("point %d: color %v, want %v", i, cols[i], wantCols[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d points differ", bad, len(pts))
	}
	return h
}

// reducedStep is the decimation of the cloud of a depth frame w pixels wide.
func reducedStep(w int) int {
	r, _ := processing.NewDecimation().OptionRange(sensor.OptionFilterMagnitude)
	return min((w+reducedColumns-1)/reducedColumns, int(r.Max))
}

// depthColorAt serves depth_color.bag paused, connects and seeks to its
// depth frame number at (counting from 0); it returns the server, the
// connection, the bag's frames by stream and the ids of its depth and
// color streams.
func depthColorAt(t *testing.T, at int) (*testServer, *wsClient, map[string][]refFrame, int, int) {
	t.Helper()
	path := filepath.Join(refDir, "depth_color.bag")
	refs := refFrames(t, path)
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "")
	depth, color := c.streamID("Depth/0"), c.streamID("Color/0")
	c.must(command{Cmd: "seek", T: refs["Depth/0"][at].bagTime.Seconds()})
	c.waitNumber(depth, refs["Depth/0"][at].f.Number)
	return ts, c, refs, depth, color
}

// openPage opens the server's page (with query) in a headless Chromium and
// waits for a picture of every video stream.
func openPage(t *testing.T, ts *testServer, query string) *browser {
	t.Helper()
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/" + query))
	b.waitFor("pictures of every stream", `document.querySelectorAll('#streams canvas').length > 0 && [...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number)`)
	return b
}

// TestPointCloudMessage: a page that turns the 3D view on gets the cloud of
// the depth frame on view, computed by processing.PointCloud and colored by
// the color frame on view; reduced by default, every vertex with full; it
// follows a step.
func TestPointCloudMessage(t *testing.T) {
	ts, c, refs, depth, color := depthColorAt(t, 5)
	ref := refs["Depth/0"]
	if c.nCloud != 0 {
		t.Fatal("a cloud sent to a page that did not ask for it")
	}
	byNumber := func(name string, n uint64) *sensor.Frame {
		for _, r := range refs[name] {
			if r.f.Number == n {
				return r.f
			}
		}
		t.Fatalf("no %s frame %d", name, n)
		return nil
	}
	for _, tc := range []struct {
		full bool
		step func(w int) int
		at   int
	}{
		{false, reducedStep, 5},
		{true, func(int) int { return 1 }, 5},
		{false, reducedStep, 6}, // after a step
	} {
		t.Run(fmt.Sprintf("full=%v/frame%d", tc.full, tc.at), func(t *testing.T) {
			if tc.at == 6 {
				c.must(command{Cmd: "step", Dir: 1})
				c.waitNumber(depth, ref[6].f.Number)
			}
			c.must(command{Cmd: "cloud", On: true, Full: tc.full})
			f := ref[tc.at].f
			want := tc.step(f.Width)
			var h cloudHeader
			c.until("the cloud of the frame on view", func() bool {
				if c.cloud == nil {
					return false
				}
				hl := binary.LittleEndian.Uint32(c.cloud)
				h = cloudHeader{}
				json.Unmarshal(c.cloud[4:4+hl], &h)
				cf, ok := c.frames[color]
				return h.Number == f.Number && h.Step == want && ok && h.Texture == "Color/0" && h.TextureNum == cf.Number
			})
			tex := byNumber("Color/0", h.TextureNum)
			vs, cs, pix := wantCloud(t, ts.srv, f, tex, want)
			checkCloud(t, c.cloud, vs, cs, pix)
		})
	}
}

// TestPointCloudColoredByDepth: without a color stream the points take the
// colors of the colorized depth picture.
func TestPointCloudColoredByDepth(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	ref := refFrames(t, path)["Depth/0"]
	dev, err := playback.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var depthOnly []*sensor.StreamProfile
	for _, sn := range dev.Sensors() {
		for _, p := range sn.Profiles() {
			if p.Stream == sensor.StreamDepth {
				depthOnly = append(depthOnly, p)
			}
		}
	}
	ts := serveTest(t, "127.0.0.1:0", Config{Device: dev, Profiles: depthOnly})
	c := dialWS(t, ts, "")
	c.must(command{Cmd: "cloud", On: true})
	c.until("a cloud", func() bool { return c.cloud != nil })
	h, _, _, err := decodeCloud(c.cloud)
	if err != nil {
		t.Fatal(err)
	}
	var f *sensor.Frame
	for _, r := range ref {
		if r.f.Number == h.Number {
			f = r.f
		}
	}
	if h.Texture != "depth" || f == nil {
		t.Fatalf("cloud of frame %d textured by %q", h.Number, h.Texture)
	}
	vs, cs, pix := wantCloud(t, ts.srv, f, nil, h.Step)
	checkCloud(t, c.cloud, vs, cs, pix)
}

// TestBrowserPointCloud drives the 3D view in Chromium: turned on, it draws
// the cloud of the depth frame on view (the page's WebGL canvas is not
// blank); a drag orbits (the view changes, the angles move), the wheel
// zooms, reset returns; a step brings the next frame's cloud.
func TestBrowserPointCloud(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	b := openPage(t, startTest(t, path, false), "")
	depth := b.streamIDs()["Depth/0"]
	b.do(chromedp.Click("#show3d"))
	b.waitFor("the cloud of the depth frame on view", fmt.Sprintf(`document.getElementById('cloud').dataset.number === document.getElementById('canvas-%d').dataset.number && +document.getElementById('cloud').dataset.points > 0`, depth))
	shot := func() []byte {
		return []byte(eval[string](b, `document.getElementById('cloud').toDataURL('image/png')`))
	}
	b.waitFor("drawn", `document.getElementById('cloud').dataset.yaw !== undefined`)
	before := shot()
	if blank := eval[bool](b, `(() => {
		const c = document.getElementById('cloud'), g = document.createElement('canvas');
		g.width = c.width; g.height = c.height;
		const x = g.getContext('2d'); x.drawImage(c, 0, 0);
		const d = x.getImageData(0, 0, g.width, g.height).data;
		const seen = new Set();
		for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i+1] << 8) | d[i+2]);
		return seen.size < 16;
	})()`); blank {
		t.Fatal("the 3D view is blank")
	}
	b.screenshot("cloud_front")
	// Orbit: drag across the view.
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const c = document.getElementById('cloud'), r = c.getBoundingClientRect();
		const ev = (type, x) => c.dispatchEvent(new PointerEvent(type, {clientX: r.left + x, clientY: r.top + r.height / 2, pointerId: 1, bubbles: true, button: 0}));
		ev('pointerdown', 100); ev('pointermove', 160); ev('pointermove', 220); ev('pointerup', 220);
	})()`))
	b.waitFor("orbited", `Math.abs(+document.getElementById('cloud').dataset.yaw + 1.2) < 1e-3`)
	if after := shot(); string(after) == string(before) {
		t.Error("orbiting left the 3D view unchanged")
	}
	b.screenshot("cloud_orbit")
	dist := eval[string](b, `document.getElementById('cloud').dataset.dist`)
	b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('cloud').dispatchEvent(new WheelEvent('wheel', {deltaY: 500, bubbles: true, cancelable: true}))`))
	b.waitFor("zoomed out", fmt.Sprintf(`+document.getElementById('cloud').dataset.dist > %s`, dist))
	b.do(chromedp.Click("#reset-view"))
	b.waitFor("reset", `document.getElementById('cloud').dataset.yaw === '0.0000'`)
	// A step: the next frame's cloud.
	number := b.dataset("cloud", "number")
	b.do(chromedp.Click("#fwd"))
	b.waitFor("the next frame's cloud", fmt.Sprintf(`document.getElementById('cloud').dataset.number !== %q && document.getElementById('cloud').dataset.number === document.getElementById('canvas-%d').dataset.number`, number, depth))
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserCloudUploadsOnlyDrawn: while a bag plays, the page uploads to
// WebGL only the clouds it draws (the newest at each animation frame), not
// every cloud that arrives.
func TestBrowserCloudUploadsOnlyDrawn(t *testing.T) {
	b := openPage(t, playTest(t, filepath.Join(refDir, "depth_color.bag"), true), "")
	b.do(chromedp.Click("#show3d"))
	b.waitFor("ten clouds drawn", `+document.getElementById('cloud').dataset.frames >= 10`)
	got := eval[[]string](b, `(() => { const d = document.getElementById('cloud').dataset; return [d.uploads, d.frames, d.received]; })()`)
	if got[0] != got[1] {
		t.Errorf("uploaded %s clouds, drew %s (received %s): want every upload drawn", got[0], got[1], got[2])
	}
}
