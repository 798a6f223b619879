package viewer

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// syntheticCamera is a synthetic camera (depth, 424x240 at 30 fps, real
// time) with the serial number and the profiles to show.
func syntheticCamera(t *testing.T, serial string) (device.Device, []*sensor.StreamProfile) {
	t.Helper()
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth: &software.Video{Width: 424, Height: 240, FPS: 30}, Speed: 1,
		Info: map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: serial},
	})
	if err != nil {
		t.Fatal(err)
	}
	var profiles []*sensor.StreamProfile
	for _, sn := range cam.Sensors() {
		profiles = append(profiles, sn.Profiles()...)
	}
	return cam, profiles
}

// closeWatch is a device that notes its Close.
type closeWatch struct {
	device.Device
	closed *sync.WaitGroup
}

func (d closeWatch) Close() error {
	defer d.closed.Done()
	return d.Device.Close()
}

// testCameras are synthetic cameras attached under the serials given.
type testCameras struct {
	t       *testing.T
	serials []string
	mu      sync.Mutex
	opened  []string
	closed  sync.WaitGroup
}

func (tc *testCameras) List(context.Context) ([]Camera, error) {
	var out []Camera
	for _, s := range tc.serials {
		out = append(out, Camera{Serial: s, Name: "Synthetic " + s})
	}
	return out, nil
}

func (tc *testCameras) Open(_ context.Context, serial string) (Config, error) {
	tc.mu.Lock()
	tc.opened = append(tc.opened, serial)
	tc.mu.Unlock()
	cam, profiles := syntheticCamera(tc.t, serial)
	tc.closed.Add(1)
	return Config{Device: closeWatch{cam, &tc.closed}, Profiles: profiles}, nil
}

// TestSwitchCamera: a camera's page lists the attached cameras and opens
// another by its serial number: a viewer of that camera on another port,
// whose page switches back to the first viewer. Each camera is opened
// once; an unknown serial and a bag's page are refused; the cameras opened
// are closed with the first viewer.
func TestSwitchCamera(t *testing.T) {
	cams := &testCameras{t: t, serials: []string{"111", "222"}}
	cam, profiles := syntheticCamera(t, "111")
	ts := serveTest(t, "127.0.0.1:0", Config{Device: cam, Profiles: profiles, Cameras: cams})
	c := dialWS(t, ts, "")
	if !c.hello.Cameras {
		t.Fatal("the hello of a camera with Cameras does not offer to switch")
	}
	r := c.do(command{Cmd: "cameras"})
	if r.Error != "" || len(r.Cameras) != 2 || r.Cameras[0] != (Camera{"111", "Synthetic 111"}) || r.Cameras[1].Serial != "222" {
		t.Fatalf("cameras: %+v", r)
	}
	r = c.do(command{Cmd: "openCamera", Name: "222"})
	if r.Error != "" || len(r.URLs) != 1 || r.URLs[0] == ts.url+"/" {
		t.Fatalf("openCamera 222: %+v", r)
	}
	other := dialWS(t, &testServer{addr: strings.TrimSuffix(strings.TrimPrefix(r.URLs[0], "http://"), "/")}, "")
	if s := other.hello.Device[sensor.CameraInfoSerialNumber.String()]; s != "222" || !other.hello.Cameras {
		t.Errorf("the page opened shows camera %q (cameras %v); want 222", s, other.hello.Cameras)
	}
	depth := other.streamID("Depth/0")
	other.until("a picture of camera 222", func() bool { return other.frames[depth].Number > 0 })
	if back := other.do(command{Cmd: "openCamera", Name: "111"}); back.Error != "" || len(back.URLs) != 1 || back.URLs[0] != ts.url+"/" {
		t.Errorf("back to 111: %+v; want %s/", back, ts.url)
	}
	if again := c.do(command{Cmd: "openCamera", Name: "222"}); again.Error != "" || len(again.URLs) != 1 || again.URLs[0] != r.URLs[0] {
		t.Errorf("222 again: %+v; want %v", again, r.URLs)
	}
	if bad := c.do(command{Cmd: "openCamera", Name: "333"}); !strings.Contains(bad.Error, `camera "333": none attached`) || !strings.Contains(bad.Error, "111, 222") {
		t.Errorf("openCamera 333: %q", bad.Error)
	}
	cams.mu.Lock()
	if len(cams.opened) != 1 || cams.opened[0] != "222" {
		t.Errorf("cameras opened: %v; want [222]", cams.opened)
	}
	cams.mu.Unlock()
	bag := dialWS(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	if bag.hello.Cameras {
		t.Error("a bag's hello offers to switch cameras")
	}
	if r := bag.do(command{Cmd: "cameras"}); !strings.Contains(r.Error, "camera's viewer") {
		t.Errorf("cameras on a bag's page: %q", r.Error)
	}
	ts.srv.Close()
	cams.closed.Wait() // the camera opened from the page is closed with the first viewer
}

// TestBrowserSwitchCamera: the page's camera list names the attached
// cameras by serial number; choosing another takes the page to that
// camera's viewer, which shows it.
func TestBrowserSwitchCamera(t *testing.T) {
	cams := &testCameras{t: t, serials: []string{"111", "222"}}
	cam, profiles := syntheticCamera(t, "111")
	ts := serveTest(t, "127.0.0.1:0", Config{Device: cam, Profiles: profiles, Cameras: cams})
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("the camera list", `document.getElementById('camera').options.length === 2 && document.getElementById('camera').value === '111'`)
	if opts := eval[string](b, `[...document.getElementById('camera').options].map(o => o.textContent).join('|')`); opts != "111 (Synthetic 111)|222 (Synthetic 222)" {
		t.Errorf("the camera list offers %q", opts)
	}
	eval[bool](b, `(() => { const s = document.getElementById('camera'); s.value = '222'; s.dispatchEvent(new Event('change')); return true; })()`)
	b.waitFor("the page of camera 222", `location.origin !== `+strconv.Quote(ts.url)+` && document.getElementById('camera').value === '222' && [...document.querySelectorAll('#streams canvas')].some(c => c.dataset.number)`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
