package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/fakes3"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
)

// TestObjectStorageURL plays a bag kept in object storage (internal/testsupport/fakes3,
// an S3 server on a local port) through the cloud build of the library,
// named by its s3:// URL: rs2_context_add_device (testdata/dump.c prints
// what rs-record dump prints of the bag), rs2_create_playback_device and
// rs2_config_enable_device_from_file (testdata/url.c: every frame). The
// default build refuses the URL with an error that gives the cloud build.
func TestObjectStorageURL(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	bag := filepath.Join(root, "bucket", "dc.bag")
	synthrig.ReferenceBag(t, bag, "depth_color", 300*time.Millisecond)
	url := fakes3.New(t, root).URL("bucket", "dc.bag")

	out := run(t, program(t, "url.c"), url)
	if !strings.HasPrefix(out, "error rs2_create_playback_device: ") || !strings.Contains(out, url) || !strings.HasSuffix(out, ": "+errNoCloud.Error()+"\n") {
		t.Errorf("the default build prints\n%s\nwant the URL and %q", out, errNoCloud)
	}

	if testing.Short() {
		t.Skip("builds the cloud library")
	}
	dir, err := buildLibrary("cloud")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	want := goDump(t, bag)
	compareLines(t, run(t, compileIn(t, dir, "", "dump.c"), url), want)

	var sum struct{ Frames int }
	lines := strings.Split(strings.TrimSpace(want), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Frames == 0 {
		t.Fatalf("dump summary %q: %v", lines[len(lines)-1], err)
	}
	got := run(t, compileIn(t, dir, "", "url.c"), url)
	if w := fmt.Sprintf("file %s\nplayback frames %d\npipeline frames %d\n", url, sum.Frames, sum.Frames); got != w {
		t.Errorf("url prints\n%s\nwant\n%s", got, w)
	}
}
