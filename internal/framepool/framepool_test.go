package framepool

import (
	"testing"
	"unsafe"
)

// TestGetPut checks that Get gives back the memory Put got, for its size
// only, and new zero bytes otherwise.
func TestGetPut(t *testing.T) {
	b := Get(1 << 20)
	if len(b) != 1<<20 {
		t.Fatalf("Get(1 MiB) has %d bytes", len(b))
	}
	for _, x := range b {
		if x != 0 {
			t.Fatal("a new buffer is not zero")
		}
	}
	b[0] = 7
	Put(b)
	if c := Get(1<<20 + 1); len(c) != 1<<20+1 || c[0] != 0 {
		t.Fatalf("Get of another size: %d bytes, first %d; want new zero bytes", len(c), c[0])
	}
	c := Get(1 << 20)
	// A garbage collection between Put and Get may free the buffer: then
	// Get makes a new one, which is not a failure.
	if unsafe.SliceData(c) == unsafe.SliceData(b) && (len(c) != len(b) || c[0] != 7) {
		t.Fatalf("the buffer given back has %d bytes, first %d", len(c), c[0])
	}
	if Get(0) != nil {
		t.Error("Get(0) is not nil")
	}
	Put(nil) // nothing to keep
}
