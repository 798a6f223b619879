package rosbag

import (
	"sync"
	"testing"
)

type seen struct {
	topic string
	t     Time
	chunk int
	off   uint32
}

func collect(t *testing.T, it *Iterator) []seen {
	t.Helper()
	var out []seen
	for it.Next() {
		m := it.Message()
		out = append(out, seen{m.Conn.Topic, m.Time, m.Chunk, m.Offset})
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	return out
}

// TestSeekAndQuery checks Seek, windows and topic filters against a filter
// over the full iteration, on bags with many chunks, and concurrent use.
func TestSeekAndQuery(t *testing.T) {
	for _, bag := range []string{"../testdata/spec/ref-head-v4-softdevice.bag", "../testdata/librealsense/motion_accel_gyro.bag", "testdata/fuzzseed/none.bag"} {
		r, err := Open(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		all := collect(t, r.Messages(nil))
		if uint64(len(all)) != r.Info().Messages {
			t.Fatalf("%s: %d messages, Info says %d", bag, len(all), r.Info().Messages)
		}
		topic := all[len(all)-1].topic
		in := r.Info()
		for _, st := range []Time{0, 1, 2, in.Start + (in.End-in.Start)/3, (in.Start + in.End) / 2, in.End, in.End + 1} {
			var want []seen
			for _, s := range all {
				if s.t >= st {
					want = append(want, s)
				}
			}
			it := r.Messages(nil)
			it.Next() // seek after use
			if err := it.Seek(st); err != nil {
				t.Fatal(err)
			}
			got := collect(t, it)
			if len(got) != len(want) {
				t.Fatalf("%s: seek %v: %d messages, want %d", bag, st, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: seek %v: message %d = %+v, want %+v", bag, st, i, got[i], want[i])
				}
			}
			// window + topic filter
			end := st + (in.End-in.Start)/4 + 1
			want = want[:0]
			for _, s := range all {
				if s.t >= st && s.t < end && s.topic == topic {
					want = append(want, s)
				}
			}
			got = collect(t, r.Messages(&Query{Topics: []string{topic}, Start: st, End: end}))
			if len(got) != len(want) {
				t.Fatalf("%s: window [%v,%v) %s: %d messages, want %d", bag, st, end, topic, len(got), len(want))
			}
		}
		// concurrent iterators on one Reader
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				it := r.Messages(nil)
				n := 0
				for it.Next() {
					n++
				}
				if n != len(all) || it.Err() != nil {
					t.Errorf("concurrent: %d messages, %v", n, it.Err())
				}
			}()
		}
		wg.Wait()
		r.Close()
		if r.Messages(nil).Next() {
			t.Error("Next after Close")
		}
	}
}
