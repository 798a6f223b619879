// Package benchbag writes the large bag the benchmarks of several packages
// share, so that their figures are for the same data. It is for tests only.
package benchbag

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// Write writes to path a bag of 1280x720 Z16 depth and RGB8 color
// frames at 30 fps (file version 3 topics, chunks compressed with
// compression: "none", "lz4" or "bz2") holding at least size bytes of
// frame data, and returns the bytes of frame data written. Benchmarks
// share it so their figures are for the same bag.
func Write(tb testing.TB, path, compression string, size int64) int64 {
	tb.Helper()
	w, err := rosbag.Create(path, &rosbag.WriterOptions{Compression: compression})
	if err != nil {
		tb.Fatal(err)
	}
	conns := map[string]uint32{}
	var buf []byte
	write := func(topic string, t rosbag.Time, m msgs.Message) {
		id, ok := conns[topic]
		if !ok {
			typ := m.Type()
			if id, err = w.AddConnection(topic, typ.Name, typ.MD5, typ.Definition, nil); err != nil {
				tb.Fatal(err)
			}
			conns[topic] = id
		}
		buf = msgs.Append(buf[:0], m)
		if err := w.WriteMessage(id, t, buf); err != nil {
			tb.Fatal(err)
		}
	}
	static := rosbag.Time(layout.StaticTimeNs)
	write(layout.FileVersionTopic, static, &msgs.UInt32{Data: layout.VersionLatest})
	write(layout.DeviceInfoTopic(), static, &msgs.KeyValue{Key: "Name", Value: "bench"})
	type stream struct {
		sensor  int
		stream  sensor.Stream
		format  sensor.Format
		bpp     int
		name    string
		payload []byte
	}
	const width, height = 1280, 720
	streams := []*stream{
		{sensor: 0, stream: sensor.StreamDepth, format: sensor.FormatZ16, bpp: 2, name: "Stereo Module"},
		{sensor: 1, stream: sensor.StreamColor, format: sensor.FormatRGB8, bpp: 3, name: "RGB Camera"},
	}
	for i, s := range streams {
		write(layout.SensorInfoTopic(s.sensor), static, &msgs.KeyValue{Key: "Name", Value: s.name})
		write(layout.StreamInfoTopic(s.sensor, s.stream, 0), static,
			&msgs.StreamInfo{Fps: 30, Encoding: layout.Encoding(s.format), IsRecommended: msgs.BoolOf(true)})
		write(layout.CameraInfoTopic(s.sensor, s.stream, 0), static, &msgs.CameraInfo{Height: height, Width: width,
			DistortionModel: "Brown Conrady", D: make([]float64, 5),
			K: [9]float64{600, 0, width / 2, 0, 600, height / 2, 0, 0, 1}})
		s.payload = make([]byte, width*height*s.bpp)
		for j := range s.payload {
			x, y := (j/s.bpp)%width, (j/s.bpp)/width
			s.payload[j] = byte(x/8*(i+3) + y/8*5 + j%s.bpp*50)
		}
	}
	var total int64
	for n := 0; total < size; n++ {
		for i, s := range streams {
			t := rosbag.Time(1000 + int64(n)*33_333_333 + int64(i)*400_000)
			binary.LittleEndian.PutUint32(s.payload, uint32(n)) // frames differ
			data, _ := layout.FrameDataTopic(s.sensor, s.stream, 0)
			meta, _ := layout.FrameMetadataTopic(s.sensor, s.stream, 0)
			write(data, t, &msgs.Image{Header: msgs.Header{Seq: uint32(n + 1),
				Stamp: layout.FrameStamp(12_345_678 + float64(n)*33.333333), FrameID: msgs.DepthUnitsFrameID},
				Height: height, Width: width, Encoding: layout.Encoding(s.format), Step: uint32(width * s.bpp), Data: s.payload,
				DepthUnits: 0.001, HasDepthUnits: true})
			write(meta, t, &msgs.KeyValue{Key: layout.KeyTimestampDomain, Value: "Hardware Clock"})
			write(meta, t, &msgs.KeyValue{Key: "Frame Counter", Value: fmt.Sprint(n + 1)})
			total += int64(len(s.payload))
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return total
}
