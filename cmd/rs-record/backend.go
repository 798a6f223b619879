package main

import (
	"context"
	"errors"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/software"
)

var errNotBuilt = errors.New("not available in this build yet")

func openLiveCamera(ctx context.Context, c *recordConfig) (device.Device, error) {
	return nil, device.ErrNotFound
}

// preparedFrames is the number of frames per video stream the synthetic
// camera renders in advance and then hands out again, so that recording
// measures the recorder, not the renderer.
const preparedFrames = 4

// openSynthetic builds the synthetic camera with the requested streams.
func openSynthetic(c *recordConfig) (device.Device, error) {
	video := func(s streamSpec) *software.Video {
		if !s.enabled() {
			return nil
		}
		return &software.Video{Width: s.Width, Height: s.Height, FPS: s.FPS, Format: s.Format}
	}
	cfg := software.SyntheticConfig{
		Depth:          video(c.depth),
		Color:          video(c.color),
		Infrared:       video(c.ir),
		InfraredCount:  c.irCount,
		AccelFPS:       c.accel,
		GyroFPS:        c.gyro,
		PoseFPS:        c.pose,
		Speed:          c.speed,
		PreparedFrames: preparedFrames,
	}
	switch c.metadata {
	case "none":
		cfg.Metadata = software.MetadataNone
	case "rich":
		cfg.Metadata = software.MetadataRich
	default:
		cfg.Metadata = software.MetadataBasic
	}
	return software.NewSynthetic(cfg)
}
