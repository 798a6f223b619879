package main

import (
	"context"
	"errors"

	"github.com/rsbag/rsbag/device"
)

// recorder is a record device writing a bag.
type recorder interface {
	// Device is the record device whose sensors are started.
	Device() device.Device
	// Stats returns the bytes written and frames dropped so far.
	Stats() recStats
	// Errors reports a write error that ends the recording (may be nil).
	Errors() <-chan error
	// Close finalizes the bag.
	Close() error
}

type recStats struct {
	Bytes int64
	Drops uint64
}

var errNotBuilt = errors.New("not available in this build yet")

func openLiveCamera(ctx context.Context, c *recordConfig) (device.Device, error) {
	return nil, device.ErrNotFound
}

func openSynthetic(c *recordConfig) (device.Device, error) { return nil, errNotBuilt }

func newRecorder(dev device.Device, c *recordConfig) (recorder, error) { return nil, errNotBuilt }

func openPlayback(path string) (device.Device, error) { return nil, errNotBuilt }
