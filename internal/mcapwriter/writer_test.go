package mcapwriter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rsbag/rsbag/internal/testsupport/conformance"
)

// TestWriterChunks: messages of several channels over many small chunks,
// with every compression, read back in order with their times, sequence
// numbers and bytes, with the statistics and indexes the summary needs;
// mcapcheck-js validates the chunk CRCs and indexes.
func TestWriterChunks(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, c := range []Compression{None, LZ4, Zstd} {
		var buf bytes.Buffer
		w, err := New(&buf, "x", c, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSchema(&mcap.Schema{ID: 1, Name: "t", Encoding: "", Data: nil}); err != nil {
			t.Fatal(err)
		}
		for ch := range uint16(3) {
			if err := w.WriteChannel(&mcap.Channel{ID: ch, SchemaID: 1, Topic: fmt.Sprintf("/c%d", ch), MessageEncoding: "raw"}); err != nil {
				t.Fatal(err)
			}
		}
		const n = 500
		payload := func(i int) []byte { return bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 1+i%1500) }
		for i := range n {
			m := &mcap.Message{ChannelID: uint16(i % 3), Sequence: uint32(i), LogTime: uint64(1000 + i), PublishTime: uint64(2000 + i), Data: payload(i)}
			if err := w.WriteMessage(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteMetadata(&mcap.Metadata{Name: "m", Metadata: map[string]string{"k": "v"}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := w.WriteMessage(&mcap.Message{}); err == nil {
			t.Error("WriteMessage after Close succeeded")
		}
		file := filepath.Join(dir, string(c)+".mcap")
		os.WriteFile(file, buf.Bytes(), 0o644)
		files = append(files, file)

		r, err := mcap.NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		info, err := r.Info()
		if err != nil {
			t.Fatal(err)
		}
		st := info.Statistics
		if st.MessageCount != n || st.ChannelCount != 3 || st.ChunkCount < 10 || st.MessageStartTime != 1000 || st.MessageEndTime != 1000+n-1 || st.MetadataCount != 1 {
			t.Errorf("%s: statistics %+v", c, st)
		}
		for ch := range uint16(3) {
			if st.ChannelMessageCounts[ch] != uint64((n+2-int(ch))/3) {
				t.Errorf("%s: channel %d: %d messages", c, ch, st.ChannelMessageCounts[ch])
			}
		}
		r.Close()
		for _, useIndex := range []bool{true, false} {
			r, err := mcap.NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			order := mcap.LogTimeOrder
			if !useIndex {
				order = mcap.FileOrder
			}
			it, err := r.Messages(mcap.UsingIndex(useIndex), mcap.InOrder(order))
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for {
				var mm mcap.Message
				_, ch, m, err := it.NextInto(&mm)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s (index %v): message %d: %v", c, useIndex, i, err)
				}
				if ch.ID != uint16(i%3) || m.Sequence != uint32(i) || m.LogTime != uint64(1000+i) || m.PublishTime != uint64(2000+i) || !bytes.Equal(m.Data, payload(i)) {
					t.Fatalf("%s (index %v): message %d differs: channel %d seq %d log %d", c, useIndex, i, ch.ID, m.Sequence, m.LogTime)
				}
				i++
			}
			if i != n {
				t.Errorf("%s (index %v): read %d messages, want %d", c, useIndex, i, n)
			}
			r.Close()
		}
	}
	if checker := conformance.Optional(t, conformance.MCAPcheckJS); checker != "" {
		if out, err := exec.Command(checker, append([]string{"-q"}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("mcapcheck-js: %v\n%s", err, out)
		}
	}
}

// failAfter fails every write after n bytes.
type failAfter struct{ n int }

var errFull = errors.New("no space left on device")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriterError: a write error of a chunk is returned by a later call
// or by Close, which still stops the writer's goroutines.
func TestWriterError(t *testing.T) {
	w, err := New(&failAfter{n: 20000}, "x", None, 1024)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSchema(&mcap.Schema{ID: 1, Name: "t"})
	w.WriteChannel(&mcap.Channel{ID: 0, SchemaID: 1, Topic: "/c", MessageEncoding: "raw"})
	var got error
	for i := 0; i < 1000 && got == nil; i++ {
		got = w.WriteMessage(&mcap.Message{ChannelID: 0, LogTime: uint64(i), Data: make([]byte, 500)})
	}
	if cerr := w.Close(); got == nil {
		got = cerr
	}
	if !errors.Is(got, errFull) {
		t.Errorf("error %v, want the write error", got)
	}
}
