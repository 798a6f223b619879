//go:build cloud

package main

import (
	_ "gocloud.dev/blob/azureblob" // azblob:// bags
	_ "gocloud.dev/blob/fileblob"  // file:// bags
	_ "gocloud.dev/blob/gcsblob"   // gs:// bags
	_ "gocloud.dev/blob/s3blob"    // s3:// bags

	// Bags by URL: rs2_context_add_device, rs2_create_playback_device and
	// rs2_config_enable_device_from_file take the URLs of object storage
	// that playback.Open takes, as rs-record's cloud build does
	// (go build -tags cloud -buildmode=c-shared ... ./capi).
	_ "github.com/rsbag/rsbag/blobfile"
)
