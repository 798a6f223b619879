//go:build !linux

package main

import (
	"errors"
	"os"
)

// rawTerminal is only implemented on Linux; elsewhere play has no key
// commands.
func rawTerminal(f *os.File) (restore func(), err error) {
	return nil, errors.New("key commands are only supported on Linux")
}
