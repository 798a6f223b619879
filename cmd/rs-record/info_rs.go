package main

import (
	"encoding/binary"

	"github.com/rsbag/rsbag/rosbag"
)

// checkType checks a connection's type and md5sum against the known types.
func checkType(c *rosbag.Connection) error { return nil }

// checkMessage decodes a message with its connection's type.
func checkMessage(m rosbag.Message) error { return nil }

func decodeFileVersion(b []byte) (int, bool) {
	if len(b) != 4 {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(b)), true
}

// realsenseView fills in device, sensors, options and stream profiles.
func (rep *infoReport) realsenseView(path string) {}
