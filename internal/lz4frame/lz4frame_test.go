package lz4frame

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// TestXXH32 checks XXH32 against the content checksum the LZ4 reference
// port writes (pierrec/lz4's frame writer), for lengths that end in every
// part of the algorithm (the four lanes, the 4-byte words, the bytes), and
// that Decode reads that writer's frames and verifies the checksum.
func TestXXH32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 4, 5, 15, 16, 17, 19, 31, 32, 33, 64, 100, 1000, 65536 + 7, 1<<20 + 13, 3<<20 + 5} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.IntN(8)) // compressible, and not all equal
		}
		var frame bytes.Buffer
		w := lz4.NewWriter(&frame)
		// 64 KiB blocks: the larger inputs span many blocks, with the
		// checksum computed block by block.
		if err := w.Apply(lz4.ChecksumOption(true), lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fb := frame.Bytes()
		want := binary.LittleEndian.Uint32(fb[len(fb)-4:])
		if got := XXH32(data, 0); got != want {
			t.Errorf("XXH32 of %d bytes = %08x, the reference writer's content checksum is %08x", n, got, want)
		}
		out := make([]byte, n)
		if m, err := Decode(out, fb); err != nil || m != n || !bytes.Equal(out, data) {
			t.Errorf("%d bytes: Decode = %d, %v; equal %v", n, m, err, bytes.Equal(out, data))
		}
		fb[len(fb)-1] ^= 1
		if _, err := Decode(out, fb); err == nil {
			t.Errorf("%d bytes: a wrong content checksum decodes", n)
		}
	}
	// The specification's value for the empty input with seed 0.
	if got := XXH32(nil, 0); got != 0x02CC5D05 {
		t.Errorf("XXH32(empty) = %08x, want 02cc5d05", got)
	}
}

// TestAppendFrameSum checks that frames with and without the content
// checksum decode in the reference port's reader (pierrec/lz4) and in
// Decode, that only the frame with the checksum carries it (FLG bit 2 and
// four more bytes), and that incompressible blocks are stored.
func TestAppendFrameSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 100, BlockSize, BlockSize + 1, 3*BlockSize + 17} {
		for _, random := range []bool{false, true} {
			data := make([]byte, n)
			for i := range data {
				if random {
					data[i] = byte(rng.Uint32())
				} else {
					data[i] = byte(i / 64 % 7)
				}
			}
			var e Encoder
			with, without := e.AppendFrameSum(nil, data, true), e.AppendFrameSum(nil, data, false)
			if !bytes.Equal(with, e.AppendFrame(nil, data)) {
				t.Errorf("%d bytes: AppendFrame differs from AppendFrameSum(sum=true)", n)
			}
			if with[4]&flgContentSum == 0 || without[4]&flgContentSum != 0 || len(with) != len(without)+4 {
				t.Errorf("%d bytes: FLG %02x/%02x, lengths %d/%d: want the checksum bit and 4 bytes only with sum", n, with[4], without[4], len(with), len(without))
			}
			for _, f := range [][]byte{with, without} {
				got, err := io.ReadAll(lz4.NewReader(bytes.NewReader(f)))
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("%d bytes (random %v, FLG %02x): reference reader: %d bytes, %v", n, random, f[4], len(got), err)
				}
				out := make([]byte, n)
				if m, err := Decode(out, f); err != nil || m != n || !bytes.Equal(out, data) {
					t.Errorf("%d bytes (random %v, FLG %02x): Decode = %d, %v", n, random, f[4], m, err)
				}
			}
		}
	}
}
