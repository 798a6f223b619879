//go:build !linux

package rosbag

import (
	"errors"
	"os"
)

// fileRoom reserves no room: only Linux's fallocate does.
type fileRoom struct{ f *os.File }

func (fileRoom) reserveRoom(off, n int64) error { return errors.ErrUnsupported }
func (fileRoom) releaseRoom(off, n int64) error { return errors.ErrUnsupported }
