package viewer

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// serveSynthetic serves the synthetic camera (depth and color, 424x240 at
// 30 fps, real time) with recording into dir ("" refuses it).
func serveSynthetic(t *testing.T, dir string) *testServer {
	t.Helper()
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth: &software.Video{Width: 424, Height: 240, FPS: 30}, Color: &software.Video{Width: 424, Height: 240, FPS: 30}, Speed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	var profiles []*sensor.StreamProfile
	for _, sn := range cam.Sensors() {
		profiles = append(profiles, sn.Profiles()...)
	}
	return serveTest(t, "127.0.0.1:0", Config{Device: cam, Profiles: profiles, RecordDir: dir,
		RecordOptions: &record.Options{Compression: record.CompressionLZ4}})
}

// TestSetCameraOption: a camera's options are offered with their ranges and
// set from the page; the state shows the new value. Read-only options, bad
// values and a bag's options are refused.
func TestSetCameraOption(t *testing.T) {
	ts := serveSynthetic(t, "")
	c := dialWS(t, ts, "")
	var exposure *helloOption
	for i, o := range c.hello.Sensors[0].Options {
		if o.ID == int32(sensor.OptionExposure) {
			exposure = &c.hello.Sensors[0].Options[i]
		}
	}
	if exposure == nil || !exposure.Settable || !(exposure.Max > exposure.Min) {
		t.Fatalf("exposure of the depth sensor offered as %+v", exposure)
	}
	v := exposure.Min + exposure.Step*3
	c.must(command{Cmd: "setOption", Sensor: 0, Option: int(sensor.OptionExposure), Value: float64(v)})
	c.until("the new exposure in the state", func() bool {
		for _, o := range c.state.Options {
			if o.Sensor == 0 && o.ID == int32(sensor.OptionExposure) {
				return o.Value == v
			}
		}
		return false
	})
	for _, tc := range []struct {
		cmd  command
		want string
	}{
		{command{Cmd: "setOption", Sensor: 0, Option: int(sensor.OptionExposure), Value: float64(exposure.Max) + 1e6}, "Stereo Module"},
		{command{Cmd: "setOption", Sensor: 9, Option: int(sensor.OptionExposure), Value: 1}, "no sensor 9"},
		{command{Cmd: "setOption", Sensor: 0, Option: int(sensor.OptionAsicTemperature), Value: 1}, "read-only"},
	} {
		if r := c.do(tc.cmd); !strings.Contains(r.Error, tc.want) {
			t.Errorf("%+v: error %q, want %q", tc.cmd, r.Error, tc.want)
		}
	}
	bag := dialWS(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	if r := bag.do(command{Cmd: "setOption", Sensor: 0, Option: int(sensor.OptionExposure), Value: 9000}); !strings.Contains(r.Error, "as recorded") {
		t.Errorf("setting a bag's option: %q", r.Error)
	}
}

// TestRecordFromPage: a page records the camera into the directory given,
// under the name it chooses, with size and duration in the state; the
// stopped recording is a complete bag that plays, nothing else is left in
// the directory, and the viewer streams on. Names that would leave the
// directory or overwrite a file are refused.
func TestRecordFromPage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "exists.bag"), []byte("mine"), 0o644)
	ts := serveSynthetic(t, dir)
	c := dialWS(t, ts, "")
	depth := c.streamID("Depth/0")
	c.until("a depth picture", func() bool { return c.frames[depth].Number > 0 })
	for _, tc := range []struct{ name, want string }{
		{"../escape", "not a plain file name"},
		{"a/b", "not a plain file name"},
		{`a\b`, "not a plain file name"},
		{".hidden", "not a plain file name"},
		{"", "give the recording a file name"},
		{"exists", "exists"},
		{strings.Repeat("x", 300), "at most"},
	} {
		if r := c.do(command{Cmd: "record", On: true, Name: tc.name}); !strings.Contains(r.Error, tc.want) {
			t.Errorf("record %q: error %q, want %q", tc.name, r.Error, tc.want)
		}
	}
	if r := c.do(command{Cmd: "record", On: false}); !strings.Contains(r.Error, "not recording") {
		t.Errorf("stop without a recording: %q", r.Error)
	}
	if r := c.do(command{Cmd: "playRecording"}); !strings.Contains(r.Error, "no finished recording") {
		t.Errorf("play before a recording: %q", r.Error)
	}
	c.must(command{Cmd: "record", On: true, Name: "take1"})
	if r := c.do(command{Cmd: "record", On: true, Name: "take2"}); !strings.Contains(r.Error, "already recording") {
		t.Errorf("a second recording: %q", r.Error)
	}
	c.until("bytes recorded", func() bool {
		return c.state.Recording != nil && c.state.Recording.Active && c.state.Recording.Bytes > 64<<10 && c.state.Recording.File == "take1.bag"
	})
	c.must(command{Cmd: "record", On: false})
	if r := c.state.Recording; r == nil || r.Active || r.Error != "" || r.Seconds <= 0 {
		t.Errorf("after the stop: %+v", r)
	}
	n := c.frames[depth].Number
	c.until("the camera streams on", func() bool { return c.frames[depth].Number > n+2 })
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "exists.bag,take1.bag" {
		t.Errorf("the directory holds %q, want exists.bag and take1.bag", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "exists.bag")); string(b) != "mine" {
		t.Error("exists.bag was changed")
	}
	pb, err := playback.Open(filepath.Join(dir, "take1.bag"), nil)
	if err != nil {
		t.Fatalf("the recording does not open: %v", err)
	}
	defer pb.Close()
	if pb.Recovery() != nil || pb.Duration() <= 0 {
		t.Errorf("the recording: recovered %v, duration %v", pb.Recovery(), pb.Duration())
	}
	streams := map[string]bool{}
	for _, sn := range pb.Sensors() {
		for _, p := range sn.Profiles() {
			streams[p.Name()] = true
		}
	}
	if !streams["Depth/0"] || !streams["Color/0"] {
		t.Errorf("the recording holds %v, want Depth/0 and Color/0", streams)
	}
	// The recording served for playback on another port.
	r := c.do(command{Cmd: "playRecording"})
	if r.Error != "" || len(r.URLs) == 0 {
		t.Fatalf("play the recording: %+v", r)
	}
	resp, err := http.Get(r.URLs[0])
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %v %v", r.URLs[0], resp, err)
	}
	resp.Body.Close()
	player := dialWS(t, &testServer{addr: strings.TrimSuffix(strings.TrimPrefix(r.URLs[0], "http://"), "/")}, "")
	if !player.hello.Playback || !strings.HasSuffix(player.hello.File, "take1.bag") {
		t.Errorf("the player's hello: playback %v, file %q", player.hello.Playback, player.hello.File)
	}
	// A bag is not recorded.
	bag := dialWS(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	if r := bag.do(command{Cmd: "record", On: true, Name: "x"}); !strings.Contains(r.Error, "only a camera") {
		t.Errorf("recording a bag: %q", r.Error)
	}
}

// TestBrowserRecordLive drives the live synthetic camera's page in
// Chromium: an option set with its slider reaches the camera, a stream
// stops and starts with its check box, the record
// button records under the typed name with the size growing, stop
// finalizes it, and "Play the recording" serves the bag on a page of its
// own, where it plays.
func TestBrowserRecordLive(t *testing.T) {
	dir := t.TempDir()
	ts := serveSynthetic(t, dir)
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("a live picture", `[...document.querySelectorAll('#streams canvas')].some(c => c.dataset.number)`)
	b.waitFor("the recorder", `!document.getElementById('recorder').hidden`)
	id := fmt.Sprintf("set-0-%d", sensor.OptionExposure)
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById(%q); s.value = String(+s.min + 10 * +s.step); s.dispatchEvent(new Event('change')); })()`, id)))
	want := eval[string](b, fmt.Sprintf(`String(+(+document.getElementById(%q).min + 10 * +document.getElementById(%q).step).toFixed(6))`, id, id))
	b.waitFor("the exposure set", fmt.Sprintf(`document.getElementById('opt-0-%d').dataset.value === %q`, sensor.OptionExposure, want))

	// Stop the color stream and start it again.
	color := b.streamIDs()["Color/0"]
	b.do(chromedp.Click(fmt.Sprintf("#stream-on-%d", color)))
	b.waitFor("color stopped", fmt.Sprintf(`document.getElementById('stats-%d').textContent.startsWith('stopped')`, color))
	b.do(chromedp.Click(fmt.Sprintf("#stream-on-%d", color)))
	b.waitFor("color streaming", fmt.Sprintf(`!document.getElementById('stats-%d').textContent.startsWith('stopped') && document.getElementById('stream-on-%d').checked`, color, color))

	b.do(chromedp.SetValue("#record-name", "page_take"), chromedp.Click("#record"))
	b.waitFor("recording", `document.getElementById('record-status').dataset.active === 'true' && +document.getElementById('record-status').dataset.bytes > 65536`)
	b.screenshot("recording")
	b.do(chromedp.Click("#record"))
	b.waitFor("recorded", `document.getElementById('record-status').dataset.active === '' && document.getElementById('record-status').textContent.startsWith('recorded page_take.bag')`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}

	// Play the recording: served on another port, its page linked.
	b.do(chromedp.Click("#play-recording"))
	b.waitFor("the link to the recording's page", `!document.getElementById('recording-link').hidden`)
	link := eval[string](b, `document.getElementById('recording-link').href`)
	b.do(chromedp.Navigate(link))
	b.waitFor("the recording's pictures", `document.getElementById('title').textContent.includes('page_take.bag') && document.querySelectorAll('#streams canvas').length === 2 && [...document.querySelectorAll('#streams canvas')].every(c => c.dataset.number)`)
	b.do(chromedp.Click("#play"))
	b.waitFor("playing", `document.getElementById('status').dataset.status === 'Playing' || document.getElementById('status').textContent === 'End of file'`)
}

// TestCameraStreamOnOff: a camera's stream stopped from the page delivers
// nothing while the others stream on, and streams again once started; a
// bag's streams cannot be stopped.
func TestCameraStreamOnOff(t *testing.T) {
	ts := serveSynthetic(t, "")
	c := dialWS(t, ts, "")
	depth, color := c.streamID("Depth/0"), c.streamID("Color/0")
	delivered := func(id int) uint64 { return c.state.Streams[id].Delivered }
	c.until("both streams", func() bool { return len(c.state.Streams) == 2 && delivered(depth) > 0 && delivered(color) > 0 })
	c.must(command{Cmd: "stream", ID: color, On: false})
	if !c.state.Streams[color].Off {
		t.Error("the state does not say the color stream is off")
	}
	stopped, d0 := delivered(color), delivered(depth)
	c.until("five more depth frames", func() bool { return delivered(depth) >= d0+5 })
	if n := delivered(color); n != stopped {
		t.Errorf("the stopped color stream delivered %d more frames", n-stopped)
	}
	c.must(command{Cmd: "stream", ID: color, On: true})
	c.until("color again", func() bool { return delivered(color) > stopped+2 && !c.state.Streams[color].Off })
	if r := c.do(command{Cmd: "stream", ID: 7, On: false}); !strings.Contains(r.Error, "no stream 7") {
		t.Errorf("stream 7: %q", r.Error)
	}
	bag := dialWS(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	if r := bag.do(command{Cmd: "stream", ID: 0, On: false}); !strings.Contains(r.Error, "only a camera") {
		t.Errorf("stopping a bag's stream: %q", r.Error)
	}
}
