//go:build unix

package outfile

import (
	"os"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

// lock takes f's exclusive lock, held until f is closed or its process
// ends.
func lock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// tryLock reports whether f's exclusive lock could be taken: no other
// open file holds it.
func tryLock(f *os.File) bool { return lock(f) == nil }
