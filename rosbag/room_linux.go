package rosbag

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// fallocate modes (linux/falloc.h).
const (
	fallocKeepSize  = 0x01 // FALLOC_FL_KEEP_SIZE
	fallocPunchHole = 0x02 // FALLOC_FL_PUNCH_HOLE
)

// fileRoom reserves room in a file with fallocate.
type fileRoom struct{ f *os.File }

func (r fileRoom) reserveRoom(off, n int64) error {
	return r.fallocate(fallocKeepSize, off, n)
}

func (r fileRoom) releaseRoom(off, n int64) error {
	return r.fallocate(fallocKeepSize|fallocPunchHole, off, n)
}

func (r fileRoom) fallocate(mode uint32, off, n int64) error {
	sc, err := r.f.SyscallConn()
	if err != nil {
		return fmt.Errorf("%w: %w", errors.ErrUnsupported, err)
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Fallocate(int(fd), mode, off, n)
			if ferr != syscall.EINTR {
				break
			}
		}
	}); err != nil {
		return fmt.Errorf("%w: %w", errors.ErrUnsupported, err)
	}
	if ferr != nil {
		return os.NewSyscallError("fallocate", ferr)
	}
	return nil
}
