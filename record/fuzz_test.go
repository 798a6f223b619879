package record

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// FuzzRecord records random profiles (frame sizes), frame contents and
// option values — NaN, infinities and values out of range included —
// through the record device, and reads the bag back: it opens indexed, the
// playback device accepts it with the recorded sizes, every frame is there
// with its bytes, and each option's last recorded value is the one the
// device reported after the change.
func FuzzRecord(f *testing.F) {
	f.Add(uint8(16), uint8(8), uint8(3), float32(9000), float32(12), uint64(1), false)
	f.Add(uint8(1), uint8(1), uint8(0), float32(math.NaN()), float32(math.Inf(1)), uint64(2), true)
	f.Add(uint8(63), uint8(47), uint8(9), float32(-1), float32(1e30), uint64(3), true)
	f.Fuzz(func(t *testing.T, w8, h8, n8 uint8, exposure, brightness float32, seed uint64, compress bool) {
		synctest.Test(t, func(t *testing.T) { fuzzRecord(t, w8, h8, n8, exposure, brightness, seed, compress) })
	})
}

// fuzzRecord is FuzzRecord's target, in a synctest bubble.
func fuzzRecord(t *testing.T, w8, h8, n8 uint8, exposure, brightness float32, seed uint64, compress bool) {
	w, h, n := 1+int(w8)%64, 1+int(h8)%48, int(n8)%12
	td := newTestDevice(t, w, h)
	path := filepath.Join(t.TempDir(), "fuzz.bag")
	comp := CompressionNone
	if compress {
		comp = CompressionLZ4
	}
	rec, err := Create(td.dev, path, &Options{Compression: comp, Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	ss := rec.Sensors()
	var log handlerLog
	openStart(t, ss[0], &log, td.depth)
	openStart(t, ss[1], &log, td.color)
	// Option changes: accepted or refused, never a panic; the value
	// the device reports afterwards is what the bag must say.
	_ = ss[0].(extensions.Options).SetOption(sensor.OptionExposure, exposure)
	_ = ss[1].(extensions.Options).SetOption(sensor.OptionBrightness, brightness)
	wantExp, _ := ss[0].(extensions.Options).Option(sensor.OptionExposure)
	wantBr, _ := ss[1].(extensions.Options).Option(sensor.OptionBrightness)
	rng := rand.New(rand.NewPCG(seed, 7))
	var depthData [][]byte
	for i := 0; i < n; i++ {
		time.Sleep(33 * time.Millisecond)
		df, cf := td.frame(td.depth), td.frame(td.color)
		for j := range df.Data {
			df.Data[j] = byte(rng.Uint32())
		}
		depthData = append(depthData, bytes.Clone(df.Data))
		if err := td.depthS.Inject(df); err != nil {
			t.Fatal(err)
		}
		if err := td.colorS.Inject(cf); err != nil {
			t.Fatal(err)
		}
		td.depthS.Flush()
		td.colorS.Flush()
	}
	stopAndClose(t, rec, ss)

	ms, info, err := readBag(t, path)
	if err != nil || !info.Indexed {
		t.Fatalf("bag not indexed: %v", err)
	}
	top := byTopic(ms)
	frames := top["/device_0/sensor_0/Depth_0/image/data"]
	if len(frames) != n || len(top["/device_0/sensor_1/Color_0/image/data"]) != n {
		t.Fatalf("%d depth and %d color frames, want %d", len(frames), len(top["/device_0/sensor_1/Color_0/image/data"]), n)
	}
	for i, m := range frames {
		var img msgs.Image
		if err := msgs.Unmarshal(m.Data, &img); err != nil {
			t.Fatal(err)
		}
		if int(img.Width) != w || int(img.Height) != h || !bytes.Equal(img.Data, depthData[i]) {
			t.Fatalf("frame %d: %dx%d, data equal %v; want %dx%d", i, img.Width, img.Height, bytes.Equal(img.Data, depthData[i]), w, h)
		}
	}
	for _, c := range []struct {
		topic string
		want  float32
	}{{"/device_0/sensor_0/option/Exposure/value", wantExp}, {"/device_0/sensor_1/option/Brightness/value", wantBr}} {
		vals := top[c.topic]
		if len(vals) == 0 {
			t.Fatalf("%s: no value", c.topic)
		}
		var v msgs.Float32
		if err := msgs.Unmarshal(vals[len(vals)-1].Data, &v); err != nil {
			t.Fatal(err)
		}
		if math.Float32bits(v.Data) != math.Float32bits(c.want) {
			t.Errorf("%s: last value %v, the device reported %v", c.topic, v.Data, c.want)
		}
	}
	pb, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatalf("playback refuses the bag: %v", err)
	}
	defer pb.Close()
	for _, p := range pb.Sensors()[0].Profiles() {
		if p.Stream == sensor.StreamDepth && (p.Width != w || p.Height != h) {
			t.Errorf("played depth profile %v, want %dx%d", p, w, h)
		}
	}
}
