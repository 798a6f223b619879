package software_test

import (
	"fmt"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
	"github.com/rsbag/rsbag/software"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// forEachMessage calls fn for every message of the reference bag name whose
// topic contains part, in bag order.
func forEachMessage(t *testing.T, name, part string, fn func(topic string, data []byte)) {
	t.Helper()
	path := filepath.Join("..", "testdata", "librealsense", name+".bag")
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	it := r.Messages(&rosbag.Query{})
	for it.Next() {
		m := it.Message()
		if strings.Contains(m.Conn.Topic, part) {
			fn(m.Conn.Topic, m.Data)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestReferenceSystemTime pins why synthetic frames carry SystemTimeMs 0:
// every frame metadata message of the reference bags holds system_time
// 0.000000.
func TestReferenceSystemTime(t *testing.T) {
	for _, name := range refcam.Names {
		n := 0
		forEachMessage(t, name, "/metadata", func(topic string, data []byte) {
			var kv msgs.KeyValue
			if err := msgs.Unmarshal(data, &kv); err != nil {
				t.Fatalf("%s %s: %v", name, topic, err)
			}
			if kv.Key != "system_time" {
				return
			}
			n++
			if kv.Value != "0.000000" {
				t.Errorf("%s %s: system_time %q, want 0.000000", name, topic, kv.Value)
			}
		})
		if n == 0 {
			t.Errorf("%s: no system_time metadata", name)
		}
	}
}

// tfQuaternion is the rotation (x, y, z, w) a recorder writes for a
// column-major float32 matrix: spec §5.8, "HEAD writer (≥ v2.23)", computed
// in float32 on m[a][b] = r[3a+b], then w negated.
func tfQuaternion(r [9]float32) [4]float32 {
	var m [3][3]float32
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			m[a][b] = r[3*a+b]
		}
	}
	sqrtf := func(v float32) float32 { return float32(math.Sqrt(float64(v))) }
	t0 := float32(float32(m[0][0]+m[1][1]) + m[2][2])
	t1 := float32(float32(m[0][0]-m[1][1]) - m[2][2])
	t2 := float32(float32(-m[0][0]+m[1][1]) - m[2][2])
	t3 := float32(float32(-m[0][0]-m[1][1]) + m[2][2])
	var x, y, z, w float32
	switch {
	case t0 >= t1 && t0 >= t2 && t0 >= t3:
		s := 2 * sqrtf(t0+1)
		w, x, y, z = s/4, (m[2][1]-m[1][2])/s, (m[0][2]-m[2][0])/s, (m[1][0]-m[0][1])/s
	case t1 >= t2 && t1 >= t3:
		s := 2 * sqrtf(t1+1)
		w, x, y, z = (m[2][1]-m[1][2])/s, s/4, (m[1][0]+m[0][1])/s, (m[2][0]+m[0][2])/s
	case t2 >= t3:
		s := 2 * sqrtf(t2+1)
		w, x, y, z = (m[0][2]-m[2][0])/s, (m[1][0]+m[0][1])/s, s/4, (m[1][2]+m[2][1])/s
	default:
		s := 2 * sqrtf(t3+1)
		w, x, y, z = (m[1][0]-m[0][1])/s, (m[0][2]+m[2][0])/s, (m[1][2]+m[2][1])/s, s/4
	}
	return [4]float32{x, y, z, -w}
}

// TestReferenceTF compares, bit for bit, the tf message a recording of the
// synthetic camera writes for every stream (topic with its group, float32
// translation and HEAD-writer quaternion as float64) with the tf messages of
// each reference bag, and checks that the bag has no other tf.
func TestReferenceTF(t *testing.T) {
	for _, name := range refcam.Names {
		cfg, _ := refcam.Config(name)
		cam, err := software.NewSynthetic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][7]uint64{}
		forEachMessage(t, name, "/tf/", func(topic string, data []byte) {
			var tf msgs.Transform
			if err := msgs.Unmarshal(data, &tf); err != nil {
				t.Fatalf("%s %s: %v", name, topic, err)
			}
			v, q := tf.Translation, tf.Rotation
			want[topic] = [7]uint64{math.Float64bits(v.X), math.Float64bits(v.Y), math.Float64bits(v.Z),
				math.Float64bits(q.X), math.Float64bits(q.Y), math.Float64bits(q.Z), math.Float64bits(q.W)}
		})
		got := map[string][7]uint64{}
		for _, pe := range cam.PinnedExtrinsics() {
			topic := layout.ExtrinsicsTopic(pe.Key.Sensor, pe.Key.Stream, pe.Key.Index, pe.Group)
			tr, q := pe.FromPin.Translation, tfQuaternion(pe.FromPin.Rotation)
			var b [7]uint64
			for i, f := range append(tr[:], q[:]...) {
				b[i] = math.Float64bits(float64(f))
			}
			got[topic] = b
		}
		cam.Close()
		if len(got) != len(want) {
			t.Errorf("%s: tf topics %v, want %v", name, keys(got), keys(want))
		}
		for topic, w := range want {
			g, ok := got[topic]
			switch {
			case !ok:
				t.Errorf("%s: no %s (have %v)", name, topic, keys(got))
			case g != w:
				t.Errorf("%s %s:\n got %s\nwant %s", name, topic, bitsString(g), bitsString(w))
			}
		}
	}
}

func keys(m map[string][7]uint64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func bitsString(b [7]uint64) string {
	var sb strings.Builder
	for i, x := range b {
		if i == 3 {
			sb.WriteString(" |")
		}
		fmt.Fprintf(&sb, " %v", math.Float64frombits(x))
	}
	return sb.String()
}
