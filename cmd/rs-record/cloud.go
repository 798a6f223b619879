//go:build cloud

package main

import (
	_ "gocloud.dev/blob/azureblob" // azblob:// bags
	_ "gocloud.dev/blob/fileblob"  // file:// bags
	_ "gocloud.dev/blob/gcsblob"   // gs:// bags
	_ "gocloud.dev/blob/s3blob"    // s3:// bags

	_ "github.com/rsbag/rsbag/blobfile" // bags by URL
)
