package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// readAll opens b and iterates every message; it returns the open error, the
// iteration error and the message count.
func readAll(b []byte) (r *Reader, n int, openErr, iterErr error) {
	r, openErr = NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if r == nil {
		return nil, 0, openErr, nil
	}
	openErr = r.Unindexed()
	it := r.Messages(nil)
	for it.Next() {
		n++
	}
	return r, n, openErr, it.Err()
}

// TestBrokenBags: every make-broken-bags variant gives a clear error or a
// reported recovery.
func TestBrokenBags(t *testing.T) {
	const lz4All, noneAll = 2616, 301
	tests := []struct {
		file      string
		unindexed bool // open returns ErrUnindexed with a Recovery
		eof       bool // ... and the scan hit the end of the file
		iterErr   bool // iteration stops with a *FormatError
		msgs      int  // messages read
	}{
		{"lz4/truncated.bag", true, true, false, 0}, // the bag has one chunk, one LZ4 block, cut in its middle
		{"lz4/flipped-byte-in-chunk.bag", false, false, true, 0},
		{"lz4/wrong-md5sum.bag", false, false, false, lz4All}, // md5 is checked against msgs types above rosbag
		{"lz4/index-pos-past-eof.bag", true, false, false, lz4All},
		{"lz4/short-message.bag", false, false, false, lz4All}, // message bodies are msgs' concern
		{"lz4/unindexed.bag", true, false, false, lz4All},
		{"lz4/message-trailing-bytes.bag", false, false, false, lz4All},
		{"none/truncated.bag", true, true, false, 197}, // 170 in complete chunks, 27 salvaged from the cut one
		{"none/flipped-byte-in-chunk.bag", false, false, true, 0},
		{"none/wrong-md5sum.bag", false, false, false, noneAll},
		{"none/index-pos-past-eof.bag", true, false, false, noneAll},
		{"none/short-message.bag", false, false, false, noneAll},
		{"none/unindexed.bag", true, false, false, noneAll},
		{"none/message-trailing-bytes.bag", false, false, false, noneAll},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "broken", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			r, n, openErr, iterErr := readAll(b)
			if r == nil {
				t.Fatalf("no reader: %v", openErr)
			}
			if got := errors.Is(openErr, ErrUnindexed); got != tc.unindexed {
				t.Errorf("open error %v, want ErrUnindexed=%v", openErr, tc.unindexed)
			}
			if tc.unindexed && r.Info().Recovery == nil {
				t.Error("no Recovery report")
			}
			if got := errors.Is(openErr, io.ErrUnexpectedEOF); got != tc.eof {
				t.Errorf("open error %v, want io.ErrUnexpectedEOF=%v", openErr, tc.eof)
			}
			var fe *FormatError
			if got := errors.As(iterErr, &fe); got != tc.iterErr {
				t.Errorf("iteration error %v, want FormatError=%v", iterErr, tc.iterErr)
			}
			if n != tc.msgs {
				t.Errorf("%d messages, want %d", n, tc.msgs)
			}
			if rc := r.Info().Recovery; rc != nil {
				t.Logf("recovery: %+v", *rc)
			}
			if openErr != nil {
				t.Logf("open: %v", openErr)
			}
			if iterErr != nil {
				t.Logf("iterate: %v", iterErr)
			}
		})
	}
}

// messWith returns a copy of b changed by fn.
func messWith(b []byte, fn func(b []byte) []byte) []byte {
	return fn(bytes.Clone(b))
}

// TestCorruption is a messWith table over a small multi-chunk bag.
func TestCorruption(t *testing.T) {
	for _, comp := range []string{"lz4", "none"} {
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "good.bag")
			smallBag(t, path, &WriterOptions{Compression: comp, ChunkThreshold: 2048, FlushInterval: -1}, 200)
			good, _ := os.ReadFile(path)
			gr, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
			if err != nil {
				t.Fatal(err)
			}
			total := int(gr.Info().Messages)
			// Top-level record boundaries and messages complete before each.
			type boundary struct {
				off  int64
				msgs int
			}
			var bounds []boundary
			off, msgs := firstRecordPos, 0
			ci := 0
			for off < int64(len(good)) {
				rec, _, err := gr.readRecord(off, "record", nil)
				if err != nil {
					t.Fatal(err)
				}
				bounds = append(bounds, boundary{off, msgs})
				if ci < len(gr.chunks) && gr.chunks[ci].pos == off {
					for _, cc := range gr.chunks[ci].counts {
						msgs += int(cc.count)
					}
					ci++
				}
				off = rec.end()
			}
			for _, bd := range bounds {
				for _, cut := range []int64{bd.off, bd.off + 3, bd.off + 20} {
					r, n, openErr, iterErr := readAll(good[:cut])
					if r == nil || !errors.Is(openErr, ErrUnindexed) || iterErr != nil {
						t.Fatalf("cut at %d: open %v, iterate %v", cut, openErr, iterErr)
					}
					if n != bd.msgs {
						t.Errorf("cut at %d: %d messages, want %d", cut, n, bd.msgs)
					}
				}
			}
			chunk1 := gr.chunks[1].pos
			rec1, _, _ := gr.readRecord(chunk1, "chunk", nil)
			c0 := 0
			for _, cc := range gr.chunks[0].counts {
				c0 += int(cc.count)
			}
			zeroIndexPos := func(b []byte) []byte {
				// index_pos field value: after "index_pos=" in the bag header
				i := bytes.Index(b[:200], []byte("index_pos="))
				binary.LittleEndian.PutUint64(b[i+10:], 0)
				return b
			}
			breakLen := func(b []byte) []byte {
				binary.LittleEndian.PutUint32(b[rec1.dataOff-4:], 0x7fffff00)
				return b
			}
			breakSum := func(b []byte) []byte {
				rec0, _, _ := gr.readRecord(gr.chunks[0].pos, "chunk", nil)
				b[rec0.end()-1] ^= 0xff // content checksum (lz4) / last payload byte (none)
				return b
			}
			// A chunk in the middle whose payload is corrupt but whose record
			// framing is intact: the LZ4 content checksum, or the header length
			// of the first record inside an uncompressed chunk.
			mid := len(gr.chunks) / 2
			recMid, _, _ := gr.readRecord(gr.chunks[mid].pos, "chunk", nil)
			cMid := 0
			for _, cc := range gr.chunks[mid].counts {
				cMid += int(cc.count)
			}
			breakMid := func(b []byte) []byte {
				if comp == "lz4" {
					b[recMid.end()-1] ^= 0xff
				} else {
					binary.LittleEndian.PutUint32(b[recMid.dataOff:], 0x7fffff00)
				}
				return b
			}
			checkMid := func(t *testing.T, r *Reader) {
				rc := r.Info().Recovery
				if rc == nil || len(rc.Skipped) != 1 || rc.Err != nil || rc.Orphans != 0 {
					t.Fatalf("recovery %+v, want one skipped chunk and no error", rc)
				}
				sk := rc.Skipped[0]
				var fe *FormatError
				if sk.Offset != recMid.off || sk.Bytes != recMid.end()-recMid.off || !errors.As(sk.Err, &fe) {
					t.Errorf("skipped %+v, want offset %d, %d bytes, a *FormatError", sk, recMid.off, recMid.end()-recMid.off)
				}
				if comp == "lz4" && (sk.Messages != cMid || sk.Start != gr.chunks[mid].start || sk.End != gr.chunks[mid].end) {
					t.Errorf("skipped %d messages in [%v, %v], want %d in [%v, %v]", sk.Messages, sk.Start, sk.End, cMid, gr.chunks[mid].start, gr.chunks[mid].end)
				}
				if rc.Chunks != len(gr.chunks)-1 || rc.DataEnd != gr.info.IndexPos {
					t.Errorf("recovered %d chunks up to %d, want %d up to %d", rc.Chunks, rc.DataEnd, len(gr.chunks)-1, gr.info.IndexPos)
				}
				// Messages before and after the skipped chunk, in time order.
				var want []Time
				it := gr.Messages(nil)
				for it.Next() {
					if it.Message().Chunk != mid {
						want = append(want, it.Message().Time)
					}
				}
				var got []Time
				it = r.Messages(nil)
				for it.Next() {
					got = append(got, it.Message().Time)
				}
				if it.Err() != nil || !slices.Equal(got, want) {
					t.Errorf("recovered %d messages (err %v), want the %d outside the skipped chunk", len(got), it.Err(), len(want))
				}
			}
			type corruptCase struct {
				name      string
				mess      func([]byte) []byte
				unindexed bool
				iterErr   bool
				msgs      int
				check     func(*testing.T, *Reader)
			}
			cases := []corruptCase{
				{"zero index_pos", zeroIndexPos, true, false, total, nil},
				{"chunk length", breakLen, false, true, -1, nil},
				{"chunk length unindexed", func(b []byte) []byte { return breakLen(zeroIndexPos(b)) }, true, false, c0, nil},
				{"bad header length in index", func(b []byte) []byte {
					binary.LittleEndian.PutUint32(b[gr.info.IndexPos:], 0xfffffff0)
					return b
				}, true, false, total, nil},
				{"corrupt chunk payload", breakMid, false, true, -1, nil},
				{"corrupt chunk payload unindexed", func(b []byte) []byte { return breakMid(zeroIndexPos(b)) }, true, false, total - cMid, checkMid},
				// The first chunk holds the connection records: the messages
				// of the later chunks are dropped and counted as orphans.
				{"corrupt first chunk unindexed", func(b []byte) []byte {
					rec0, _, _ := gr.readRecord(gr.chunks[0].pos, "chunk", nil)
					binary.LittleEndian.PutUint32(b[rec0.dataOff:], 0x7fffff00)
					return zeroIndexPos(b)
				}, true, false, 0, func(t *testing.T, r *Reader) {
					rc := r.Info().Recovery
					if len(rc.Skipped) != 1 || rc.Orphans != total-c0 || rc.Err != nil {
						t.Errorf("recovery %+v, want 1 skipped chunk and %d orphans", rc, total-c0)
					}
				}},
			}
			if comp == "lz4" {
				cases = append(cases, corruptCase{"lz4 checksum", breakSum, false, true, -1, nil})
			}
			for _, tc := range cases {
				r, n, openErr, iterErr := readAll(messWith(good, tc.mess))
				if r == nil {
					t.Fatalf("%s: %v", tc.name, openErr)
				}
				if errors.Is(openErr, ErrUnindexed) != tc.unindexed || (iterErr != nil) != tc.iterErr {
					t.Errorf("%s: open %v, iterate %v", tc.name, openErr, iterErr)
				}
				var fe *FormatError
				if tc.iterErr && !errors.As(iterErr, &fe) {
					t.Errorf("%s: %v, want *FormatError", tc.name, iterErr)
				}
				if tc.msgs >= 0 && n != tc.msgs {
					t.Errorf("%s: %d messages, want %d", tc.name, n, tc.msgs)
				}
				if tc.check != nil {
					t.Run(tc.name, func(t *testing.T) { tc.check(t, r) })
				}
				t.Logf("%s: open %v; iterate %v", tc.name, openErr, iterErr)
			}
		})
	}
}

// FuzzReader: NewReader plus a full iteration never panics and never
// allocates beyond the input's bounds.
func FuzzReader(f *testing.F) {
	for _, p := range []string{"testdata/broken/lz4/*.bag", "testdata/broken/none/truncated.bag", "testdata/broken/none/unindexed.bag", "testdata/fuzzseed/*.bag"} {
		m, _ := filepath.Glob(p)
		for _, name := range m {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, _ := NewReader(bytes.NewReader(b), int64(len(b)), &ReaderOptions{MaxRecordSize: 64 << 20})
		if r == nil {
			return
		}
		it := r.Messages(nil)
		for it.Next() {
			_ = it.Message()
		}
		it2 := r.Messages(&Query{Start: r.Info().Start + 1, End: r.Info().End})
		it2.Seek(r.Info().End / 2)
		for it2.Next() {
		}
	})
}
