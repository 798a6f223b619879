package viewer

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// twoProfileCamera is a camera whose depth stream has two profiles (64x48
// at 30 fps and 32x24 at 15), fed by a goroutine that injects frames into
// whichever is streaming until the test ends.
func twoProfileCamera(t *testing.T) (*software.Device, *software.Sensor, [2]*sensor.StreamProfile) {
	t.Helper()
	dev := software.New(sensor.Info{sensor.CameraInfoName: "Two-profile camera", sensor.CameraInfoSerialNumber: "42"})
	ds := dev.AddSensor("Stereo Module")
	ds.AddOption(sensor.OptionDepthUnits, 0.001, extensions.Range{Min: 0.0001, Max: 0.01, Step: 0.000001, Default: 0.001}, false)
	var ps [2]*sensor.StreamProfile
	for i, v := range []struct{ w, h, fps int }{{64, 48, 30}, {32, 24, 15}} {
		ps[i] = ds.AddVideoStream(software.VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: v.w, Height: v.h, FPS: v.fps,
			Intrinsics: sensor.Intrinsics{FX: float32(v.w), FY: float32(v.w), PPX: float32(v.w) / 2, PPY: float32(v.h) / 2}, Default: i == 0})
	}
	done := make(chan struct{})
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		for n := uint64(1); ; n++ {
			for _, p := range ps {
				select {
				case <-done:
					return
				default:
				}
				data := make([]byte, p.Width*p.Height*2)
				for i := range p.Width * p.Height {
					data[2*i], data[2*i+1] = byte(n+uint64(i)), 4
				}
				err := ds.Inject(&sensor.Frame{Profile: p, Number: n, TimestampMs: float64(n), Data: data})
				if err != nil && !errors.Is(err, sensor.ErrNoProfile) && !errors.Is(err, sensor.ErrNotStarted) {
					t.Errorf("inject: %v", err)
					return
				}
			}
		}
	}()
	t.Cleanup(func() { close(done); <-fed })
	return dev, ds, ps
}

// TestChooseProfile: a camera's page lists the profiles of each stream and
// switches one: the sensor streams the chosen profile, every page is sent
// the new hello and pictures of the new size. A profile out of the list and
// a bag's stream are refused.
func TestChooseProfile(t *testing.T) {
	dev, ds, ps := twoProfileCamera(t)
	ts := serveTest(t, "127.0.0.1:0", Config{Device: dev, Profiles: ps[:1]})
	c := dialWS(t, ts, "")
	other := dialWS(t, ts, "")
	depth := c.streamID("Depth/0")
	hs := c.hello.Streams[depth]
	want := []helloProfile{{"Z16", 64, 48, 30}, {"Z16", 32, 24, 15}}
	if len(hs.Profiles) != 2 || hs.Profiles[0] != want[0] || hs.Profiles[1] != want[1] || hs.Profile != 0 {
		t.Fatalf("hello offers profiles %+v (shown %d); want %+v (shown 0)", hs.Profiles, hs.Profile, want)
	}
	c.until("a 64x48 picture", func() bool { return c.frames[depth].Width == 64 })
	c.must(command{Cmd: "profile", ID: depth, Profile: 1})
	for _, cl := range []*wsClient{c, other} {
		cl.until("the new hello", func() bool { return cl.nHello > 0 })
		if h := cl.hello.Streams[depth]; h.Width != 32 || h.Height != 24 || h.FPS != 15 || h.Profile != 1 {
			t.Errorf("the new hello describes %+v; want 32x24 at 15 fps, profile 1", h)
		}
		cl.until("a 32x24 picture", func() bool { return cl.frames[depth].Width == 32 && cl.frames[depth].Height == 24 })
	}
	if open := ds.OpenProfiles(); len(open) != 1 || open[0] != ps[1] {
		t.Errorf("the sensor streams %v; want %v", open, ps[1])
	}
	c.must(command{Cmd: "profile", ID: depth, Profile: 0})
	c.until("a 64x48 picture again", func() bool { return c.frames[depth].Width == 64 })
	for _, tc := range []struct {
		cmd  command
		want string
	}{
		{command{Cmd: "profile", ID: depth, Profile: 2}, "no profile 2"},
		{command{Cmd: "profile", ID: depth, Profile: -1}, "no profile -1"},
		{command{Cmd: "profile", ID: 7}, "no stream 7"},
	} {
		if r := c.do(tc.cmd); !strings.Contains(r.Error, tc.want) {
			t.Errorf("%+v: error %q, want %q", tc.cmd, r.Error, tc.want)
		}
	}
	bag := dialWS(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	if len(bag.hello.Streams[0].Profiles) != 0 {
		t.Errorf("a bag's stream offers profiles %+v", bag.hello.Streams[0].Profiles)
	}
	if r := bag.do(command{Cmd: "profile", ID: 0, Profile: 0}); !strings.Contains(r.Error, "as recorded") {
		t.Errorf("choosing a bag's profile: %q", r.Error)
	}
}

// TestBrowserChooseProfile: the page's profile list of a camera's stream
// switches it; the page then draws the stream at the chosen size.
func TestBrowserChooseProfile(t *testing.T) {
	dev, _, ps := twoProfileCamera(t)
	ts := serveTest(t, "127.0.0.1:0", Config{Device: dev, Profiles: ps[:1]})
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("the depth card", `document.querySelector('.card[data-stream="Depth/0"]') !== null`)
	id := b.streamIDs()["Depth/0"]
	canvas := fmt.Sprintf(`document.getElementById('canvas-%d')`, id)
	b.waitFor("a 64x48 picture", canvas+`.width === 64 && `+canvas+`.dataset.number !== ''`)
	if opts := eval[string](b, fmt.Sprintf(`[...document.getElementById('profile-%d').options].map(o => o.textContent).join('|')`, id)); opts != "64x48 @30 Z16|32x24 @15 Z16" {
		t.Errorf("the profile list offers %q", opts)
	}
	eval[bool](b, fmt.Sprintf(`(() => { const s = document.getElementById('profile-%d'); s.value = '1'; s.dispatchEvent(new Event('change')); return true; })()`, id))
	b.waitFor("a 32x24 picture", canvas+`.width === 32 && `+canvas+`.height === 24 && `+canvas+`.dataset.number !== ''`)
	if v := eval[string](b, fmt.Sprintf(`document.getElementById('profile-%d').value`, id)); v != "1" {
		t.Errorf("the profile list shows %q after the switch, want 1", v)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
