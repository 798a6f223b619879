package msgs

import "testing"

// benchImage is a 1280x720 RGB8 frame as the recorder writes it.
func benchImage() *Image {
	const w, h = 1280, 720
	data := make([]byte, w*h*3)
	for i := range data {
		data[i] = byte(i * 7)
	}
	return &Image{
		Header:   Header{Seq: 1234, Stamp: Time{1, 33333000}, FrameID: "0"},
		Height:   h,
		Width:    w,
		Encoding: "rgb8",
		Step:     w * 3,
		Data:     data,
	}
}

func BenchmarkMsgsImageMarshal(b *testing.B) {
	img := benchImage()
	buf := make([]byte, 0, Size(img))
	b.SetBytes(int64(Size(img)))
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], img)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkMsgsImageUnmarshal(b *testing.B) {
	enc := Marshal(benchImage())
	var img Image
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Unmarshal(enc, &img); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkMsgsKeyValueMarshal(b *testing.B) {
	kv := &KeyValue{Key: "Frame Timestamp", Value: "1534232519732"}
	buf := make([]byte, 0, 64)
	b.SetBytes(int64(Size(kv)))
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], kv)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkMsgsKeyValueUnmarshal(b *testing.B) {
	enc := Marshal(&KeyValue{Key: "timestamp_domain", Value: "Hardware Clock"})
	var kv KeyValue
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Unmarshal(enc, &kv); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
