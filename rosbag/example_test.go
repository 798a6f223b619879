package rosbag_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rsbag/rsbag/rosbag"
)

func ExampleNewWriter() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "example.bag")
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	w, err := rosbag.NewWriter(f, nil) // lz4 chunks of 768 KiB, as librealsense writes
	if err != nil {
		log.Fatal(err)
	}
	conn, err := w.AddConnection("/file_version", "std_msgs/UInt32", "304a39449588c7f8ce2df6e8001c5fce", "uint32 data\n", nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.WriteMessage(conn, rosbag.MinTime, []byte{4, 0, 0, 0}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil { // writes the index; f stays open
		log.Fatal(err)
	}
	f.Close()

	r, err := rosbag.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	it := r.Messages(&rosbag.Query{Topics: []string{"/file_version"}})
	for it.Next() {
		m := it.Message()
		fmt.Println(m.Conn.Topic, m.Conn.Type, m.Time, m.Data)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output: /file_version std_msgs/UInt32 0.000000001 [4 0 0 0]
}

func ExampleOpen() {
	r, err := rosbag.Open("../testdata/librealsense/real/single_depth_color_640x480.bag", nil)
	if err != nil {
		log.Fatal(err) // an unindexed bag opens too: r.Unindexed() then says what was recovered
	}
	defer r.Close()
	in := r.Info()
	fmt.Println(in.Version, r.Compression(), in.Chunks, in.Connections, in.Messages, in.Start, in.End)
	it := r.Messages(nil)
	it.Seek(in.End) // O(log chunks)
	for it.Next() {
		fmt.Println(it.Message().Conn.Topic)
	}
	// Output:
	// 2.0 [lz4] 2 70 135 0.000000001 0.167934700
	// /device_0/sensor_0/Depth_0/image/data
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
	// /device_0/sensor_0/Depth_0/image/metadata
}
