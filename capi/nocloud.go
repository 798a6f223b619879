//go:build !cloud

package main

import (
	"errors"
	"fmt"

	"github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/rosbag"
)

// The default build refuses the URLs of object storage with an error that
// gives the build that reads them: the cloud SDKs would make the library
// ten times larger.
func init() {
	for _, s := range blobfile.Schemes {
		rosbag.RegisterScheme(s, func(name string) (rosbag.File, error) {
			return nil, fmt.Errorf("%s: %w", name, errNoCloud)
		})
	}
}

// errNoCloud is the error of a bag's URL in the default build.
var errNoCloud = errors.New("bags in object storage (s3://, gs://, azblob://, file://) need the cloud build of librealsense2.so: " +
	"go build -tags cloud -buildmode=c-shared -ldflags '-extldflags -Wl,-soname,librealsense2.so.2.56' -o OUT/librealsense2.so.2.56 ./capi")
