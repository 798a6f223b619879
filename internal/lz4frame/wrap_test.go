package lz4frame

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCompressorBaseWraps checks that the match finder's table, whose
// entries are offset by a base that grows with every block, is cleared
// when the base would wrap: frames compressed across the wrap equal a
// fresh Encoder's and decode to their input.
func TestCompressorBaseWraps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]byte, 3*BlockSize) // short matches everywhere
	for i := range data {
		data[i] = byte(rng.IntN(4))
	}
	var fresh Encoder
	want := fresh.AppendFrame(nil, data)
	var e Encoder
	e.c.base = 1<<32 - 2*BlockSize // the wrap falls in the second block
	for i := 0; i < 3; i++ {
		got := e.AppendFrame(nil, data)
		if !bytes.Equal(got, want) {
			t.Fatalf("frame %d (base %d): %d bytes, a fresh Encoder's %d", i, e.c.base, len(got), len(want))
		}
		out := make([]byte, len(data))
		if _, err := Decode(out, got); err != nil || !bytes.Equal(out, data) {
			t.Fatalf("frame %d: Decode: %v", i, err)
		}
	}
}
