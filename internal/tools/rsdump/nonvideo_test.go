package rsdump

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
)

// nonVideoBags records 300 ms of the synthetic cameras of the reference
// bags motion_accel_gyro (accel and gyro only) and pose (a T265's pose
// only) and returns their paths by name.
func nonVideoBags(t *testing.T) map[string]string {
	t.Helper()
	bags := map[string]string{}
	for _, name := range []string{"motion_accel_gyro", "pose"} {
		bags[name] = filepath.Join(t.TempDir(), name+".bag")
		synthrig.ReferenceBag(t, bags[name], name, 300*time.Millisecond)
	}
	return bags
}

// TestProcessingNonVideoEnds: the processing dump of a bag without a depth
// or video stream ends: it prints the model and recommended-filter lines
// and a summary of zero pairs, and no depth line.
func TestProcessingNonVideoEnds(t *testing.T) {
	for name, bag := range nonVideoBags(t) {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := RunProcessing(&out, bag, ProcOptions{}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if last := lines[len(lines)-1]; last != `{"type":"summary","pairs":0}` {
				t.Errorf("last line %s, want a summary of 0 pairs", last)
			}
			if strings.Contains(out.String(), `"type":"depth"`) {
				t.Error("depth lines in a bag without depth")
			}
		})
	}
}

// TestSyncNonVideoEnds: the sync dump of a motion-only and a pose-only bag
// ends and counts every frame of the bag.
func TestSyncNonVideoEnds(t *testing.T) {
	for name, bag := range nonVideoBags(t) {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := RunSync(&out, bag); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, `{"type":"summary","frames":`) || strings.HasSuffix(last, `:0}`) {
				t.Errorf("last line %s, want a summary of every frame", last)
			}
		})
	}
}

// TestDumpNonVideoEnds: the frame dump of a motion-only and a pose-only
// bag ends with a summary.
func TestDumpNonVideoEnds(t *testing.T) {
	for name, bag := range nonVideoBags(t) {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Run(&out, bag, Options{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), `"type":"summary"`) {
				t.Errorf("no summary:\n%s", out.String())
			}
		})
	}
}
