package viewer

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// browser is a headless Chromium page and what its console said.
type browser struct {
	t   testing.TB
	ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// findChromium returns the path of a Chromium or Chrome binary, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium. Where none is installed the test is
// skipped, except on CI, which installs it.
func newBrowser(t testing.TB) *browser {
	t.Helper()
	exe := findChromium()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no chromium found: CI must install Debian's chromium package")
		}
		t.Skip("browser test skipped: no chromium found (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1500, 1100))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	b := &browser{t: t, ctx: ctx}
	msgs := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return b
}

// do runs actions, failing the test on error (a hang at the test's
// deadline, await.Context).
func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := await.Context(b.t, b.ctx)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	ctx, cancel := await.Context(b.t, b.ctx)
	defer cancel()
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
		if err == nil {
			return v
		}
		if ctx.Err() == nil && staleContext(err) {
			continue
		}
		b.t.Fatalf("%s: %v", js, err)
	}
}

// waitFor waits until a JavaScript condition holds.
func (b *browser) waitFor(what, cond string) {
	b.t.Helper()
	ctx, cancel := await.Context(b.t, b.ctx)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(0)))
		if err == nil {
			return
		}
		// Right after a navigation the page's previous JavaScript context
		// can still be the one on record until its destruction event is
		// handled; the poll then names a context that is gone. Poll again
		// in the new one.
		if ctx.Err() == nil && staleContext(err) {
			continue
		}
		b.t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

// staleContext reports whether err says the page's JavaScript context was
// replaced under a call (a navigation finished, or the page navigated
// itself, in between).
func staleContext(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// consoleErrors returns the errors and exceptions the page logged.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
			out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
		}
	}
	return out
}

// screenshot saves the page as a test artifact: under $RSBAG_ARTIFACTS when
// set, else under the system's temporary folder.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("RSBAG_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "rsbag-artifacts")
	}
	dir = filepath.Join(dir, "viewer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := await.Context(b.t, b.ctx)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

func (b *browser) dataset(id, key string) string {
	b.t.Helper()
	el := fmt.Sprintf("document.getElementById(%q)", id)
	if id == "body" {
		el = "document.body"
	}
	return eval[string](b, fmt.Sprintf("%s.dataset[%q] || ''", el, key))
}

func (b *browser) datasetInt(id, key string) int64 {
	b.t.Helper()
	s := b.dataset(id, key)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		b.t.Fatalf("#%s data-%s = %q: %v", id, key, s, err)
	}
	return n
}

// canvasPixels is what a canvas shows.
type canvasPixels struct {
	W, H   int
	Number string
	Scheme string
	Pix    []byte // RGBA
}

func (b *browser) canvas(id int) canvasPixels {
	b.t.Helper()
	type raw struct {
		W, H           int
		Number, Scheme string
		B64            string
	}
	r := eval[raw](b, fmt.Sprintf(`(() => {
		const c = document.getElementById('canvas-%d');
		const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
		let s = '';
		for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode.apply(null, d.subarray(i, i + 0x8000));
		return {W: c.width, H: c.height, Number: c.dataset.number, Scheme: c.dataset.scheme || '', B64: btoa(s)};
	})()`, id))
	pix, err := base64.StdEncoding.DecodeString(r.B64)
	if err != nil {
		b.t.Fatal(err)
	}
	return canvasPixels{W: r.W, H: r.H, Number: r.Number, Scheme: r.Scheme, Pix: pix}
}

// streamIDs maps stream names to the page's stream ids.
func (b *browser) streamIDs() map[string]int {
	b.t.Helper()
	ids := eval[map[string]string](b, `Object.fromEntries([...document.querySelectorAll('.card')].map(c => [c.dataset.stream, c.id.slice(5)]))`)
	out := map[string]int{}
	for name, s := range ids {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.t.Fatalf("card id %q", s)
		}
		out[name] = n
	}
	return out
}

// matchFrame checks that a canvas shows the frame the page says it shows,
// drawn as the server's renderer draws it (depth through the colorizer with
// the page's scheme), pixel for pixel, and that the picture is not blank.
func matchFrame(t *testing.T, b *browser, id int, frames []refFrame) {
	t.Helper()
	got := b.canvas(id)
	var f *sensor.Frame
	for _, rf := range frames {
		if strconv.FormatUint(rf.f.Number, 10) == got.Number {
			f = rf.f
		}
	}
	if f == nil {
		t.Fatalf("canvas %d shows frame %q, not a frame of the bag", id, got.Number)
	}
	scheme := int32(0)
	if got.Scheme != "" {
		n, _ := strconv.Atoi(got.Scheme)
		scheme = int32(n)
	}
	var r renderer
	want, _, err := r.render(f, scheme)
	if err != nil {
		t.Fatal(err)
	}
	if got.W != f.Width || got.H != f.Height || len(got.Pix) != len(want.Pix) {
		t.Fatalf("canvas %d: %dx%d (%d bytes), want %dx%d", id, got.W, got.H, len(got.Pix), f.Width, f.Height)
	}
	diff, distinct := 0, map[[3]byte]bool{}
	for i := 0; i < len(want.Pix); i += 4 {
		for k := 0; k < 3; k++ {
			d := int(got.Pix[i+k]) - int(want.Pix[i+k])
			if d > 1 || d < -1 {
				diff++
				break
			}
		}
		if len(distinct) < 3 {
			distinct[[3]byte(got.Pix[i:i+3])] = true
		}
	}
	if diff != 0 {
		t.Errorf("canvas %d (%s frame %d, scheme %d): %d of %d pixels differ from the renderer's", id, f.Profile.Name(), f.Number, scheme, diff, f.Width*f.Height)
	}
	if len(distinct) < 2 {
		t.Errorf("canvas %d (%s frame %d) is blank", id, f.Profile.Name(), f.Number)
	}
}

// TestBrowserPlaysBag drives the page in Chromium: it loads without console
// errors, every canvas shows its frame as the renderer draws it, pause stops
// the position, seek moves it, step advances exactly one frame, and the
// color scheme applies.
func TestBrowserPlaysBag(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	refs := refFrames(t, path)
	ts := startTest(t, path, true)
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/?codec=png"))
	b.waitFor("the streams", `document.querySelectorAll('.card').length > 0`)
	ids := b.streamIDs()
	depth, color := ids["Depth/0"], ids["Color/0"]
	if len(ids) != 2 {
		t.Fatalf("streams on the page: %v", ids)
	}
	b.waitFor("pictures of every stream", `[...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number)`)
	b.waitFor("paused at the start", `document.getElementById('status').dataset.status === 'Paused'`)

	// Play, then pause: the position stays over the next state messages.
	// The pause is clicked in the same task that sees the page playing, so
	// the button sends pause whatever the machine's speed (the bag loops).
	b.do(chromedp.Click("#play"))
	b.waitFor("playing, then the pause clicked", `document.getElementById('status').dataset.status === 'Playing' && (document.getElementById('play').click(), true)`)
	b.waitFor("paused", `document.getElementById('status').dataset.status === 'Paused'`)
	b.waitFor("the last frame before the pause drawn", fmt.Sprintf(`document.getElementById('canvas-%d').dataset.number === document.getElementById('stats-%d').dataset.number`, depth, depth))
	// The pause command has returned (it shows the current picture, which
	// sets the position) and a state message has come since.
	b.waitFor("the pause's reply", `(document.body.dataset.lastReply || '').startsWith('pause:') && (document.body.dataset.lastReply || '').endsWith(':ok')`)
	afterReply := b.datasetInt("body", "states")
	b.waitFor("a state after the reply", fmt.Sprintf("+document.body.dataset.states > %d", afterReply))
	states := b.datasetInt("body", "states")
	pos := b.datasetInt("position", "positionNs")
	number := b.dataset(fmt.Sprintf("canvas-%d", depth), "number")
	b.waitFor("three more state messages", fmt.Sprintf("+document.body.dataset.states >= %d", states+3))
	if p := b.datasetInt("position", "positionNs"); p != pos {
		t.Errorf("position moved while paused: %d → %d", pos, p)
	}
	if n := b.dataset(fmt.Sprintf("canvas-%d", depth), "number"); n != number {
		t.Errorf("depth frame changed while paused: %s → %s", number, n)
	}

	// Seek with the seek bar to 0.5 s: the current picture there — the
	// last depth frame at or before it — is shown and the position is
	// 0.5 s (P.35).
	const seekMs = 500
	at := 0
	for at+1 < len(refs["Depth/0"]) && refs["Depth/0"][at+1].bagTime <= seekMs*time.Millisecond {
		at++
	}
	want := refs["Depth/0"][at]
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('seek'); s.value = '%d'; s.dispatchEvent(new Event('change')); })()`, seekMs)))
	b.waitFor("the seek", fmt.Sprintf(`document.getElementById('position').dataset.positionNs === '%d' && document.getElementById('canvas-%d').dataset.number === '%d'`, int64(seekMs*time.Millisecond), depth, want.f.Number))

	// Step forward: exactly the next depth frame.
	next := refs["Depth/0"][at+1]
	b.do(chromedp.Click("#fwd"))
	b.waitFor("the step", fmt.Sprintf(`document.getElementById('canvas-%d').dataset.number !== '%d'`, depth, want.f.Number))
	if n := b.dataset(fmt.Sprintf("canvas-%d", depth), "number"); n != strconv.FormatUint(next.f.Number, 10) {
		t.Errorf("step forward from frame %d shows frame %s, want %d", want.f.Number, n, next.f.Number)
	}
	b.waitFor("the position after the step", fmt.Sprintf(`document.getElementById('position').dataset.positionNs === '%d'`, int64(next.bagTime)))

	// Pixels: depth through the colorizer, color as recorded.
	matchFrame(t, b, depth, refs["Depth/0"])
	matchFrame(t, b, color, refs["Color/0"])

	// Another color scheme: the depth picture is redrawn with it.
	n := eval[int](b, `document.getElementById('scheme').options.length`)
	if n != len(processing.ColorSchemes()) {
		t.Errorf("%d schemes offered, want %d", n, len(processing.ColorSchemes()))
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scheme'); s.value = '2'; s.dispatchEvent(new Event('change')); })()`))
	b.waitFor("the new scheme", fmt.Sprintf(`document.getElementById('canvas-%d').dataset.scheme === '2'`, depth))
	matchFrame(t, b, depth, refs["Depth/0"])

	// Hovering depth shows the distance under the pointer.
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const c = document.getElementById('canvas-%d'), r = c.getBoundingClientRect();
		c.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
	})()`, depth)))
	b.waitFor("the distance", `document.getElementById('hover').dataset.meters !== ''`)

	b.screenshot("depth_color")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserOptionValues: an option's value on the page changes when the
// position passes its recorded change.
func TestBrowserOptionValues(t *testing.T) {
	path := recordReference(t, "options_pause_notify", nil)
	ts := startTest(t, path, false)
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("a state", `+document.body.dataset.states > 0`)
	b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('seek'); s.value = '100'; s.dispatchEvent(new Event('change')); })()`))
	b.waitFor("paused at 0.1 s", `document.getElementById('status').dataset.status === 'Paused'`)
	// The reference session sets the depth sensor's exposure to 20000 and
	// changes it to 33000 at 400 ms.
	cell := fmt.Sprintf("opt-0-%d", int(sensor.OptionExposure))
	b.waitFor("exposure 20000", fmt.Sprintf(`document.getElementById(%q).dataset.value === '20000'`, cell))
	b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('seek'); s.value = '600'; s.dispatchEvent(new Event('change')); })()`))
	b.waitFor("exposure 33000", fmt.Sprintf(`document.getElementById(%q).dataset.value === '33000'`, cell))
	if !eval[bool](b, fmt.Sprintf(`document.getElementById(%q).classList.contains('changed')`, cell)) {
		t.Error("the changed option is not marked")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserScreenshots plays the real D435 bag (also with the 3D view)
// and a synthetic bag with IMU and saves the page of each as a test
// artifact.
func TestBrowserScreenshots(t *testing.T) {
	imu := recordReference(t, "motion_accel_gyro", func(c *software.SyntheticConfig) {
		c.Depth = &software.Video{Width: 424, Height: 240, FPS: 30}
		c.Color = &software.Video{Width: 424, Height: 240, FPS: 30}
	})
	for _, tc := range []struct{ name, path, ready string }{
		{"real_d435", filepath.Join(refDir, "real", "single_depth_color_640x480.bag"),
			`[...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number)`},
		{"real_d435_3d", filepath.Join(refDir, "real", "single_depth_color_640x480.bag"),
			`[...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number) && +document.getElementById('cloud').dataset.frames > 0`},
		{"synthetic_imu", imu,
			`[...document.querySelectorAll('#streams canvas[id^="canvas-"]')].every(c => c.dataset.number) && [...document.querySelectorAll('[id^="values-"]')].every(v => v.textContent)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := playTest(t, tc.path, true)
			b := newBrowser(t)
			b.do(chromedp.Navigate(ts.url + "/"))
			if strings.HasSuffix(tc.name, "_3d") {
				b.waitFor("the page", `document.querySelectorAll('.card').length > 0`)
				b.do(chromedp.Click("#show3d"))
			}
			b.waitFor("every stream drawn", tc.ready)
			b.screenshot(tc.name)
			if errs := b.consoleErrors(); len(errs) > 0 {
				t.Errorf("console errors: %q", errs)
			}
		})
	}
}

// TestBrowserWithToken: beyond loopback the page opened at its URL with the
// token connects its WebSocket and shows every stream.
func TestBrowserWithToken(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "0.0.0.0:0", Config{Token: testToken, Loop: true})
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/?codec=png&token=" + testToken))
	b.waitFor("pictures of every stream", `document.querySelectorAll('#streams canvas').length > 0 && [...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number)`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestBrowserLiveHidesTimeline: a live camera's page hides the controls
// that only a bag has (play, step, seek, speed, loop): their section's
// hidden attribute wins over the stylesheet's display.
func TestBrowserLiveHidesTimeline(t *testing.T) {
	cam, err := software.NewSynthetic(software.SyntheticConfig{Depth: &software.Video{Width: 424, Height: 240, FPS: 30}, Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var profiles []*sensor.StreamProfile
	for _, sn := range cam.Sensors() {
		profiles = append(profiles, sn.Profiles()...)
	}
	ts := serveTest(t, "127.0.0.1:0", Config{Device: cam, Profiles: profiles})
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("a live picture", `document.getElementById('title').textContent.endsWith('(live)') && [...document.querySelectorAll('#streams canvas')].some(c => c.dataset.number)`)
	for _, id := range []string{"controls", "play", "seek", "position", "speed", "loop"} {
		if d := eval[string](b, fmt.Sprintf(`getComputedStyle(document.getElementById(%q)).display`, id)); id == "controls" && d != "none" {
			t.Errorf("live: #controls has display %q, want none", d)
		}
		if v := eval[bool](b, fmt.Sprintf(`document.getElementById(%q).checkVisibility()`, id)); v {
			t.Errorf("live: #%s is visible", id)
		}
	}
	if d := eval[string](b, `getComputedStyle(document.getElementById('display')).display`); d != "flex" {
		t.Errorf("live: the depth colors section has display %q, want flex", d)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserStartsPaused: a page opened a while after the server started
// (three state messages later) shows the first frame of every stream,
// paused, at the position by which each has its first frame; pressing play
// plays.
func TestBrowserStartsPaused(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	firsts, at := firstPicture(t, path)
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "") // another page, to let the server run a while first
	c.until("three states", func() bool { return c.nState >= 3 })
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/?codec=png"))
	b.waitFor("the streams", `document.querySelectorAll('.card').length > 0`)
	b.waitFor("pictures of every stream", `[...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number)`)
	b.waitFor("a state", `+document.body.dataset.states > 0`)
	if st, text := b.dataset("status", "status"), eval[string](b, `document.getElementById('status').textContent`); st != "Paused" || text != "Paused" {
		t.Errorf("status %q (%q), want Paused", st, text)
	}
	if p := b.datasetInt("position", "positionNs"); p != int64(at) {
		t.Errorf("position %d ns, want the first frames', %d ns", p, at)
	}
	ids := b.streamIDs()
	for name, f := range firsts {
		if n := b.dataset(fmt.Sprintf("canvas-%d", ids[name]), "number"); n != strconv.FormatUint(f.f.Number, 10) {
			t.Errorf("%s picture %s, want the first frame, %d", name, n, f.f.Number)
		}
		matchFrame(t, b, ids[name], []refFrame{f})
	}
	b.do(chromedp.Click("#play"))
	b.waitFor("played past the first frames", fmt.Sprintf(`+document.getElementById('position').dataset.positionNs > %d`, int64(at)))
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserAutoplay: with Config.Autoplay (rs-record view --autoplay) the
// page finds the bag playing.
func TestBrowserAutoplay(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "127.0.0.1:0", Config{Autoplay: true, Loop: true})
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("playing", `document.getElementById('status').dataset.status === 'Playing' && document.getElementById('play').textContent === 'Pause'`)
}

// TestBrowserEndOfFile: at the end of the bag the page says so and its
// position and seek bar stay at the last frame's position, the duration,
// with the last depth picture on view.
func TestBrowserEndOfFile(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "127.0.0.1:0", Config{Autoplay: true})
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/?codec=png"))
	b.waitFor("the end of the bag", `document.getElementById('status').textContent === 'End of file'`)
	states := b.datasetInt("body", "states")
	b.waitFor("two more states", fmt.Sprintf("+document.body.dataset.states >= %d", states+2))
	d := ts.dev.Duration()
	if p := b.datasetInt("position", "positionNs"); p != int64(d) {
		t.Errorf("position at the end %d ns, want the duration, %d ns", p, d)
	}
	if v := eval[string](b, `document.getElementById('seek').value`); v != strconv.FormatInt(d.Milliseconds(), 10) {
		t.Errorf("seek bar at the end %s ms, want %d ms", v, d.Milliseconds())
	}
	want := fmt.Sprintf("%.3f / %.3f s", d.Seconds(), d.Seconds())
	if txt := eval[string](b, `document.getElementById('position').textContent`); txt != want {
		t.Errorf("position text %q, want %q", txt, want)
	}
	depth := b.streamIDs()["Depth/0"]
	if n := b.dataset(fmt.Sprintf("canvas-%d", depth), "number"); n == "" {
		t.Error("no depth picture on view at the end")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
