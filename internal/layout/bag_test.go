package layout

import (
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/msgs"
)

// testBags lists the reference bags of the repository.
func testBags(t testing.TB) []string { return testbags.Paths(t, filepath.Join("..", "..")) }

// bagMessage is a bag message with its bag time as a msgs.Time.
type bagMessage struct {
	testbags.Message
	Time msgs.Time
}

// readBag returns every message of a bag in file order.
func readBag(t testing.TB, path string) []bagMessage {
	t.Helper()
	var out []bagMessage
	for _, m := range testbags.Read(t, path) {
		out = append(out, bagMessage{Message: m, Time: msgs.Time{Sec: m.Sec, Nsec: m.Nsec}})
	}
	return out
}
