package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReindex(t *testing.T) {
	for _, tc := range []struct {
		file string
		msgs uint64
	}{
		{"none/truncated.bag", 197}, // 27 of them salvaged from the cut chunk
		{"none/unindexed.bag", 301},
		{"lz4/unindexed.bag", 2616},
		{"lz4/index-pos-past-eof.bag", 2616},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "broken", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "x.bag")
		os.WriteFile(path, b, 0o644)
		rc, err := Reindex(path)
		if err != nil || rc == nil {
			t.Fatalf("%s: reindex: %v %v", tc.file, rc, err)
		}
		r, err := Open(path, nil)
		if err != nil {
			t.Fatalf("%s: after reindex: %v", tc.file, err)
		}
		if got := r.Info().Messages; got != tc.msgs {
			t.Errorf("%s: %d messages, want %d", tc.file, got, tc.msgs)
		}
		r.Close()
		if rc2, err := Reindex(path); rc2 != nil || err != nil {
			t.Errorf("%s: second reindex: %v %v", tc.file, rc2, err)
		}
		if rep, ok := runChecker(t, "bagcheck-ros", path, "--lenient"); ok && !rep.OK && tc.msgs > 0 {
			t.Errorf("%s: bagcheck-ros after reindex: %v", tc.file, rep.Errors)
		}
	}
	// One chunk cut inside its only LZ4 block: nothing can be read.
	b, err := os.ReadFile(filepath.Join("testdata", "broken", "lz4", "truncated.bag"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.bag")
	os.WriteFile(path, b, 0o644)
	if _, err := Reindex(path); !errors.Is(err, ErrNothingToRecover) {
		t.Errorf("lz4/truncated.bag: reindex: %v, want ErrNothingToRecover", err)
	}
	if _, err := Reindex(filepath.Join(t.TempDir(), "missing.bag")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestReindexSkippedChunk reindexes an unindexed bag with a corrupt chunk in
// the middle: the chunks around it are indexed, the corrupt one stays in the
// file unreferenced.
func TestReindexSkippedChunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.bag")
	smallBag(t, path, &WriterOptions{ChunkThreshold: 2048, FlushInterval: -1}, 200)
	good, _ := os.ReadFile(path)
	gr, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	mid := len(gr.chunks) / 2
	rec, _, _ := gr.readRecord(gr.chunks[mid].pos, "chunk", nil)
	cMid := 0
	for _, cc := range gr.chunks[mid].counts {
		cMid += int(cc.count)
	}
	bad := messWith(good, func(b []byte) []byte {
		i := bytes.Index(b[:200], []byte("index_pos="))
		binary.LittleEndian.PutUint64(b[i+10:], 0)
		b[rec.end()-1] ^= 0xff // lz4 content checksum
		return b
	})
	os.WriteFile(path, bad, 0o644)
	rc, err := Reindex(path)
	if err != nil || rc == nil || len(rc.Skipped) != 1 {
		t.Fatalf("reindex: %+v %v", rc, err)
	}
	r, err := Open(path, nil)
	if err != nil {
		t.Fatalf("after reindex: %v", err)
	}
	defer r.Close()
	if got, want := r.Info().Messages, gr.Info().Messages-uint64(cMid); got != want {
		t.Errorf("%d messages, want %d", got, want)
	}
	// The corrupt chunk is still in the file: that must be the checker's
	// only complaint.
	if rep, ok := runChecker(t, "bagcheck-ros", path, "--lenient"); ok {
		if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], fmt.Sprintf("chunk #%d at offset %d", mid, rec.off)) {
			t.Errorf("bagcheck-ros after reindex: %v, want one error about chunk #%d", rep.Errors, mid)
		}
		if rep.Messages != int(r.Info().Messages) {
			t.Errorf("bagcheck-ros counts %d messages, want %d", rep.Messages, r.Info().Messages)
		}
	}
}
