//go:build !cgo

package main

// Without cgo (CGO_ENABLED=0) there is no C interface to export: the
// package builds, as every package of the module does, to a program that
// does nothing. The library needs cgo (README.md, capi).
func main() {}
