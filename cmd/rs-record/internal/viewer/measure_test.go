package viewer

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// TestRuler: the distance between two depth pixels is the distance between
// their points as processing.PointCloud deprojects them with the stream's
// intrinsics; pixels without depth or outside the frame, and a stream that
// is not depth, are refused.
func TestRuler(t *testing.T) {
	c, ref, depth := pausedDepthColor(t)
	c.must(command{Cmd: "seek", T: ref[5].bagTime.Seconds()})
	f := ref[5].f
	c.waitNumber(depth, f.Number)
	pts, err := processing.NewPointCloud().Calculate(f)
	if err != nil {
		t.Fatal(err)
	}
	zero := [2]int{-1, -1}
	for i, v := range pts.Vertices {
		if v[2] == 0 {
			zero = [2]int{i % f.Width, i / f.Width}
			break
		}
	}
	for _, pair := range [][2][2]int{{{10, 20}, {f.Width - 5, f.Height - 7}}, {{0, 0}, {f.Width - 1, f.Height - 1}}, {{100, 100}, {100, 100}}} {
		a, b := pair[0], pair[1]
		if pts.Vertices[a[1]*f.Width+a[0]][2] == 0 || pts.Vertices[b[1]*f.Width+b[0]][2] == 0 {
			continue
		}
		r := c.do(command{Cmd: "ruler", ID: depth, X: float64(a[0]), Y: float64(a[1]), X2: float64(b[0]), Y2: float64(b[1])})
		pa, pb := pts.Vertices[a[1]*f.Width+a[0]], pts.Vertices[b[1]*f.Width+b[0]]
		if want := distance3(pa, pb); r.Error != "" || r.Meters != want || r.Number != f.Number || *r.A != pa || *r.B != pb {
			t.Errorf("ruler %v–%v: %v m %v %v (frame %d, %q), want %v m %v %v (frame %d)", a, b, r.Meters, r.A, r.B, r.Number, r.Error, want, pa, pb, f.Number)
		}
	}
	bad := []struct {
		cmd  command
		want string
	}{
		{command{Cmd: "ruler", ID: depth, X: 0, Y: 0, X2: float64(f.Width), Y2: 0}, "outside"},
		{command{Cmd: "ruler", ID: c.streamID("Color/0"), X: 1, Y: 1, X2: 2, Y2: 2}, "not Z16"},
	}
	if zero[0] >= 0 {
		bad = append(bad, struct {
			cmd  command
			want string
		}{command{Cmd: "ruler", ID: depth, X: float64(zero[0]), Y: float64(zero[1]), X2: 10, Y2: 10}, "no depth at pixel"})
	}
	for _, tc := range bad {
		if r := c.do(tc.cmd); !strings.Contains(r.Error, tc.want) {
			t.Errorf("%+v: error %q, want %q", tc.cmd, r.Error, tc.want)
		}
	}
}

// TestSnapshotPLY: /snapshot.ply is the PLY processing writes of the depth
// frame on view, textured by the color frame on view.
func TestSnapshotPLY(t *testing.T) {
	ts, c, refs, _, color := depthColorAt(t, 5)
	f := refs["Depth/0"][5].f
	c.until("the color picture", func() bool { return c.frames[color].Number > 0 })
	resp, err := http.Get(ts.url + "/snapshot.ply")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("GET /snapshot.ply: %s %q", resp.Status, resp.Header.Get("Content-Disposition"))
	}
	// The color frame on view when the cloud was made (the page's color
	// picture may still be moving to the one of the seek).
	if d := resp.Header.Get("X-Depth-Frame"); d != fmt.Sprint(f.Number) {
		t.Fatalf("X-Depth-Frame %q, want %d", d, f.Number)
	}
	var tex *sensor.Frame
	for _, r := range refs["Color/0"] {
		if fmt.Sprint(r.f.Number) == resp.Header.Get("X-Texture-Frame") {
			tex = r.f
		}
	}
	if tex == nil {
		t.Fatalf("X-Texture-Frame %q: no such color frame", resp.Header.Get("X-Texture-Frame"))
	}
	pc := processing.NewPointCloud()
	e, err := ts.dev.Extrinsics(ts.srv.primary.profile(), ts.srv.texture.profile())
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.MapTo(tex.Profile, e); err != nil {
		t.Fatal(err)
	}
	pts, err := pc.Calculate(f)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := pts.WritePLY(&want, tex, processing.PLYOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the PLY (%d bytes) differs from processing's (%d bytes) of frame %d with color frame %d", len(got), want.Len(), f.Number, tex.Number)
	}
	if resp, err := http.Post(ts.url+"/snapshot.ply", "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /snapshot.ply: %v %v", resp.Status, err)
	}
}

// measurePage opens the page of the reference depth+color bag, paused at
// its first frames: the bag's frames, the server, the page and the id of
// the depth stream.
func measurePage(t *testing.T) (map[string][]refFrame, *testServer, *browser, int) {
	t.Helper()
	path := filepath.Join(refDir, "depth_color.bag")
	refs := refFrames(t, path)
	ts := startTest(t, path, false)
	b := openPage(t, ts, "")
	return refs, ts, b, b.streamIDs()["Depth/0"]
}

// depthOnView is the bag's depth frame of the number a view shows, and
// processing's point cloud of it.
func depthOnView(t *testing.T, refs map[string][]refFrame, number string) (*sensor.Frame, *processing.Points) {
	t.Helper()
	for _, r := range refs["Depth/0"] {
		if strconv.FormatUint(r.f.Number, 10) == number {
			pts, err := processing.NewPointCloud().Calculate(r.f)
			if err != nil {
				t.Fatal(err)
			}
			return r.f, pts
		}
	}
	t.Fatalf("the view shows depth frame %q, not one of the bag", number)
	return nil, nil
}

// TestBrowserMeasure drives the ruler, the zoom and the snapshot in
// Chromium: two pixels clicked on the depth view give the distance
// processing computes between them (also once zoomed in, where the same
// pixels are elsewhere on the screen); the snapshot offers a PNG of each
// view and the server's PLY of the cloud.
func TestBrowserMeasure(t *testing.T) {
	refs, ts, b, depth := measurePage(t)
	f, pts := depthOnView(t, refs, b.dataset(fmt.Sprintf("canvas-%d", depth), "number"))
	b.do(chromedp.Click("#show3d"), chromedp.Click("#ruler-btn"))
	measure := func(a, p [2]int) {
		t.Helper()
		b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
			const c = document.getElementById('canvas-%d'), r = c.getBoundingClientRect();
			const at = (x, y) => c.dispatchEvent(new MouseEvent('click', {bubbles: true,
				clientX: r.left + (x + 0.5) * r.width / c.width, clientY: r.top + (y + 0.5) * r.height / c.height}));
			document.getElementById('ruler').dataset.meters = '';
			at(%d, %d); at(%d, %d);
		})()`, depth, a[0], a[1], p[0], p[1])))
		b.waitFor("the distance", `document.getElementById('ruler').dataset.meters !== ''`)
		want := distance3(pts.Vertices[a[1]*f.Width+a[0]], pts.Vertices[p[1]*f.Width+p[0]])
		if got := b.dataset("ruler", "meters"); got != strconv.FormatFloat(want, 'g', -1, 64) {
			t.Errorf("ruler %v–%v: %s m, want %v m", a, p, got, want)
		}
	}
	measure([2]int{20, 30}, [2]int{f.Width - 40, f.Height - 20})
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const c = document.getElementById('canvas-%d'), r = c.getBoundingClientRect();
		c.dispatchEvent(new WheelEvent('wheel', {deltaY: -600, bubbles: true, cancelable: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
	})()`, depth)))
	b.waitFor("zoomed in", fmt.Sprintf(`+document.getElementById('canvas-%d').dataset.zoom > 2`, depth))
	measure([2]int{f.Width/2 - 10, f.Height/2 - 5}, [2]int{f.Width/2 + 12, f.Height/2 + 9})
	b.screenshot("ruler")

	b.do(chromedp.Click("#snapshot"))
	b.waitFor("three files offered", `document.querySelectorAll('#snapshots a').length === 3`)
	files := eval[map[string]string](b, `Object.fromEntries([...document.querySelectorAll('#snapshots a')].map(a => [a.download, a.dataset.bytes]))`)
	resp, err := http.Get(ts.url + "/snapshot.ply")
	if err != nil {
		t.Fatal(err)
	}
	ply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	n := f.Number
	for _, name := range []string{fmt.Sprintf("Depth_0-%d.png", n), fmt.Sprintf("Depth_0-%d.ply", n)} {
		if files[name] == "" || files[name] == "0" {
			t.Errorf("snapshot %s not offered: %v", name, files)
		}
	}
	if got := files[fmt.Sprintf("Depth_0-%d.ply", n)]; got != strconv.Itoa(len(ply)) {
		t.Errorf("the PLY offered has %s bytes, the server's %d", got, len(ply))
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestRulerRealBag: on the real D435 recording (distorted color, real
// depth), the ruler between two pixels is processing's distance between
// their points.
func TestRulerRealBag(t *testing.T) {
	path := filepath.Join(refDir, "real", "single_depth_color_640x480.bag")
	ref := refFrames(t, path)["Depth/0"]
	c := dialWS(t, startTest(t, path, false), "")
	depth := c.streamID("Depth/0")
	c.until("the first depth picture", func() bool { return c.frames[depth].Number > 0 })
	var f *sensor.Frame
	for _, r := range ref {
		if r.f.Number == c.frames[depth].Number {
			f = r.f
		}
	}
	if f == nil {
		t.Fatalf("depth frame %d on view is not in the bag", c.frames[depth].Number)
	}
	pts, err := processing.NewPointCloud().Calculate(f)
	if err != nil {
		t.Fatal(err)
	}
	// The first two pixels with depth on the middle row, far apart.
	y := f.Height / 2
	var xs []int
	for x := 0; x < f.Width && len(xs) < 2; x++ {
		if pts.Vertices[y*f.Width+x][2] > 0 && (len(xs) == 0 || x > xs[0]+f.Width/2) {
			xs = append(xs, x)
		}
	}
	if len(xs) < 2 {
		t.Fatal("no two pixels with depth on the middle row")
	}
	r := c.do(command{Cmd: "ruler", ID: depth, X: float64(xs[0]), Y: float64(y), X2: float64(xs[1]), Y2: float64(y)})
	want := distance3(pts.Vertices[y*f.Width+xs[0]], pts.Vertices[y*f.Width+xs[1]])
	if r.Error != "" || r.Meters != want || r.Number != f.Number {
		t.Errorf("ruler (%d, %d)–(%d, %d): %v m (frame %d, %q), want %v m (frame %d)", xs[0], y, xs[1], y, r.Meters, r.Number, r.Error, want, f.Number)
	}
	t.Logf("(%d, %d)–(%d, %d) of frame %d: %.4f m", xs[0], y, xs[1], y, f.Number, r.Meters)
}

// TestBrowserRuler3D: with the ruler on, two clicks on points of the 3D
// view pick their depth pixels (each point's own, found from the cloud's
// mask); the distance is processing's between those pixels of the frame on
// view, computed by the server. A drag still orbits without picking.
func TestBrowserRuler3D(t *testing.T) {
	refs, _, b, depth := measurePage(t)
	b.do(chromedp.Click("#show3d"))
	b.waitFor("the cloud of the frame on view", fmt.Sprintf(`document.getElementById('cloud').dataset.number === document.getElementById('canvas-%d').dataset.number && document.getElementById('cloud').dataset.yaw !== undefined`, depth))
	f, pts := depthOnView(t, refs, b.dataset("cloud", "number"))
	b.do(chromedp.Click("#ruler-btn"))
	// Clicks at two places of the view (a press and a release in place);
	// then a drag, which picks nothing.
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const c = document.getElementById('cloud'), r = c.getBoundingClientRect();
		const ev = (type, x, y) => c.dispatchEvent(new PointerEvent(type, {clientX: r.left + x * r.width, clientY: r.top + y * r.height, pointerId: 1, bubbles: true, button: 0}));
		document.getElementById('ruler').dataset.meters = '';
		ev('pointerdown', 0.4, 0.45); ev('pointerup', 0.4, 0.45);
		ev('pointerdown', 0.62, 0.55); ev('pointerup', 0.62, 0.55);
	})()`))
	b.waitFor("the distance", `document.getElementById('ruler').dataset.meters !== ''`)
	var a, p [2]int
	if _, err := fmt.Sscanf(b.dataset("ruler", "a")+" "+b.dataset("ruler", "b"), "%d,%d %d,%d", &a[0], &a[1], &p[0], &p[1]); err != nil {
		t.Fatalf("picked pixels %q %q: %v", b.dataset("ruler", "a"), b.dataset("ruler", "b"), err)
	}
	if a == p || a[0] >= p[0] || a[1] >= p[1] {
		t.Errorf("picked %v and %v: want the left-upper point first, two different pixels", a, p)
	}
	want := distance3(pts.Vertices[a[1]*f.Width+a[0]], pts.Vertices[p[1]*f.Width+p[0]])
	if got := b.dataset("ruler", "meters"); got != strconv.FormatFloat(want, 'g', -1, 64) {
		t.Errorf("ruler %v–%v in 3D: %s m, want %v m", a, p, got, want)
	}
	yaw := b.dataset("cloud", "yaw")
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const c = document.getElementById('cloud'), r = c.getBoundingClientRect();
		const ev = (type, x) => c.dispatchEvent(new PointerEvent(type, {clientX: r.left + x, clientY: r.top + r.height / 2, pointerId: 1, bubbles: true, button: 0}));
		ev('pointerdown', 100); ev('pointermove', 160); ev('pointerup', 160);
	})()`))
	b.waitFor("orbited", fmt.Sprintf(`document.getElementById('cloud').dataset.yaw !== %q`, yaw))
	if txt := eval[string](b, `document.getElementById('ruler').textContent`); strings.Contains(txt, "second pixel") {
		t.Errorf("a drag picked a point: %q", txt)
	}
	b.screenshot("ruler_3d")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
