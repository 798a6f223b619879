package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/extensions"
)

func TestPlaybackStatusNames(t *testing.T) {
	// Appendix A.8: rs2_playback_status: 0 Unknown, 1 Playing, 2 Paused, 3 Stopped.
	text, err := os.ReadFile(filepath.Join("..", "testdata", "spec", "realsense-bag-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(text)), " "), "rs2_playback_status: 0 Unknown, 1 Playing, 2 Paused, 3 Stopped.") {
		t.Fatal("spec table of rs2_playback_status changed")
	}
	for i, n := range []string{"Unknown", "Playing", "Paused", "Stopped"} {
		if got := extensions.PlaybackStatus(i).String(); got != n {
			t.Errorf("%d: %q, want %q", i, got, n)
		}
	}
}
