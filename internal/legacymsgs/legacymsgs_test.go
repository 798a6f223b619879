package legacymsgs

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/rsbag/rsbag/msgs"
)

// filledMessages returns a message of every type with every field non-zero.
func filledMessages() []msgs.Message {
	h := msgs.Header{Seq: 1, Stamp: msgs.Time{Sec: 2, Nsec: 3}, FrameID: "frame"}
	v := msgs.Vector3{X: 1.5, Y: -2.5, Z: 3.25}
	q := msgs.Quaternion{X: 0.1, Y: 0.2, Z: 0.3, W: -0.9}
	ci := msgs.CameraInfo{Header: h, Height: 480, Width: 640, DistortionModel: "Brown Conrady", D: []float64{1, 2, 3, 4, 5},
		K: [9]float64{1, 0, 2, 0, 3, 4, 0, 0, 1}, R: [9]float64{1}, P: [12]float64{2}, BinningX: 1, BinningY: 2,
		ROI: msgs.RegionOfInterest{XOffset: 1, YOffset: 2, Height: 3, Width: 4, DoRectify: 1}}
	ext := StreamExtrinsics{Extrinsics: Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, Translation: [3]float32{0.1, 0.2, 0.3}}, ReferencePointID: 5}
	mi := MotionIntrinsics{Data: [12]float32{1, 2}, NoiseVariances: [3]float32{3}, BiasVariances: [3]float32{4}}
	return []msgs.Message{
		&ext.Extrinsics,
		&FrameInfo{SystemTime: 9, FrameMetadata: []Metadata{{1, []byte{1, 2}}, {2, []byte{}}}, TimeStampDomain: 2},
		&Metadata{3, []byte{4, 5, 6}},
		&mi,
		&MotionStreamInfo{"ACCLEROMETER", 200, mi, ext},
		&Pose{v, q, v, v, v, v, 10, 11},
		&ext,
		&StreamInfo{"DEPTH", 30, ci, ext, 640, 480, "mono16"},
		&VendorData{"sensor_count", "2"},
	}
}

// TestRoundTripAllTypes encodes a filled value of every type, decodes it,
// and checks that every truncation and a trailing byte give a
// *msgs.DecodeError, never a panic, and that AppendTo appends.
func TestRoundTripAllTypes(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range filledMessages() {
		name := m.Type().Name
		seen[name] = true
		b := msgs.Marshal(m)
		if len(b) != msgs.Size(m) {
			t.Errorf("%s: Size %d, encoded %d", name, msgs.Size(m), len(b))
		}
		m2 := New(name)
		if err := msgs.Unmarshal(b, m2); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(msgs.Marshal(m2), b) {
			t.Errorf("%s: round trip differs", name)
		}
		for n := 0; n < len(b); n++ {
			err := msgs.Unmarshal(b[:n], m2)
			var de *msgs.DecodeError
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &de) || de.Type != name {
				t.Fatalf("%s truncated to %d bytes: err %v", name, n, err)
			}
		}
		if err := msgs.Unmarshal(append(bytes.Clone(b), 0), m2); !errors.Is(err, msgs.ErrTrailingBytes) {
			t.Errorf("%s + 1 byte: err %v", name, err)
		}
		pre := []byte("xyz")
		if got := msgs.Append(pre, m); !bytes.Equal(got[:3], pre) || !bytes.Equal(got[3:], b) {
			t.Errorf("%s: AppendTo does not append", name)
		}
	}
	for _, typ := range Types() {
		if !seen[typ.Name] {
			t.Errorf("%s not covered", typ.Name)
		}
		if m := New(typ.Name); m == nil || m.Type() != typ {
			t.Errorf("New(%q) = %v", typ.Name, m)
		}
	}
	if New("realsense_msgs/StreamInfo") != nil {
		t.Error("New of a type of package msgs is not nil")
	}
}

// TestNestedFieldPath: a short field of a msgs type inside a legacy
// message is named by its dotted path, as msgs names its own nested fields.
func TestNestedFieldPath(t *testing.T) {
	b := msgs.Marshal(&Pose{})
	err := msgs.Unmarshal(b[:30], new(Pose))
	const want = "msgs: realsense_legacy_msgs/pose: field rotation.x: need 8 bytes at offset 24, have 6"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

func TestAppendToZeroAlloc(t *testing.T) {
	for _, m := range filledMessages() {
		buf := make([]byte, 0, msgs.Size(m))
		if a := testing.AllocsPerRun(20, func() { _ = msgs.Append(buf[:0], m) }); a != 0 {
			t.Errorf("%s: AppendTo with capacity allocates %v times", m.Type().Name, a)
		}
	}
}

// TestHugeCountsDoNotAllocate: counts larger than the input are rejected
// before any allocation.
func TestHugeCountsDoNotAllocate(t *testing.T) {
	b := append(make([]byte, 8), 0xff, 0xff, 0xff, 0x7f)
	m := new(FrameInfo)
	allocs := testing.AllocsPerRun(10, func() { _ = msgs.Unmarshal(b, m) })
	if err := msgs.Unmarshal(b, m); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err %v", err)
	}
	if allocs > 2 { // the error value and its field path
		t.Errorf("%v allocations for a huge count", allocs)
	}
}
