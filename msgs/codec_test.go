package msgs

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"
)

func sampleImage() *Image {
	return &Image{
		Header:   Header{Seq: 7, Stamp: Time{1, 33333000}, FrameID: "0"},
		Height:   2,
		Width:    3,
		Encoding: "rgb8",
		Step:     9,
		Data:     []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18},
	}
}

func TestImageDepthUnits(t *testing.T) {
	img := sampleImage()
	img.Header.FrameID = "1"
	plain := Marshal(img)

	// frame_id "1" without the 4 trailing bytes: tolerated.
	var got Image
	if err := Unmarshal(plain, &got); err != nil {
		t.Fatalf("frame_id 1 without depth_units: %v", err)
	}
	if got.HasDepthUnits {
		t.Error("HasDepthUnits set without trailing bytes")
	}

	// With them (what librealsense writes).
	img.DepthUnits, img.HasDepthUnits = 0.001, true
	withDU := Marshal(img)
	if len(withDU) != len(plain)+4 || !bytes.Equal(withDU[:len(plain)], plain) {
		t.Fatal("depth_units not appended after data")
	}
	if math.Float32frombits(uint32(withDU[len(plain)])|uint32(withDU[len(plain)+1])<<8|uint32(withDU[len(plain)+2])<<16|uint32(withDU[len(plain)+3])<<24) != 0.001 {
		t.Fatal("depth_units bytes wrong")
	}
	if err := Unmarshal(withDU, &got); err != nil {
		t.Fatal(err)
	}
	if !got.HasDepthUnits || got.DepthUnits != 0.001 {
		t.Errorf("got DepthUnits %v/%v", got.DepthUnits, got.HasDepthUnits)
	}
	if !bytes.Equal(Marshal(&got), withDU) {
		t.Error("re-encoding differs")
	}

	// Other frame_ids never read depth_units: 4 extra bytes are trailing bytes.
	img.Header.FrameID = "0"
	b := append(Marshal(img), 0, 0, 0, 0) // HasDepthUnits is still set
	b = b[:len(b)-4]
	err := Unmarshal(b, &got)
	if !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("frame_id 0 + 4 bytes: err %v, want ErrTrailingBytes", err)
	}
	if got.HasDepthUnits {
		t.Error("frame_id 0 must not read depth_units")
	}
}

func TestImageDataIsView(t *testing.T) {
	b := Marshal(sampleImage())
	var img Image
	if err := Unmarshal(b, &img); err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] = 99
	if img.Data[len(img.Data)-1] != 99 {
		t.Error("Image.Data is a copy")
	}
	if cap(img.Data) != len(img.Data) {
		t.Error("Image.Data capacity reaches past the field")
	}
}

func TestStreamInfoBoolTwo(t *testing.T) {
	// is_recommended as librealsense writes it for a default profile.
	b := []byte{30, 0, 0, 0, 6, 0, 0, 0, 'm', 'o', 'n', 'o', '1', '6', 2}
	var si StreamInfo
	if err := Unmarshal(b, &si); err != nil {
		t.Fatal(err)
	}
	if si.Fps != 30 || si.Encoding != "mono16" || !si.IsRecommended.Bool() || si.IsRecommended != 2 {
		t.Errorf("got %+v", si)
	}
	if !bytes.Equal(Marshal(&si), b) {
		t.Error("re-encoding changed the raw bool")
	}
	si.IsRecommended = BoolOf(true)
	if got := Marshal(&si); got[len(got)-1] != 1 {
		t.Error("BoolOf(true) is not 1")
	}
	if BoolOf(false) != 0 || Bool(0).Bool() {
		t.Error("false is not 0")
	}
}

func TestDecodeErrorMessage(t *testing.T) {
	img := &Image{Header: Header{FrameID: "0"}, Height: 480, Width: 640, Encoding: "mono16", Step: 1280, Data: make([]byte, 614400)}
	b := Marshal(img)
	// Header 4+8+4+1 = 17, height/width 8, encoding 4+6, is_bigendian 1, step 4 -> data length at 40, bytes at 44 (the offset reported).
	short := b[:44+12]
	var got Image
	err := Unmarshal(short, &got)
	const want = "msgs: sensor_msgs/Image: field data: need 614400 bytes at offset 44, have 12"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	var de *DecodeError
	if !errors.As(err, &de) || de.Type != "sensor_msgs/Image" || de.Field != "data" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("DecodeError = %+v", de)
	}

	// A nested field is named by its path.
	err = Unmarshal(b[:10], &got)
	const want2 = "msgs: sensor_msgs/Image: field header.stamp: need 8 bytes at offset 4, have 6"
	if err == nil || err.Error() != want2 {
		t.Errorf("err = %v\nwant  %s", err, want2)
	}
	err = Unmarshal([]byte{1, 2}, (&KeyValue{}))
	const want3 = "msgs: diagnostic_msgs/KeyValue: field key: need 4 bytes at offset 0, have 2"
	if err == nil || err.Error() != want3 {
		t.Errorf("err = %v\nwant  %s", err, want3)
	}
	err = Unmarshal([]byte{1, 2, 3, 4, 5}, (&UInt32{}))
	const want4 = "msgs: std_msgs/UInt32: 1 trailing bytes at offset 4"
	if err == nil || err.Error() != want4 || !errors.Is(err, ErrTrailingBytes) {
		t.Errorf("err = %v\nwant  %s", err, want4)
	}
}

// TestHugeCountsDoNotAllocate: counts larger than the input are rejected
// before any allocation.
func TestHugeCountsDoNotAllocate(t *testing.T) {
	huge := []byte{0xff, 0xff, 0xff, 0x7f}
	cases := []struct {
		m Message
		b []byte
	}{
		{new(Log), append(make([]byte, 17+1+16+4), huge...)},
		{new(CameraInfo), append(make([]byte, 16+8+4), huge...)},
		{new(String), huge},
	}
	for _, c := range cases {
		allocs := testing.AllocsPerRun(10, func() { _ = Unmarshal(c.b, c.m) })
		err := Unmarshal(c.b, c.m)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err %v", c.m.Type(), err)
		}
		if allocs > 2 { // the error value and its field path
			t.Errorf("%s: %v allocations for a huge count", c.m.Type(), allocs)
		}
	}
}

// filledMessages returns a message of every type with every field non-zero
// (those of file version 1 are internal/legacymsgs' and tested there).
func filledMessages() []Message {
	h := Header{Seq: 1, Stamp: Time{2, 3}, FrameID: "frame"}
	v := Vector3{1.5, -2.5, 3.25}
	q := Quaternion{0.1, 0.2, 0.3, -0.9}
	ci := CameraInfo{Header: h, Height: 480, Width: 640, DistortionModel: "Brown Conrady", D: []float64{1, 2, 3, 4, 5},
		K: [9]float64{1, 0, 2, 0, 3, 4, 0, 0, 1}, R: [9]float64{1}, P: [12]float64{2}, BinningX: 1, BinningY: 2,
		ROI: RegionOfInterest{1, 2, 3, 4, 1}}
	return []Message{
		&KeyValue{"Name", "Stereo Module"},
		&Accel{v, v}, &q, &Transform{v, q}, &Twist{v, v}, &v,
		&ImuIntrinsic{Data: [12]float32{1, 0, 0, 0.5}, NoiseVariances: [3]float32{1, 2, 3}, BiasVariances: [3]float32{4, 5, 6}},
		&Notification{Time{1795, 239705530}, "Hardware Event", "Info", "desc", "{}"},
		&StreamInfo{30, "mono16", 2},
		&Log{h, LogWarn, "n", "m", "f", "fn", 42, []string{"/a", "/b"}},
		&ci,
		sampleImage(),
		&Imu{h, q, [9]float64{1}, v, [9]float64{2}, v, [9]float64{3}},
		&ci.ROI,
		&TimeReference{h, Time{4, 5}, "src"},
		&Float32{0.001},
		&h,
		&String{"Decimation Filter"},
		&StdTime{Time{6, 7}},
		&UInt32{4},
	}
}

// TestRoundTripAllTypes encodes a filled value of every type, decodes it and
// checks every truncation is an error, never a panic.
func TestRoundTripAllTypes(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range filledMessages() {
		name := m.Type().Name
		seen[name] = true
		b := Marshal(m)
		if len(b) != Size(m) {
			t.Errorf("%s: Size %d, encoded %d", name, Size(m), len(b))
		}
		m2 := New(name)
		if err := Unmarshal(b, m2); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(Marshal(m2), b) {
			t.Errorf("%s: round trip differs", name)
		}
		for n := 0; n < len(b); n++ {
			err := Unmarshal(b[:n], m2)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%s truncated to %d bytes: err %v", name, n, err)
			}
		}
		if err := Unmarshal(append(bytes.Clone(b), 0), m2); !errors.Is(err, ErrTrailingBytes) {
			t.Errorf("%s + 1 byte: err %v", name, err)
		}
		// Append appends after existing content.
		pre := []byte("xyz")
		if got := Append(pre, m); !bytes.Equal(got[:3], pre) || !bytes.Equal(got[3:], b) {
			t.Errorf("%s: Append does not append", name)
		}
	}
	for _, typ := range types() {
		if !seen[typ.Name] {
			t.Errorf("%s not covered", typ.Name)
		}
	}
}

func TestAppendZeroAlloc(t *testing.T) {
	for _, m := range filledMessages() {
		buf := make([]byte, 0, Size(m))
		if a := testing.AllocsPerRun(20, func() { _ = Append(buf[:0], m) }); a != 0 {
			t.Errorf("%s: Append with capacity allocates %v times", m.Type().Name, a)
		}
	}
}
