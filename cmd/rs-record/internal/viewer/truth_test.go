package viewer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// truthBag copies the bag src with the ground truth rs-record record
// --ground-truth writes beside every depth and color frame: a pose made
// from the frame's number and, for depth, an exact depth made from the
// number and the pixel.
func truthBag(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "truth.bag")
	added := func(s sensor.Stream, what string, m msgs.Message) testbags.Added {
		typ := m.Type()
		return testbags.Added{Topic: layout.GroundTruthTopic(s, 0, what), Type: typ.Name, MD5Sum: typ.MD5, Definition: typ.Definition, Data: msgs.Append(nil, m)}
	}
	testbags.CopyAdding(t, src, dst, func(m *rosbag.Message) []testbags.Added {
		tp := layout.Parse(m.Conn.Topic)
		if tp.Kind != layout.KindImageData {
			return nil
		}
		var img msgs.Image
		if err := msgs.Unmarshal(m.Data, &img); err != nil {
			t.Fatal(err)
		}
		seq := float64(img.Header.Seq)
		tf := &msgs.Transform{Translation: msgs.Vector3{X: seq / 100, Y: -seq / 50, Z: 0.25 + float64(tp.Stream)},
			Rotation: msgs.Quaternion{X: 0.1, Y: 0.2, Z: 0.3, W: math.Sqrt(1 - 0.14)}}
		out := []testbags.Added{added(tp.Stream, "pose", tf)}
		if tp.Stream != sensor.StreamDepth {
			return out
		}
		exact := &msgs.Image{Header: img.Header, Width: img.Width, Height: img.Height, Encoding: "32FC1", Step: 4 * img.Width,
			Data: make([]byte, 4*img.Width*img.Height)}
		for i := range int(img.Width * img.Height) {
			binary.LittleEndian.PutUint32(exact.Data[4*i:], math.Float32bits(float32(seq)+float32(i)/1e4))
		}
		return append(out, added(tp.Stream, "depth", exact))
	})
	return dst
}

// refTruth returns the ground truth of every frame of the bag at path, as
// playback.Device.GroundTruth gives it in a lossless playback, by stream
// name and frame number.
func refTruth(t *testing.T, path string) map[string]map[uint64]playback.GroundTruth {
	t.Helper()
	dev, err := playback.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	out := map[string]map[uint64]playback.GroundTruth{}
	for name, frames := range refFrames(t, path) {
		for _, rf := range frames {
			gt, err := dev.GroundTruth(rf.f, rf.bagTime)
			if err != nil {
				continue
			}
			if out[name] == nil {
				out[name] = map[uint64]playback.GroundTruth{}
			}
			out[name][rf.f.Number] = gt
		}
	}
	return out
}

// TestGroundTruthHeader: playing a bag with ground truth in real time,
// every picture's header carries its frame's pose, the one
// playback.Device.GroundTruth gives that frame.
func TestGroundTruthHeader(t *testing.T) {
	path := truthBag(t, filepath.Join(refDir, "depth_color.bag"))
	ref := refTruth(t, path)
	if len(ref["Depth/0"]) == 0 || len(ref["Color/0"]) == 0 {
		t.Fatalf("the bag holds no ground truth: %d depth, %d color frames", len(ref["Depth/0"]), len(ref["Color/0"]))
	}
	c := dialWS(t, playTest(t, path, false), "")
	names := map[int]string{}
	for _, s := range c.hello.Streams {
		names[s.ID] = s.Name
	}
	seen := map[string]int{}
	checked := map[int]uint64{} // 1 + the seq of the picture checked last, by stream
	c.until("end of file", func() bool {
		for id, h := range c.frames {
			if checked[id] == h.Seq+1 {
				continue
			}
			checked[id] = h.Seq + 1
			want, ok := ref[names[id]][h.Number]
			if !ok {
				t.Fatalf("%s frame %d: no ground truth in the reference", names[id], h.Number)
			}
			if h.Truth == nil || h.Truth.T != want.Translation || h.Truth.Q != want.Rotation {
				t.Fatalf("%s frame %d: truth %+v, want %v %v", names[id], h.Number, h.Truth, want.Translation, want.Rotation)
			}
			seen[names[id]]++
		}
		// The pictures wait for the index of bag times, which a loaded
		// machine may finish after the end of the file: the last
		// pictures still come.
		return c.state.Ended && seen["Depth/0"] > 0 && seen["Color/0"] > 0
	})
	if seen["Depth/0"] == 0 || seen["Color/0"] == 0 {
		t.Errorf("pictures with a pose: %v", seen)
	}
}

// BenchmarkGroundTruthFrame measures what the ground truth adds to each
// depth picture of a bag recorded with it: the header's bytes and the time
// to read the frame's pose and exact depth (kept for the hover readout).
func BenchmarkGroundTruthFrame(b *testing.B) {
	path := truthBag(b, filepath.Join(refDir, "depth_color.bag"))
	ts := startTest(b, path, false)
	s := ts.srv
	st := s.primary
	f := st.latest.Load()
	if f == nil || s.groundTruth(st, f) == nil {
		b.Fatal("no ground truth for the first depth frame")
	}
	plain := frameHeaderOf(st, f, 1)
	with := plain
	with.Truth = s.groundTruth(st, f)
	pj, _ := json.Marshal(&plain)
	wj, _ := json.Marshal(&with)
	b.ResetTimer()
	for b.Loop() {
		st.truth.Store(nil) // each frame a new one
		s.groundTruth(st, f)
	}
	b.ReportMetric(float64(len(wj)-len(pj)), "header-bytes/frame")
	b.ReportMetric(float64(f.Width*f.Height), "exact-pixels/frame")
}

// TestGroundTruthHover: hovering a depth pixel of a bag with ground truth
// gives the exact depth recorded at that pixel beside the measured one
// (none on a decimated picture, whose pixels are others); a bag without
// ground truth gives neither a pose nor an exact depth.
func TestGroundTruthHover(t *testing.T) {
	orig := filepath.Join(refDir, "depth_color.bag")
	path := truthBag(t, orig)
	ref := refFrames(t, path)["Depth/0"]
	truth := refTruth(t, path)["Depth/0"]
	c := dialWS(t, startTest(t, path, false), "")
	depth := c.streamID("Depth/0")
	c.must(command{Cmd: "seek", T: ref[5].bagTime.Seconds()})
	c.waitNumber(depth, ref[5].f.Number)
	f, gt := ref[5].f, truth[ref[5].f.Number]
	for _, p := range [][2]int{{0, 0}, {f.Width / 2, f.Height / 3}, {f.Width - 1, f.Height - 1}} {
		r := c.do(command{Cmd: "hover", ID: depth, X: float64(p[0]), Y: float64(p[1])})
		want := float64(gt.Depth[p[1]*f.Width+p[0]])
		if r.Error != "" || r.Number != f.Number || r.Exact == nil || *r.Exact != want {
			t.Errorf("hover %v: frame %d, exact %v (error %q), want frame %d exact %v", p, r.Number, r.Exact, r.Error, f.Number, want)
		}
	}
	// Decimated, the picture's pixels are no longer those of the ground
	// truth: the pose stays, the exact depth is not given.
	c.must(command{Cmd: "filter", Name: "Decimation Filter", On: true})
	c.until("the decimated picture", func() bool { return c.frames[depth].Width < f.Width })
	if h := c.frames[depth]; h.Number != f.Number || h.Truth == nil || h.Truth.T != gt.Translation {
		t.Errorf("decimated frame %d: truth %+v, want %v", h.Number, h.Truth, gt.Translation)
	}
	if r := c.do(command{Cmd: "hover", ID: depth, X: 1, Y: 1}); r.Error != "" || r.Exact != nil {
		t.Errorf("hover on the decimated frame: exact %v, error %q", r.Exact, r.Error)
	}

	plain := dialWS(t, startTest(t, orig, false), "")
	pd := plain.streamID("Depth/0")
	plain.waitNumber(pd, refFrames(t, orig)["Depth/0"][0].f.Number)
	if h := plain.frames[pd]; h.Truth != nil {
		t.Errorf("a bag without ground truth: header truth %+v", h.Truth)
	}
	if r := plain.do(command{Cmd: "hover", ID: pd, X: 1, Y: 1}); r.Error != "" || r.Exact != nil {
		t.Errorf("a bag without ground truth: hover exact %v, error %q", r.Exact, r.Error)
	}
}

// TestBrowserGroundTruth: with a bag recorded with ground truth, the page
// shows the pose of the frame on view beside its metadata, and hovering
// depth shows the exact depth at the pixel beside the measured one.
func TestBrowserGroundTruth(t *testing.T) {
	path := truthBag(t, filepath.Join(refDir, "depth_color.bag"))
	b := newBrowser(t)
	firsts, _ := firstPicture(t, path)
	truth := refTruth(t, path)["Depth/0"]
	first := firsts["Depth/0"].f
	gt := truth[first.Number]
	ts := startTest(t, path, false)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("the streams", `document.querySelectorAll('.card').length > 0`)
	depth := b.streamIDs()["Depth/0"]
	b.waitFor("the first depth picture", fmt.Sprintf(`document.getElementById('canvas-%d').dataset.number === '%d'`, depth, first.Number))
	pos := fmt.Sprintf("%.4f, %.4f, %.4f", gt.Translation[0], gt.Translation[1], gt.Translation[2])
	b.waitFor("the pose beside the metadata", fmt.Sprintf(`[...document.querySelectorAll('#metadata tr')].some(r => r.textContent === 'Ground truth position (m)' + %q)`, pos))

	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const c = document.getElementById('canvas-%d'), r = c.getBoundingClientRect();
		c.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width / 3, clientY: r.top + r.height / 2}));
	})()`, depth)))
	b.waitFor("the exact depth", `(document.getElementById('hover').dataset.exact || '') !== ''`)
	text := eval[string](b, `document.getElementById('hover').textContent`)
	var x, y int
	if _, err := fmt.Sscanf(text, "(%d, %d)", &x, &y); err != nil {
		t.Fatalf("hover readout %q: %v", text, err)
	}
	want := float64(gt.Depth[y*first.Width+x])
	if got := b.dataset("hover", "exact"); got != strconv.FormatFloat(want, 'g', -1, 64) {
		t.Errorf("exact depth at (%d, %d): %s, want %v", x, y, got, want)
	}
	if !strings.Contains(text, fmt.Sprintf("exact %.4f m", want)) {
		t.Errorf("hover readout %q does not show the exact depth %.4f m", text, want)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
