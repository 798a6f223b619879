package synthscript

import "testing"

// TestLimits pins the bounds (see their sources in limits.go) and checks
// the edges.
func TestLimits(t *testing.T) {
	if MaxVideoSide != 8192 || MaxVideoFPS != 1000 || MaxMotionFPS != 4000 {
		t.Fatalf("bounds changed: %d, %d, %d", MaxVideoSide, MaxVideoFPS, MaxMotionFPS)
	}
	for _, c := range []struct {
		w, h, fps int
		ok        bool
	}{
		{1920, 1080, 30, true}, {8192, 8192, 1000, true}, {1, 1, 1, true},
		{8193, 10, 30, false}, {10, 8193, 30, false}, {0, 10, 30, false}, {10, -1, 30, false},
		{100000, 100000, 30, false}, {640, 480, 0, false}, {640, 480, 1001, false},
	} {
		if err := CheckVideo(c.w, c.h, c.fps); (err == nil) != c.ok {
			t.Errorf("CheckVideo(%d, %d, %d) = %v, want ok %v", c.w, c.h, c.fps, err, c.ok)
		}
	}
	for _, c := range []struct {
		fps int
		ok  bool
	}{{0, true}, {400, true}, {4000, true}, {4001, false}, {-1, false}} {
		if err := CheckMotion(c.fps); (err == nil) != c.ok {
			t.Errorf("CheckMotion(%d) = %v, want ok %v", c.fps, err, c.ok)
		}
	}
}
