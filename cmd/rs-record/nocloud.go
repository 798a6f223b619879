//go:build !cloud

package main

import (
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/bagname"
	"net/url"
	"os"

	"github.com/rsbag/rsbag/rosbag"
)

// The default build reads file:// URLs as local paths and refuses the
// schemes of object storage with an error that gives the command of the
// cloud build: the cloud SDKs (gocloud.dev/blob and its drivers) are three
// quarters of the packages the command would otherwise compile.
func init() {
	rosbag.RegisterScheme("file", openFileURL)
	for _, s := range cloudSchemes {
		rosbag.RegisterScheme(s, func(name string) (rosbag.File, error) {
			return nil, fmt.Errorf("%s: %w", name, errNoCloud)
		})
	}
}

// cloudSchemes are the URL schemes of object storage (package blobfile's
// Schemes but file://, which every build reads).
var cloudSchemes = []string{"s3", "gs", "azblob"}

// errNoCloud is the error of a URL of object storage in the default build.
var errNoCloud = errors.New("object storage (s3://, gs://, azblob://) needs the cloud build of rs-record: " +
	"go build -tags cloud ./cmd/rs-record (or go run -tags cloud ./cmd/rs-record ...)")

// openFileURL opens a file:///PATH URL as the local file PATH.
func openFileURL(name string) (rosbag.File, error) {
	u, err := url.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", name, err)
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("%s: a file:// URL names a local file (file:///PATH), not one on host %q", name, u.Host)
	}
	if u.Path == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("%s: want file:///PATH without a query", name)
	}
	if err := bagname.CheckRegular(u.Path); err != nil {
		return nil, err
	}
	f, err := os.Open(u.Path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localFile{f, st.Size()}, nil
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }
