//go:build linux

package main

import (
	"os"
	"syscall"
	"unsafe"
)

func ioctlTermios(fd uintptr, req uintptr, t *syscall.Termios) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(t))); e != 0 {
		return e
	}
	return nil
}

// rawTerminal switches f to non-canonical, no-echo input with reads that
// return after at most 0.1 s, so single key presses can be read. Signals
// (Ctrl-C) still work. restore puts the terminal back as it was.
func rawTerminal(f *os.File) (restore func(), err error) {
	fd := f.Fd()
	var old syscall.Termios
	if err := ioctlTermios(fd, syscall.TCGETS, &old); err != nil {
		return nil, err
	}
	raw := old
	raw.Lflag &^= syscall.ICANON | syscall.ECHO
	raw.Cc[syscall.VMIN] = 0
	raw.Cc[syscall.VTIME] = 1
	if err := ioctlTermios(fd, syscall.TCSETS, &raw); err != nil {
		return nil, err
	}
	return func() { ioctlTermios(fd, syscall.TCSETS, &old) }, nil
}
