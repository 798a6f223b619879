package lz4frame

import "testing"

func BenchmarkXXH32(b *testing.B) {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		XXH32(buf, 0)
	}
}
