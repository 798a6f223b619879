package rsdump

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// TestFNVMany: hashes computed several at a time equal hash/fnv's FNV-1a 64
// of each slice, whatever their lengths and number.
func TestFNVMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bytesOf := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, lens := range [][]int{
		{}, {0}, {5}, {0, 0}, {3, 3}, {1, 100}, {100, 1, 0}, {7, 7, 7, 7}, {64, 3, 17, 0},
		{10, 20, 30, 40, 50}, {1000, 999, 1, 2, 0, 513, 4096, 9},
	} {
		t.Run(fmt.Sprint(lens), func(t *testing.T) {
			data := make([][]byte, len(lens))
			for i, n := range lens {
				data[i] = bytesOf(n)
			}
			sums := make([]uint64, len(data))
			fnvMany(data, sums)
			for i, b := range data {
				h := fnv.New64a()
				h.Write(b)
				if sums[i] != h.Sum64() {
					t.Errorf("slice %d (%d bytes): %016x, want %016x", i, len(b), sums[i], h.Sum64())
				}
			}
		})
	}
}

// BenchmarkFNV hashes four 1280x720 RGB8 outputs one after the other
// (hash/fnv) and together (fnvMany).
func BenchmarkFNV(b *testing.B) {
	data := make([][]byte, 4)
	for i := range data {
		data[i] = make([]byte, 1280*720*3)
	}
	sums := make([]uint64, len(data))
	b.Run("one-by-one", func(b *testing.B) {
		b.SetBytes(int64(4 * len(data[0])))
		for b.Loop() {
			for i, d := range data {
				h := fnv.New64a()
				h.Write(d)
				sums[i] = h.Sum64()
			}
		}
	})
	b.Run("four-together", func(b *testing.B) {
		b.SetBytes(int64(4 * len(data[0])))
		for b.Loop() {
			fnvMany(data, sums)
		}
	})
}
