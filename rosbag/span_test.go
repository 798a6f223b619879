package rosbag

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSpan compares Span with the first and last times a full iteration
// finds, for every connection alone and for all of them, on every bag of
// the test set (indexed and recovered).
func TestSpan(t *testing.T) {
	for _, bag := range testBagsAndCut(t) {
		r, err := Open(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		sel := [][]uint32{nil}
		for _, c := range r.Connections() {
			sel = append(sel, []uint32{c.ID})
		}
		for _, conns := range sel {
			var first, last Time
			var any bool
			it := r.Messages(&Query{Connections: conns})
			for it.Next() {
				m := it.Message()
				if !any {
					first = m.Time
				}
				last, any = m.Time, true
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			f, l, ok, err := r.Span(conns)
			if err != nil || ok != any || f != first || l != last {
				t.Errorf("%s %v: Span = %v, %v, %v, %v; iteration: %v, %v, %v", bag, conns, f, l, ok, err, first, last, any)
			}
		}
		r.Close()
	}
}

// latestBag writes a bag of many small chunks: a 30 Hz and a 200 Hz
// connection for 10 s (the fast one written 500 ms late, so a chunk overlaps
// the next ten in time), one that starts at 6 s and one with a single
// message at 2 s.
func latestBag(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "latest.bag")
	w, err := Create(path, &WriterOptions{ChunkThreshold: 4000, Compression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	var conns [4]uint32
	for i := range conns {
		if conns[i], err = w.AddConnection(fmt.Sprintf("/c%d", i), "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n", nil); err != nil {
			t.Fatal(err)
		}
	}
	data := make([]byte, 300)
	const ms = Time(1_000_000)
	for k := Time(0); k < 10_000; k += 5 {
		at := NewTime(100, 0) + k*ms
		if k%35 == 0 {
			err = errors.Join(err, w.WriteMessage(conns[0], at, data))
		}
		if k >= 500 {
			err = errors.Join(err, w.WriteMessage(conns[1], at-500*ms, data))
		}
		if k >= 6000 && k%100 == 0 {
			err = errors.Join(err, w.WriteMessage(conns[2], at, data))
		}
		if k == 2000 {
			err = errors.Join(err, w.WriteMessage(conns[3], at, data))
		}
	}
	if err = errors.Join(err, w.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLatest: Latest gives, for every selection and window, the last time
// of each connection that iterating the window's messages gives, on the
// reference bags, a bag of many overlapping chunks, a truncated copy of it
// (recovered, indexed by the scan) and, with SkipCorrupt, a copy whose
// index data records of one chunk are corrupt.
func TestLatest(t *testing.T) {
	many := latestBag(t)
	data, err := os.ReadFile(many)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(t.TempDir(), "cut.bag")
	if err := os.WriteFile(trunc, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	// The op of the first index data record of the chunk holding the
	// middle of the bag made wrong.
	r, err := Open(many, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, last, _, err := r.Span(nil)
	if err != nil {
		t.Fatal(err)
	}
	mid := first + (last-first)/2
	var pos int64 = -1
	for _, c := range r.chunks {
		if c.start <= mid && mid <= c.end {
			pos = c.pos
		}
	}
	r.Close()
	at := bytes.Index(data[pos:], []byte("op=\x04"))
	if pos < 0 || at < 0 {
		t.Fatal("no chunk with index data in the middle")
	}
	bad := slices.Clone(data)
	bad[pos+int64(at)+3] = 0x7f
	corrupt := filepath.Join(t.TempDir(), "corrupt.bag")
	if err := os.WriteFile(corrupt, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	bags := append(append([]string{}, testBags...), many, trunc, corrupt)
	refused := 0
	for _, bag := range bags {
		r, err := Open(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		first, last, _, err := r.Span(nil)
		if err != nil {
			t.Fatal(err)
		}
		sel := [][]uint32{nil}
		for _, c := range r.Connections() {
			sel = append(sel, []uint32{c.ID})
		}
		span := last - first
		var windows [][2]Time
		for _, f := range []Time{0, first + span/3} {
			for _, e := range []Time{0, first + 1, first + span/4, first + span/2 + 1, last} {
				windows = append(windows, [2]Time{f, e})
			}
		}
		for _, conns := range sel {
			for _, win := range windows {
				q := &Query{Connections: conns, Start: win[0], End: win[1], SkipCorrupt: bag == corrupt}
				want := map[uint32]Time{}
				it := r.Messages(q)
				for it.Next() {
					m := it.Message()
					want[m.Conn.ID] = max(want[m.Conn.ID], m.Time)
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				it.Close()
				got, err := r.Latest(q)
				if err != nil || !maps.Equal(got, want) {
					t.Errorf("%s %v [%v, %v): Latest = %v, %v; iteration: %v", filepath.Base(bag), conns, win[0], win[1], got, err, want)
				}
				if bag == corrupt {
					q.SkipCorrupt = false
					if _, err := r.Latest(q); err != nil {
						if !errors.As(err, new(*FormatError)) {
							t.Errorf("corrupt index data without SkipCorrupt: %v, want a *FormatError", err)
						}
						refused++
					}
				}
			}
		}
		r.Close()
	}
	if refused == 0 {
		t.Error("no query reached the corrupt index data without SkipCorrupt")
	}
}
