package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
)

// TestNonVideoBagsEnd: every command that plays a bag ends, exit 0, on a
// bag without a depth or video stream: the synthetic cameras of the
// motion-only (accel and gyro) and pose-only reference bags.
func TestNonVideoBagsEnd(t *testing.T) {
	for _, name := range []string{"motion_accel_gyro", "pose"} {
		dir := t.TempDir()
		bag := filepath.Join(dir, name+".bag")
		synthrig.ReferenceBag(t, bag, name, 300*time.Millisecond)
		for _, args := range [][]string{
			{"play", "--realtime=false"},
			{"play"},
			{"dump"},
			{"dump", "--sync"},
			{"dump", "--processing"},
			{"convert", "-v", filepath.Join(dir, "out")},
		} {
			if r := rsRecord(t, append(args, bag)...); r.code != 0 {
				t.Errorf("%s %v: exit %d\n%s", name, args, r.code, r.stderr)
			}
		}
	}
}
