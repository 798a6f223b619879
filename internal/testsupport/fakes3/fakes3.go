// Package fakes3 is an HTTP server that answers the S3 requests a reader of
// objects makes (HEAD and ranged GET of /BUCKET/KEY) from files in a local
// directory, and counts them: tests see how many requests and bytes a
// reader of a bag in object storage needs. It is for tests only.
package fakes3

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Server serves the files under Root: the object KEY of bucket BUCKET is
// the file Root/BUCKET/KEY.
type Server struct {
	Root string
	srv  *httptest.Server

	mu     sync.Mutex
	stats  Stats
	ranges []Range
}

// Range is the part of an object one GET served: bytes [Start, End) of
// the object Key ("BUCKET/KEY").
type Range struct {
	Key        string
	Start, End int64
}

// Stats count the requests served.
type Stats struct {
	Heads  int   // HEAD requests (object attributes)
	Gets   int   // GET requests
	Ranged int   // GET requests with a Range header
	Bytes  int64 // body bytes sent
}

// New starts a server on a local port; it is closed when the test ends.
func New(tb testing.TB, root string) *Server {
	tb.Helper()
	s := &Server{Root: root}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	return s
}

// URL returns the s3:// URL of the object key of bucket, with the options
// that point the S3 client at this server.
func (s *Server) URL(bucket, key string) string {
	return fmt.Sprintf("s3://%s/%s?endpoint=%s&use_path_style=true&anonymous=true&region=us-east-1",
		bucket, key, url.QueryEscape(s.srv.URL))
}

// Stats returns the counts so far; Reset zeroes them.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Ranges returns the parts of objects served since the start or the last
// Reset, in the order they were served.
func (s *Server) Ranges() []Range {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Range(nil), s.ranges...)
}

// Reset zeroes the counts and forgets the ranges.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = Stats{}
	s.ranges = nil
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	name := filepath.Join(s.Root, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))
	cw := &countingWriter{ResponseWriter: w}
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch r.Method {
		case http.MethodHead:
			s.stats.Heads++
		case http.MethodGet:
			s.stats.Gets++
			if r.Header.Get("Range") != "" {
				s.stats.Ranged++
			}
			if cw.n > 0 {
				start := int64(0)
				if cr := w.Header().Get("Content-Range"); cr != "" {
					fmt.Sscanf(cr, "bytes %d-", &start)
				}
				s.ranges = append(s.ranges, Range{Key: strings.TrimPrefix(r.URL.Path, "/"), Start: start, End: start + cw.n})
			}
		}
		s.stats.Bytes += cw.n
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	f, err := os.Open(name)
	if err != nil {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		if r.Method == http.MethodGet {
			fmt.Fprintf(cw, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>%s</Key></Error>`, r.URL.Path)
		}
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		http.Error(w, "not an object", http.StatusNotFound)
		return
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, st.ModTime().UnixNano(), st.Size()))
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(cw, r, "", st.ModTime(), f)
}
