package rosbag

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSpan compares Span with the first and last times a full iteration
// finds, for every connection alone and for all of them, on every bag of
// the test set (indexed and recovered).
func TestSpan(t *testing.T) {
	bags := append([]string{}, testBags...)
	trunc := filepath.Join(t.TempDir(), "cut.bag")
	data, err := os.ReadFile(testBags[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trunc, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	bags = append(bags, trunc)
	for _, bag := range bags {
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
