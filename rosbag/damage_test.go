package rosbag

import (
	"bytes"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenNotRegular: a FIFO or a directory is refused at once with
// ErrNotRegular (opening a FIFO would block until a writer comes), and a
// missing file's error names it once.
func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.bag")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct{ path, kind string }{{fifo, "a FIFO"}, {dir, "a directory"}} {
		r, err := Open(c.path, nil)
		if r != nil || !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.kind) || strings.Count(err.Error(), "rosbag: ") != 1 {
			t.Errorf("Open(%s) = %v, %v; want ErrNotRegular naming %s, the package said once", c.path, r, err, c.kind)
		}
	}
	missing := filepath.Join(dir, "missing.bag")
	_, err := Open(missing, nil)
	if !errors.Is(err, os.ErrNotExist) || strings.Count(err.Error(), missing) != 1 || strings.Contains(err.Error(), "open: open") {
		t.Errorf("Open(missing) error %q: want ErrNotExist naming the file once", err)
	}
}

// TestRecoveryDamaged: a bag that only lacks its index is recovered whole
// (not damaged, no losses); a bag cut in its chunks, or in its header, is
// damaged and its losses say where.
func TestRecoveryDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "good.bag")
	smallBag(t, path, &WriterOptions{Compression: "lz4", ChunkThreshold: 2048, FlushInterval: -1}, 200)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// index_pos is the first field value of the bag header: zero it.
	unindexed := bytes.Clone(data)
	ip := bytes.Index(unindexed, []byte("index_pos=")) + len("index_pos=")
	binary.LittleEndian.PutUint64(unindexed[ip:], 0)
	cases := []struct {
		name    string
		b       []byte
		damaged bool
		lostAt  int64 // offset of the last loss
	}{
		{"unindexed", unindexed, false, 0},
		{"cut in the chunks", unindexed[:len(unindexed)*2/3], true, -1},
		{"magic only", data[:13], true, 13},
		{"cut in the bag header", data[:300], true, 13},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(c.b), int64(len(c.b)), nil)
			if err == nil {
				err = r.Unindexed()
			}
			if r == nil || !errors.Is(err, ErrUnindexed) {
				t.Fatalf("NewReader = %v, %v; want a reader and ErrUnindexed", r, err)
			}
			rc := r.Info().Recovery
			if rc.Damaged() != c.damaged {
				t.Fatalf("Damaged() = %v, want %v (%+v)", rc.Damaged(), c.damaged, rc)
			}
			l := rc.Losses()
			if !c.damaged {
				if len(l) != 0 {
					t.Errorf("losses %+v of an undamaged bag", l)
				}
				return
			}
			if len(l) == 0 {
				t.Fatal("a damaged bag without losses")
			}
			last := l[len(l)-1]
			if c.lostAt >= 0 && last.Offset != c.lostAt {
				t.Errorf("loss at offset %d, want %d", last.Offset, c.lostAt)
			}
			if last.Offset+last.Bytes != int64(len(c.b)) || !errors.Is(last.Err, io.ErrUnexpectedEOF) {
				t.Errorf("loss %+v: want it to reach the end of the %d-byte file, caused by truncation", last, len(c.b))
			}
		})
	}
	var nilRC *Recovery
	if nilRC.Damaged() || nilRC.Losses() != nil {
		t.Error("a nil Recovery (an indexed bag) reports damage")
	}
}

// TestMessageSizeLimit: the Writer refuses a message one byte larger than
// MaxMessageSize before filling it, and goes on writing; MaxMessageSize
// leaves room for the record headers and LZ4's worst-case growth (the LZ4
// block format bound: n + n/255 + 16) within defaultMaxRecordSize.
func TestMessageSizeLimit(t *testing.T) {
	if MaxMessageSize+MaxMessageSize/255+16+4096 > defaultMaxRecordSize {
		t.Fatalf("MaxMessageSize %d leaves no room for LZ4's growth within %d", MaxMessageSize, defaultMaxRecordSize)
	}
	path := filepath.Join(t.TempDir(), "limit.bag")
	w, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := w.AddConnection("/big", "std_msgs/String", stringMD5, stringDef, nil)
	called := false
	err = w.WriteMessageFunc(c, 1, MaxMessageSize+1, func([]byte) { called = true })
	if !errors.Is(err, ErrTooLarge) || called || !strings.Contains(err.Error(), "/big") {
		t.Fatalf("WriteMessageFunc(MaxMessageSize+1) = %v (fill called %v), want ErrTooLarge naming the topic", err, called)
	}
	if err := errors.Join(w.WriteMessage(c, 2, []byte{1, 0, 0, 0, 'x'}), w.Close()); err != nil {
		t.Fatalf("the writer stopped after a refusal: %v", err)
	}
}

// TestMessageSizeLimitRoundTrip: a bag holding a message of exactly
// MaxMessageSize — incompressible, so LZ4 grows it — is read back by a
// Reader with the default limit. It writes 1 GiB: set ROSBAG_BIG=1 (CI runs
// it in a step of its own, without the race detector).
func TestMessageSizeLimitRoundTrip(t *testing.T) {
	if testing.Short() || os.Getenv("ROSBAG_BIG") == "" {
		t.Skip("set ROSBAG_BIG=1 to write a 1 GiB message")
	}
	for _, comp := range []string{"lz4"} { // "none" only makes the chunk smaller
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big.bag")
			w, err := Create(path, &WriterOptions{Compression: comp})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := w.AddConnection("/big", "std_msgs/String", stringMD5, stringDef, nil)
			err = w.WriteMessageFunc(c, 2, MaxMessageSize, func(dst []byte) { // A std_msgs/String of random bytes, incompressible for
				// LZ4 (a 1 MiB random block repeats beyond its 64 KiB
				// window).
				block := make([]byte, 1<<20)
				crand.Read(block)
				binary.LittleEndian.PutUint32(dst, uint32(len(dst)-4))
				for i := 4; i < len(dst); i += len(block) {
					copy(dst[i:], block)
				}
			})
			if err != nil {
				t.Fatalf("a message of MaxMessageSize after a refused one: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path, nil)
			if err != nil {
				t.Fatalf("the reader refuses what the writer wrote: %v", err)
			}
			defer r.Close()
			it := r.Messages(nil)
			n := 0
			for it.Next() {
				if len(it.Message().Data) != MaxMessageSize {
					t.Errorf("message of %d bytes, want %d", len(it.Message().Data), MaxMessageSize)
				}
				n++
			}
			if err := it.Err(); err != nil || n != 1 {
				t.Fatalf("read %d messages: %v", n, err)
			}
		})
	}
}
