package fleet

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// Output is where a run writes: a local directory or a prefix in a bucket.
// Every object appears under its key only when completely written.
type Output struct {
	bucket *blob.Bucket
	dir    string // local directory, or ""
	url    string // bucket URL with the prefix, for naming objects
}

// OpenOutput opens an output: a local directory (created if missing), a
// file:// URL of one, or an object storage URL whose path is the prefix of
// the keys written (s3://bucket/runs/7 writes s3://bucket/runs/7/KEY).
func OpenOutput(ctx context.Context, output string) (*Output, error) {
	if !strings.Contains(output, "://") || strings.HasPrefix(output, "file://") {
		dir := output
		if strings.HasPrefix(output, "file://") {
			u, err := url.Parse(output)
			if err != nil {
				return nil, fmt.Errorf("output %q: %w", output, err)
			}
			dir = filepath.FromSlash(u.Path)
		}
		dir, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", output, err)
		}
		// Temporary files next to the final ones: the rename that
		// publishes a file is then atomic (same file system).
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true, NoTempDir: true, Metadata: fileblob.MetadataDontWrite})
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", dir, err)
		}
		return &Output{bucket: b, dir: dir}, nil
	}
	u, err := url.Parse(output)
	if err != nil {
		return nil, fmt.Errorf("output %q: %w", output, err)
	}
	prefix := strings.Trim(u.Path, "/")
	bu := *u
	bu.Path, bu.RawPath = "", ""
	b, err := blob.OpenBucket(ctx, bu.String())
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", output, err)
	}
	name := u.Scheme + "://" + u.Host
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
		name += "/" + prefix
	}
	return &Output{bucket: b, url: name}, nil
}

// URL names the object key of the output.
func (o *Output) URL(key string) string {
	if o.dir != "" {
		return filepath.Join(o.dir, filepath.FromSlash(key))
	}
	return o.url + "/" + key
}

// Close closes the bucket.
func (o *Output) Close() error { return o.bucket.Close() }

// Write writes the object key with what fill writes. The object appears
// only if fill and the upload succeed; otherwise nothing is left under key.
func (o *Output) Write(ctx context.Context, key string, fill func(w io.Writer) error) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := o.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: contentType(key)})
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.URL(key), err)
	}
	if err := fill(w); err != nil {
		cancel() // aborts the write: nothing is published
		w.Close()
		return fmt.Errorf("writing %s: %w (nothing written under that name)", o.URL(key), err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w (nothing written under that name)", o.URL(key), err)
	}
	return nil
}

// Copy writes the local file src as the object key.
func (o *Output) Copy(ctx context.Context, key, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return o.Write(ctx, key, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// ReadAll reads the object key.
func (o *Output) ReadAll(ctx context.Context, key string) ([]byte, error) {
	b, err := o.bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", o.URL(key), err)
	}
	return b, nil
}

func contentType(key string) string {
	switch path.Ext(key) {
	case ".jsonl":
		return "application/jsonl"
	case ".json":
		return "application/json"
	case ".png":
		return "image/png"
	case ".csv":
		return "text/csv"
	}
	return "application/octet-stream"
}
