package rsdump

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessingGolden: the processing dump of every reference bag equals
// librealsense's line for line, token for token (key order and number text
// included), but for the reader's name on the file line; and the raw
// outputs of the first processed frame equal librealsense's bytes.
func TestProcessingGolden(t *testing.T) {
	eachGolden(t, "processing/*.proc.expected.jsonl", func(t *testing.T, name, bag, want string) {
		raw := t.TempDir()
		var got bytes.Buffer
		if err := RunProcessing(&got, bag, ProcOptions{RawDir: raw}); err != nil {
			t.Fatal(err)
		}
		sameLines(t, got.Bytes(), want)
		wantRaw, _ := filepath.Glob(filepath.Join("../../../testdata/librealsense/processing/raw", name+".*.bin.gz"))
		gotRaw, _ := filepath.Glob(filepath.Join(raw, "*.bin.gz"))
		if len(gotRaw) != len(wantRaw) || len(wantRaw) == 0 {
			t.Fatalf("%d raw outputs, want %d", len(gotRaw), len(wantRaw))
		}
		for _, w := range wantRaw {
			a, b := gunzip(t, w), gunzip(t, filepath.Join(raw, filepath.Base(w)))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %d bytes differ from librealsense's %d", filepath.Base(w), len(b), len(a))
			}
		}
	})
}

// TestProcessingNoModels: --no-models leaves out the model lines only.
func TestProcessingNoModels(t *testing.T) {
	var all, some bytes.Buffer
	bag := "../../../testdata/librealsense/depth_color.bag"
	if err := RunProcessing(&all, bag, ProcOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RunProcessing(&some, bag, ProcOptions{NoModels: true}); err != nil {
		t.Fatal(err)
	}
	var kept []string
	sc := bufio.NewScanner(&all)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"type":"model"`) {
			kept = append(kept, sc.Text())
		}
	}
	if got := strings.TrimSpace(some.String()); got != strings.Join(kept, "\n") || strings.Contains(got, `"model"`) {
		t.Errorf("without models: %d bytes, want %d", len(got), len(strings.Join(kept, "\n")))
	}
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
