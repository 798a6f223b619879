package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
)

// smallDisk is a file on a disk of capacity bytes, as a file system sees
// it: a write needs room only for the bytes it adds past the blocks the
// file holds (overwriting them never fails), and a write that does not fit
// writes what fits and fails with ENOSPC. With reserves, it also takes the
// writer's reservations (fallocate with FALLOC_FL_KEEP_SIZE: blocks past
// the end, the size unchanged); without, it refuses them as a file system
// without fallocate does.
type smallDisk struct {
	buf      []byte // the file's bytes (its size is len(buf))
	pos      int64
	alloc    int64 // bytes the file holds blocks for, at least len(buf)
	capacity int64
	reserves bool
	reserved int // calls to reserve
}

var errNoSpace = &os.PathError{Op: "write", Path: "small.bag", Err: syscall.ENOSPC}

func (d *smallDisk) Write(p []byte) (int, error) {
	n := int64(len(p))
	var err error
	if end := d.pos + n; end > d.alloc && end > d.capacity {
		n, err = max(min(d.capacity, int64(len(p))+d.pos)-d.pos, 0), errNoSpace
	}
	if end := d.pos + n; end > int64(len(d.buf)) {
		d.buf = append(d.buf, make([]byte, end-int64(len(d.buf)))...)
	}
	copy(d.buf[d.pos:], p[:n])
	d.pos += n
	d.alloc = max(d.alloc, d.pos)
	return int(n), err
}

func (d *smallDisk) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += d.pos
	case io.SeekEnd:
		off += int64(len(d.buf))
	}
	d.pos = off
	return off, nil
}

func (d *smallDisk) Truncate(n int64) error {
	if n < int64(len(d.buf)) {
		d.buf = d.buf[:n]
	}
	d.alloc = int64(len(d.buf))
	return nil
}

func (d *smallDisk) reserveRoom(off, n int64) error {
	if !d.reserves {
		return errors.ErrUnsupported
	}
	if off+n > max(d.capacity, d.alloc) {
		return &os.SyscallError{Syscall: "fallocate", Err: syscall.ENOSPC}
	}
	d.reserved++
	d.alloc = max(d.alloc, off+n)
	return nil
}

func (d *smallDisk) releaseRoom(off, n int64) error {
	d.alloc = max(int64(len(d.buf)), off)
	return nil
}

// TestDiskFullKeepsIndex: a disk that fills up during a recording, at any
// point, leaves a bag that opens indexed. With room reserved for the index
// as the bag grows, it holds every message flushed before the failure;
// without reservations (a writer that cannot reserve), the index goes
// where the chunks it lists leave room for it. Close's error says the disk
// is full (ENOSPC), not that the index is missing.
func TestDiskFullKeepsIndex(t *testing.T) {
	for _, reserves := range []bool{true, false} {
		for _, comp := range []string{"lz4", "none"} {
			for capacity := int64(200); capacity < 120_000; capacity = capacity*23/20 + 97 {
				name := fmt.Sprintf("reserves=%v/%s/capacity=%d", reserves, comp, capacity)
				disk := &smallDisk{capacity: capacity, reserves: reserves}
				w, err := NewWriter(disk, &WriterOptions{Compression: comp, ChunkThreshold: 2048, Workers: 2})
				if err != nil {
					if !errors.Is(err, syscall.ENOSPC) {
						t.Fatalf("%s: NewWriter: %v", name, err)
					}
					continue
				}
				var conns []uint32
				for i := range 3 {
					c, err := w.AddConnection(fmt.Sprintf("/topic%d", i), "std_msgs/String", stringMD5, stringDef, nil)
					if err != nil {
						t.Fatal(err)
					}
					conns = append(conns, c)
				}
				rng := rand.New(rand.NewPCG(2, uint64(capacity)))
				accepted, flushed := 0, 0
				for i := 0; i < 5000; i++ {
					n := 20 + rng.IntN(300)
					d := binary.LittleEndian.AppendUint32(nil, uint32(n))
					for range n {
						d = append(d, byte('a'+rng.IntN(26)))
					}
					c := conns[0]
					if i > 40 { // a connection first seen later
						c = conns[rng.IntN(len(conns))]
					}
					if w.WriteMessage(c, Time(1e9+int64(i)*1e6), d) != nil {
						break
					}
					accepted++
					if i%16 == 15 {
						if w.Flush() != nil {
							break
						}
						flushed = accepted
					}
				}
				cerr := w.Close()
				if !errors.Is(cerr, syscall.ENOSPC) || errors.Is(cerr, ErrNoIndex) {
					t.Fatalf("%s: Close = %v, want the disk-full error and the index kept", name, cerr)
				}
				r, err := NewReader(bytes.NewReader(disk.buf), int64(len(disk.buf)), nil)
				if err == nil {
					err = r.Unindexed()
				}
				if err != nil {
					t.Fatalf("%s: the bag does not open indexed: %v", name, err)
				}
				got := int(r.Info().Messages)
				it := r.Messages(nil)
				n := 0
				for it.Next() {
					n++
				}
				if it.Err() != nil || n != got {
					t.Errorf("%s: %d messages read of %d indexed (%v)", name, n, got, it.Err())
				}
				r.Close()
				if got > accepted || reserves && got < flushed {
					t.Errorf("%s: %d messages indexed; %d were flushed before the disk filled, %d accepted", name, got, flushed, accepted)
				}
				if reserves && got > 0 && disk.reserved == 0 {
					t.Errorf("%s: no room reserved", name)
				}
			}
		}
	}
}
