package record

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/rosbag"
)

// TestDiskFullKeepsIndex: a disk that fills up at any point of a recording
// leaves a bag that opens indexed, and Close's error says so: "disk full
// after N frames; the bag kept its index (indexed, K frames, T s)", K the
// depth frames the bag holds.
func TestDiskFullKeepsIndex(t *testing.T) {
	said := regexp.MustCompile(`^record: disk full after (\d+) frames; the bag kept its index \(indexed, (\d+) frames, [0-9.]+ s\): `)
	for limit := int64(6_000); limit < 240_000; limit = limit * 3 / 2 {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mf := &memFile{limit: limit}
				rec, _, _ := recordUntilFull(t, mf)
				err := rec.Close()
				m := said.FindStringSubmatch(fmt.Sprint(err))
				if !errors.Is(err, errDiskFull) || errors.Is(err, rosbag.ErrNoIndex) || m == nil {
					t.Fatalf("Close = %v, want the disk-full error saying that the bag kept its index", err)
				}
				b := mf.bytes()
				r, err := rosbag.NewReader(bytesReaderAt(b), int64(len(b)), nil)
				if err == nil {
					err = r.Unindexed()
				}
				if err != nil {
					t.Fatalf("the bag does not open indexed: %v", err)
				}
				defer r.Close()
				n := 0
				it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data"}})
				for it.Next() {
					n++
				}
				if it.Err() != nil || strconv.Itoa(n) != m[2] {
					t.Errorf("%d depth frames in the bag (%v); the error says %s", n, it.Err(), m[2])
				}
				if total, _ := strconv.Atoi(m[1]); n > total {
					t.Errorf("%d frames in the bag, more than the %d recorded", n, total)
				}
			})
		})
	}
}
