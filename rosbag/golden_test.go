package rosbag

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate golden files from bagcheck-ros")

func goldenPath(bag string) string {
	return filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(bag), ".bag")+".bagcheck-ros.json")
}

// summarize renders what our Reader reports in the checker's shape.
func summarize(t *testing.T, r *Reader) bagReport {
	t.Helper()
	in := r.Info()
	rep := bagReport{Compression: r.Compression(), Chunks: in.Chunks, Connections: in.Connections, Messages: int(in.Messages)}
	if in.Messages > 0 {
		rep.StartTime, rep.EndTime = in.Start.String(), in.End.String()
	}
	byTopic := map[string]*topicReport{}
	first := map[string]Time{}
	last := map[string]Time{}
	it := r.Messages(nil)
	for it.Next() {
		m := it.Message()
		tp := byTopic[m.Conn.Topic]
		if tp == nil {
			tp = &topicReport{Topic: m.Conn.Topic, Type: m.Conn.Type, MD5Sum: m.Conn.MD5Sum}
			byTopic[m.Conn.Topic] = tp
			first[m.Conn.Topic] = m.Time
		}
		tp.Count++
		last[m.Conn.Topic] = max(last[m.Conn.Topic], m.Time)
		first[m.Conn.Topic] = min(first[m.Conn.Topic], m.Time)
	}
	if err := it.Err(); err != nil {
		t.Fatalf("iterate: %v", err)
	}
	for _, c := range r.Connections() {
		if tp := byTopic[c.Topic]; tp != nil {
			tp.Connections++
		}
	}
	for k, tp := range byTopic {
		tp.FirstTime, tp.LastTime = first[k].String(), last[k].String()
		if uint64(tp.Count) != countTopic(r, k) {
			t.Errorf("%s: iterated %d messages, Info counts %d", k, tp.Count, countTopic(r, k))
		}
		rep.Topics = append(rep.Topics, *tp)
	}
	sort.Slice(rep.Topics, func(i, j int) bool { return rep.Topics[i].Topic < rep.Topics[j].Topic })
	return rep
}

func countTopic(r *Reader, topic string) uint64 {
	var n uint64
	for _, c := range r.Connections() {
		if c.Topic == topic {
			n += r.Info().MessageCounts[c.ID]
		}
	}
	return n
}

func compareReports(t *testing.T, got, want *bagReport) {
	t.Helper()
	if got.Chunks != want.Chunks || got.Connections != want.Connections || got.Messages != want.Messages ||
		got.StartTime != want.StartTime || got.EndTime != want.EndTime || strings.Join(got.Compression, ",") != strings.Join(want.Compression, ",") {
		t.Errorf("summary: got chunks %d conns %d msgs %d %s..%s %v, want %d %d %d %s..%s %v",
			got.Chunks, got.Connections, got.Messages, got.StartTime, got.EndTime, got.Compression,
			want.Chunks, want.Connections, want.Messages, want.StartTime, want.EndTime, want.Compression)
	}
	wt := append([]topicReport(nil), want.Topics...)
	sort.Slice(wt, func(i, j int) bool { return wt[i].Topic < wt[j].Topic })
	if len(got.Topics) != len(wt) {
		t.Fatalf("got %d topics, want %d", len(got.Topics), len(wt))
	}
	for i := range wt {
		if got.Topics[i] != wt[i] {
			t.Errorf("topic %d: got %+v, want %+v", i, got.Topics[i], wt[i])
		}
	}
}

// TestReferenceBags opens every reference bag and compares what the Reader
// reports with bagcheck-ros (golden JSON; live when the checker is installed).
func TestReferenceBags(t *testing.T) {
	for _, bag := range testBags {
		t.Run(filepath.Base(bag), func(t *testing.T) {
			r, err := Open(bag, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !r.Info().Indexed {
				t.Error("not opened from its index")
			}
			got := summarize(t, r)
			gp := goldenPath(bag)
			if *update {
				rep, ok := runChecker(t, "bagcheck-ros", bag, "--lenient")
				if !ok {
					t.Fatal("-update needs bagcheck-ros")
				}
				rep.Path = filepath.Base(bag)
				rep.Errors, rep.Warnings = nil, nil
				b, _ := json.MarshalIndent(rep, "", "  ")
				if err := os.WriteFile(gp, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("golden: %v (run go test -run TestReferenceBags -update)", err)
			}
			var want bagReport
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			compareReports(t, &got, &want)
			if !testing.Short() && !*update {
				if live, ok := runChecker(t, "bagcheck-ros", bag, "--lenient"); ok {
					compareReports(t, &got, live)
				}
			}
		})
	}
}
