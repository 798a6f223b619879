package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"testing"
)

// TestChunkFramingPastItsPart: in an indexed bag, a chunk (or one of its
// index data records) whose length fields run past the next chunk or the
// end of the file is that chunk's damage: SkipCorrupt skips it as a loss
// of its part of the file and reads every other chunk, instead of
// stopping as at the end of a truncated file.
func TestChunkFramingPastItsPart(t *testing.T) {
	good := twoTopicBag(t, "none", 300)
	gr, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	mid := len(gr.chunks) / 2
	ci := gr.chunks[mid]
	rec, _, err := gr.readRecord(ci.pos, "chunk", nil)
	if err != nil {
		t.Fatal(err)
	}
	part := gr.ChunkBytes()[mid]
	var want []seenMsg
	it := gr.Messages(nil)
	for it.Next() {
		if m := it.Message(); m.Chunk != mid {
			want = append(want, seenMsg{m.Conn.ID, m.Time, string(m.Data)})
		}
	}
	hdrLen := int64(binary.LittleEndian.Uint32(good[ci.pos:]))
	for _, tc := range []struct {
		name string
		at   int64  // file offset of the uint32 to overwrite
		v    uint32 // its new value
	}{
		{"data length past the end of the file", ci.pos + 4 + hdrLen, 0x7fff_fff0 >> 8},
		{"data length past the next chunk", ci.pos + 4 + hdrLen, uint32(rec.dataLen + 200)},
		{"header length past the end of the file", ci.pos, 0x00ff_fff0},
		{"index data length past the next chunk", rec.end() + 4 + int64(binary.LittleEndian.Uint32(good[rec.end():])), 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := slices.Clone(good)
			binary.LittleEndian.PutUint32(bad[tc.at:], tc.v)
			r, err := NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Info().Indexed {
				t.Fatal("the bag is not read through its index")
			}
			it := r.Messages(&Query{SkipCorrupt: true})
			got := drain(it)
			if err := it.Err(); err != nil {
				t.Fatalf("SkipCorrupt stopped: %v", err)
			}
			if tc.name == "index data length past the next chunk" {
				// the chunk's records say what it holds: nothing is lost
				if len(got) != 300 || len(it.Skipped()) != 0 || len(it.Repaired()) != 1 {
					t.Fatalf("%d messages, skipped %v, repaired %v; want all 300, the chunk read from its records", len(got), it.Skipped(), it.Repaired())
				}
				return
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%d messages, want the %d outside the damaged chunk", len(got), len(want))
			}
			sk := it.Skipped()
			if len(sk) != 1 || sk[0].Offset != ci.pos || sk[0].Bytes != part || sk[0].Messages != 300-len(want) {
				t.Fatalf("skipped %+v, want chunk at %d, %d bytes, %d messages", sk, ci.pos, part, 300-len(want))
			}
			var fe *FormatError
			if !errors.As(sk[0].Err, &fe) || errors.Is(sk[0].Err, io.ErrUnexpectedEOF) {
				t.Fatalf("skip error %v: want a *FormatError of the chunk, not a truncation", sk[0].Err)
			}
		})
	}
}

// TestChunkInfoEndBeforeStart: a chunk info whose end_time is before its
// start_time makes the index unusable (readers selecting chunks by time
// would each see another part of the bag): the bag is read by a scan, and
// every message is read.
func TestChunkInfoEndBeforeStart(t *testing.T) {
	bag := twoTopicBag(t, "none", 300)
	r, err := NewReader(bytes.NewReader(bag), int64(len(bag)), nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := r.Info().IndexPos
	ends := bytes.Index(bag[idx:], []byte("end_time="))
	if ends < 0 {
		t.Fatal("no chunk info in the index")
	}
	at := idx + int64(ends) + int64(len("end_time="))
	binary.LittleEndian.PutUint64(bag[at:], 0)
	r, err = NewReader(bytes.NewReader(bag), int64(len(bag)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err = r.Unindexed(); r.Info().Indexed || !errors.Is(err, ErrUnindexed) {
		t.Fatalf("indexed %v, Unindexed %v: want a bag recovered by a scan", r.Info().Indexed, err)
	}
	if rc := r.Info().Recovery; rc == nil || !bytes.Contains([]byte(rc.Reason+err.Error()), []byte("before start_time")) {
		t.Fatalf("recovery %+v, error %v: want the chunk info named", rc, err)
	}
	it := r.Messages(nil)
	if got := drain(it); len(got) != 300 || it.Err() != nil {
		t.Fatalf("%d messages, %v; want 300", len(got), it.Err())
	}
}
