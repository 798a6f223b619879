package layout

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// TestBagTopics parses every topic of every reference bag: each is a known
// kind whose message type is the connection's, and each rebuilds to the same
// string (option names compared in underscore spelling).
func TestBagTopics(t *testing.T) {
	seen := map[TopicKind]int{}
	for _, path := range testBags(t) {
		topics := map[string]bagMessage{}
		for _, m := range readBag(t, path) {
			topics[m.Topic] = m
		}
		for topic, m := range topics {
			tp := Parse(topic)
			seen[tp.Kind]++
			if tp.Kind == KindUnknown {
				t.Errorf("%s: %q parses as unknown", filepath.Base(path), topic)
				continue
			}
			if typ := tp.Kind.Type(); typ.Name != m.Type || typ.MD5 != m.MD5 {
				t.Errorf("%s: %q (%s): layout says %s", filepath.Base(path), topic, m.Type, typ.Name)
			}
			want := topic
			if tp.Kind == KindOptionValue || tp.Kind == KindOptionDescription {
				e := strings.Split(topic, "/")
				e[4] = OptionTopicName(e[4])
				want = strings.Join(e, "/")
				if _, ok := tp.Option(); !ok {
					t.Errorf("%s: %q: unknown option %q", filepath.Base(path), topic, tp.OptionName)
				}
			}
			if got := tp.String(); got != want {
				t.Errorf("%s: %q rebuilds as %q", filepath.Base(path), topic, got)
			}
			if tp.Kind == KindNotification {
				if _, ok := tp.NotificationCategory(); !ok {
					t.Errorf("%s: %q: unknown category", filepath.Base(path), topic)
				}
			}
		}
	}
	t.Logf("topics per kind: %v", seen)
}

// tieAwayFromZero reports whether v lies exactly halfway between two
// six-decimal values and s is v rounded away from zero. The 2018 real bag's
// writer rounded such ties away from zero; glibc's printf, like FormatFixed,
// rounds them to even.
func tieAwayFromZero(v float64, s string) bool {
	exact := new(big.Float).SetFloat64(v).Text('f', 40)
	i := strings.IndexByte(exact, '.')
	if i < 0 || len(exact) < i+8 || strings.TrimRight(exact[i+7:], "0") != "5" {
		return false
	}
	up := new(big.Float).SetPrec(200).SetFloat64(v)
	half, _ := new(big.Float).SetPrec(200).SetString("0.0000005")
	if v < 0 {
		half.Neg(half)
	}
	up.Add(up, half)
	return up.Text('f', 40)[:i+7] == s
}

// expected reads NAME.expected.jsonl next to NAME.bag.
func expected(t *testing.T, bag string) []map[string]any {
	t.Helper()
	f, err := os.Open(strings.TrimSuffix(bag, ".bag") + ".expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoldenTimes checks the time conversions and metadata formats against
// what librealsense reports for the reference bags (the .expected.jsonl
// files): frame timestamps, bag positions, notification timestamps,
// duration, encodings; and that the writer-side conversions give back the
// stored values.
func TestGoldenTimes(t *testing.T) {
	real, _ := filepath.Glob("../../testdata/librealsense/real/*.bag")
	bags := append(testbags.Librealsense(t, "../.."), real...)
	for _, path := range bags {
		t.Run(filepath.Base(path), func(t *testing.T) {
			msgsInBag := readBag(t, path)
			type key struct {
				sensor int
				stream string
				index  int
				pos    uint64
			}
			type frameInfo struct {
				ts     float64
				number uint64
			}
			frames := map[key]frameInfo{}
			var minT, maxT uint64
			first := true
			var notes []msgs.Notification
			encodings := map[string]string{} // "sensor/Stream/index" -> encoding
			for _, m := range msgsInBag {
				tp := Parse(m.Topic)
				bt := FromROSTime(m.Time)
				if m.Time != StaticTime {
					if got := ToROSTime(bt); got != m.Time {
						t.Errorf("%s: ToROSTime(FromROSTime(%+v)) = %+v", m.Topic, m.Time, got)
					}
				}
				if IsFrameDataTopic(m.Topic) != tp.Kind.IsFrameData() {
					t.Errorf("%s: IsFrameDataTopic and Kind disagree", m.Topic)
				}
				if tp.Kind.IsFrameData() {
					if first || bt < minT {
						minT = bt
					}
					if first || bt > maxT {
						maxT = bt
					}
					first = false
				}
				k := key{tp.Sensor, tp.Stream.String(), tp.Index, bt}
				switch tp.Kind {
				case KindImageData:
					var img msgs.Image
					if err := msgs.Unmarshal(m.Data, &img); err != nil {
						t.Fatal(err)
					}
					frames[k] = frameInfo{FrameTimestampMs(img.Header.Stamp), uint64(img.Header.Seq)}
				case KindImuData:
					var imu msgs.Imu
					if err := msgs.Unmarshal(m.Data, &imu); err != nil {
						t.Fatal(err)
					}
					frames[k] = frameInfo{FrameTimestampMs(imu.Header.Stamp), uint64(imu.Header.Seq)}
				case KindImageMetadata, KindImuMetadata, KindPoseMetadata:
					var kv msgs.KeyValue
					if err := msgs.Unmarshal(m.Data, &kv); err != nil {
						t.Fatal(err)
					}
					switch kv.Key {
					case KeySystemTime, KeyFrameTimestamp:
						v, err := ParseFixed(kv.Value)
						if err != nil {
							t.Fatal(err)
						}
						if got := FormatFixed(v); got != kv.Value && !tieAwayFromZero(v, kv.Value) {
							t.Errorf("%s: %s %q reformats as %q", m.Topic, kv.Key, kv.Value, got)
						}
						if kv.Key == KeyFrameTimestamp {
							fi := frames[k]
							fi.ts = v
							frames[k] = fi
						}
					case KeyFrameNumber:
						fi := frames[k]
						fmt.Sscan(kv.Value, &fi.number)
						frames[k] = fi
					case KeyTimestampDomain:
						if _, ok := sensor.Parse[sensor.TimestampDomain](kv.Value); !ok {
							t.Errorf("%s: timestamp_domain %q", m.Topic, kv.Value)
						}
					}
				case KindNotification:
					var n msgs.Notification
					if err := msgs.Unmarshal(m.Data, &n); err != nil {
						t.Fatal(err)
					}
					notes = append(notes, n)
				case KindStreamInfo:
					var si msgs.StreamInfo
					if err := msgs.Unmarshal(m.Data, &si); err != nil {
						t.Fatal(err)
					}
					encodings[fmt.Sprintf("%d/%s/%d", tp.Sensor, tp.Stream, tp.Index)] = si.Encoding
				}
			}
			nFrames, nNotes := 0, 0
			for _, e := range expected(t, path) {
				switch e["type"] {
				case "playback":
					if d := e["duration_ns"].(float64); uint64(d) != maxT-minT {
						t.Errorf("duration %v, frame topics span %d", d, maxT-minT)
					}
				case "frame":
					nFrames++
					k := key{int(e["sensor"].(float64)), e["stream"].(string), int(e["index"].(float64)), uint64(e["position_ns"].(float64))}
					fi, ok := frames[k]
					if !ok {
						t.Errorf("frame %v: no message at that bag time", k)
						continue
					}
					ts := e["timestamp"].(float64)
					if fi.ts != ts {
						t.Errorf("frame %v: timestamp %v, expected %v", k, fi.ts, ts)
					}
					if fi.number != uint64(e["frame_number"].(float64)) {
						t.Errorf("frame %v: number %d, expected %v", k, fi.number, e["frame_number"])
					}
					if k.stream != "Pose" {
						if got := FrameStamp(ts); FrameTimestampMs(got) != ts {
							t.Errorf("frame %v: FrameStamp(%v) = %+v does not read back", k, ts, got)
						}
					}
				case "notification":
					ts := e["timestamp"].(float64)
					found := false
					for _, n := range notes {
						if NotificationTimestampMs(n.Timestamp) == ts && n.Description == e["description"] {
							found = true
							if got := NotificationStamp(ts); got != n.Timestamp {
								t.Errorf("NotificationStamp(%v) = %+v, stored %+v", ts, got, n.Timestamp)
							}
						}
					}
					if !found {
						t.Errorf("notification %v not found", e)
					}
					nNotes++
				case "stream_profile":
					id := fmt.Sprintf("%v/%v/%v", e["sensor"], e["stream"], e["index"])
					enc, ok := encodings[id]
					if !ok {
						t.Errorf("stream %s: no StreamInfo", id)
						continue
					}
					f, err := ParseEncoding(enc)
					if err != nil || f.String() != e["format"] {
						t.Errorf("stream %s: encoding %q gives %v, %v; expected %v", id, enc, f, err, e["format"])
					}
					if Encoding(f) != enc && filepath.Base(path) != "single_depth_color_640x480.bag" {
						t.Errorf("stream %s: Encoding(%s) = %q, bag has %q", id, f, Encoding(f), enc)
					}
				}
			}
			if nFrames == 0 {
				t.Error("no frames in the expected output")
			}
			t.Logf("%d frames, %d notifications checked", nFrames, nNotes)
		})
	}
}
