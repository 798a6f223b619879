package rsdump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// limits of the seek outputs (README "Additional seek outputs").
var seekLimits = map[string]int{
	"depth_color.seek-500000000.expected.jsonl":        10,
	"motion_accel_gyro.seek-1000000000.expected.jsonl": 20,
}

// tokens flattens a JSON line into its tokens in order, numbers as their
// text, so that key order and number formatting are compared exactly.
func tokens(t *testing.T, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var out []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("bad JSON %q: %v", line, err)
		}
		switch v := tok.(type) {
		case json.Delim:
			out = append(out, v.String())
		case json.Number:
			out = append(out, "n:"+string(v))
		case string:
			out = append(out, "s:"+v)
		default:
			out = append(out, fmt.Sprintf("%T:%v", v, v))
		}
	}
}

// dropKey removes key and its (scalar) value from a token list.
func dropKey(toks []string, key string) []string {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i] == "s:"+key {
			return append(append([]string(nil), toks[:i]...), toks[i+2:]...)
		}
	}
	return toks
}

func TestGolden(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../../testdata/librealsense", "../../../testdata/librealsense/real"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.expected.jsonl"))
		files = append(files, m...)
	}
	if len(files) < 9 {
		t.Fatalf("found %d expected files, want 9", len(files))
	}
	for _, exp := range files {
		name := filepath.Base(exp)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := strings.TrimSuffix(name, ".expected.jsonl")
			var opts Options
			if i := strings.Index(base, ".seek-"); i >= 0 {
				n, err := strconv.ParseInt(base[i+len(".seek-"):], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				opts.Seek = &n
				opts.Limit = seekLimits[name]
				base = base[:i]
			}
			bag := filepath.Join(filepath.Dir(exp), base+".bag")
			var out bytes.Buffer
			if err := Run(&out, bag, opts); err != nil {
				t.Fatalf("Run: %v", err)
			}
			want, err := os.ReadFile(exp)
			if err != nil {
				t.Fatal(err)
			}
			gl := bytes.Split(bytes.TrimRight(out.Bytes(), "\n"), []byte("\n"))
			wl := bytes.Split(bytes.TrimRight(want, "\n"), []byte("\n"))
			bad := 0
			for i := 0; i < len(gl) || i < len(wl); i++ {
				if i >= len(gl) || i >= len(wl) {
					t.Errorf("line %d: got %d lines, want %d", i+1, len(gl), len(wl))
					break
				}
				g, w := tokens(t, gl[i]), tokens(t, wl[i])
				if i == 0 {
					g, w = dropKey(g, "librealsense"), dropKey(w, "librealsense")
				}
				if strings.Join(g, "\x00") != strings.Join(w, "\x00") {
					t.Errorf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
					if bad++; bad > 5 {
						t.FailNow()
					}
				}
			}
		})
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		bits int
		want string
	}{
		{float64(float32(0.001)), 32, "0.001"},
		{float64(float32(0.00045000002)), 32, "0.00045000002"},
		{float64(float32(-3.9757888e-05)), 32, "-3.9757888e-05"},
		{1795239555723, 64, "1795239555723"},
		{12379.011332999999, 64, "12379.011332999999"},
		{1700000000000.125, 64, "1700000000000.125"},
		{negZero(), 32, "-0"},
		{50, 32, "50"},
		{1e21, 64, "1e+21"},
		{float64(float32(0.0003)), 32, "0.0003"},
		{1e16, 64, "1e+16"},
		{123456789012345, 64, "123456789012345"},
	} {
		if got := string(appendFloat(nil, c.v, c.bits)); got != c.want {
			t.Errorf("appendFloat(%v, %d) = %s, want %s", c.v, c.bits, got, c.want)
		}
	}
}

func negZero() float64 { z := 0.0; return -z }
