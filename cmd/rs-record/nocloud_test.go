//go:build !cloud

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildTags are the tags TestMain builds the command with: those of the
// test binary.
var buildTags []string

// TestDefaultBuildLeavesCloudOut: the default build links no cloud SDK
// (they made a cold build of rs-record five times slower and its binary
// five times larger), and the cloud build links the drivers of every
// scheme.
func TestDefaultBuildLeavesCloudOut(t *testing.T) {
	deps := func(tags ...string) []string {
		t.Helper()
		out, err := exec.Command("go", append(append([]string{"list", "-deps"}, tags...), ".")...).Output()
		if err != nil {
			t.Fatalf("go list -deps %v: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	cloud := []string{"gocloud.dev/", "cloud.google.com/go", "github.com/aws/", "github.com/Azure/",
		"google.golang.org/grpc", "go.opentelemetry.io/", "github.com/rsbag/rsbag/blobfile"}
	var bad []string
	for _, d := range deps() {
		for _, c := range cloud {
			if strings.HasPrefix(d, c) {
				bad = append(bad, d)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("the default build depends on %d packages of the cloud SDKs: %s ...", len(bad), strings.Join(bad[:min(5, len(bad))], ", "))
	}
	has := map[string]bool{}
	for _, d := range deps("-tags", "cloud") {
		has[d] = true
	}
	for _, d := range []string{"github.com/rsbag/rsbag/blobfile", "gocloud.dev/blob/s3blob", "gocloud.dev/blob/gcsblob",
		"gocloud.dev/blob/azureblob", "gocloud.dev/blob/fileblob"} {
		if !has[d] {
			t.Errorf("the cloud build does not link %s", d)
		}
	}
}

// TestURLWithoutCloud: the default build reads file:// URLs as local
// files, and refuses a URL of object storage with the command that builds
// rs-record with it.
func TestURLWithoutCloud(t *testing.T) {
	bag, err := filepath.Abs("../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	local := rsRecord(t, "info", "--json", bag)
	byURL := rsRecord(t, "info", "--json", "file://"+filepath.ToSlash(bag))
	if local.code != 0 || byURL.code != 0 || strings.ReplaceAll(byURL.stdout, "file://", "") != local.stdout {
		t.Errorf("info of a file:// URL: exit %d, %s\nlocal: exit %d, %s", byURL.code, byURL.stderr, local.code, local.stdout)
	}
	if r := rsRecord(t, "info", "file://host/x.bag"); r.code != 1 || !strings.Contains(r.stderr, "file:///PATH") {
		t.Errorf("file URL of another host: exit %d, %q", r.code, r.stderr)
	}
	for _, url := range []string{"s3://bucket/dir/x.bag?region=eu-west-1", "gs://bucket/x.bag", "azblob://container/x.bag"} {
		for _, cmd := range []string{"info", "dump", "play", "view --port 0", "export --mcap " + filepath.Join(t.TempDir(), "x.mcap"), "convert -r " + filepath.Join(t.TempDir(), "x")} {
			r := rsRecord(t, append(strings.Fields(cmd), url)...)
			if r.code != 1 || !strings.Contains(r.stderr, url+": ") ||
				!strings.Contains(r.stderr, "object storage (s3://, gs://, azblob://) needs the cloud build of rs-record: go build -tags cloud ./cmd/rs-record") {
				t.Errorf("%s %s: exit %d, %q; want 1 and the command of the cloud build", cmd, url, r.code, r.stderr)
			}
		}
	}
}
