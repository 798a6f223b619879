package rosbag

import (
	"encoding/json"
	"errors"
	"os/exec"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/conformance"
)

// testBags are the reference bags of the repository.
var testBags = []string{
	"../testdata/librealsense/depth_color.bag",
	"../testdata/librealsense/depth_color_ir2_uncompressed.bag",
	"../testdata/librealsense/metadata_rich.bag",
	"../testdata/librealsense/motion_accel_gyro.bag",
	"../testdata/librealsense/options_pause_notify.bag",
	"../testdata/librealsense/pose.bag",
	"../testdata/librealsense/real/single_depth_color_640x480.bag",
	"../testdata/spec/ref-head-v4-softdevice.bag",
}

// checkerReport is the JSON shape of bagcheck-ros / bagcheck-js --json.
type checkerReport struct {
	Checker string      `json:"checker"`
	OK      bool        `json:"ok"`
	Bags    []bagReport `json:"bags"`
}

type bagReport struct {
	Path        string        `json:"path"`
	OK          bool          `json:"ok"`
	Compression []string      `json:"compression"`
	Chunks      int           `json:"chunks"`
	Connections int           `json:"connections"`
	Messages    int           `json:"messages"`
	StartTime   string        `json:"start_time"`
	EndTime     string        `json:"end_time"`
	Topics      []topicReport `json:"topics"`
	Errors      []string      `json:"errors"`
	Warnings    []string      `json:"warnings"`
}

type topicReport struct {
	Topic       string `json:"topic"`
	Type        string `json:"type"`
	MD5Sum      string `json:"md5sum"`
	Connections int    `json:"connections"`
	Count       int    `json:"count"`
	FirstTime   string `json:"first_time"`
	LastTime    string `json:"last_time"`
}

// checker returns the path of a conformance checker of tools/conformance,
// or "" when it is not set up outside CI (in CI the test fails).
func checker(t testing.TB, name string) string {
	t.Helper()
	return conformance.Optional(t, name)
}

// runChecker runs a checker with --json (plus args) on bag. ok=false means
// the checker is missing or could not run (exit 2): skip that part.
func runChecker(t testing.TB, name, bag string, args ...string) (*bagReport, bool) {
	t.Helper()
	p := checker(t, name)
	if p == "" {
		return nil, false
	}
	cmd := exec.Command(p, append(append([]string{"--json"}, args...), bag)...)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Logf("%s unavailable: %v", name, err)
		return nil, false
	}
	var rep checkerReport
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Bags) != 1 {
		t.Fatalf("%s: bad JSON output: %v\n%s", name, err, out)
	}
	return &rep.Bags[0], true
}
