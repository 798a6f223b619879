// Package synthscript holds the timed script of the synthetic camera
// (software.NewSynthetic): option values set before streaming, option
// changes, notifications, hooks and the pause and resume of a recorder at
// stream times. These knobs exist to reproduce librealsense's reference bags
// (the rsgen command lines, internal/testsupport/refcam) and to drive tests,
// so they are not part of package software's public API: a program of the
// module reaches a configuration's script through Of. The bounds of the
// stream profiles a synthetic camera and rs-record's flags accept
// (CheckVideo, CheckMotion) are here too.
package synthscript

import (
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// OptionValue is an option value for a sensor of the synthetic camera.
// Sensor is a sensor name or one of "depth", "ir", "color", "motion",
// "accel", "gyro", "pose".
type OptionValue struct {
	Sensor string
	Option sensor.Option
	Value  float32
}

// OptionChangeAt changes an option at a stream time (rsgen --change-at). The
// change is made from the device side (ignoring the read-only flag) after
// every earlier frame has been handled and before frames at that time.
type OptionChangeAt struct {
	At time.Duration
	OptionValue
}

// NotificationAt raises a Hardware Event notification of severity Info on a
// sensor at a stream time (rsgen --notify-at), with serialized data
// {"rsgen_t_ms":T}.
type NotificationAt struct {
	At          time.Duration
	Sensor      string
	Description string
}

// Hook runs Func on the synthetic camera's timeline goroutine at a stream
// time, after every earlier frame has been handled and before frames at that
// time. Func must not start, stop or close sensors of the camera; closing the
// camera from it fails with sensor.ErrStopFromHandler.
type Hook struct {
	At   time.Duration
	Func func()
}

// Script is the part of a synthetic camera's configuration that happens at
// stream times. The zero value does nothing.
type Script struct {
	// Set replaces option values before streaming (--set).
	Set []OptionValue
	// Changes, Notifications and Hooks happen at stream times.
	Changes       []OptionChangeAt
	Notifications []NotificationAt
	Hooks         []Hook
	// PauseAt/ResumeAt call OnPause/OnResume at those stream times
	// (--pause-ms/--resume-ms; rsgen pauses its recorder). Zero: none.
	PauseAt, ResumeAt time.Duration
	OnPause, OnResume func()
}

// of is installed by package software (Register).
var of func(cfg any) *Script

// Register installs the function that returns the script of a
// *software.SyntheticConfig; package software calls it when it is
// initialised.
func Register(f func(cfg any) *Script) { of = f }

// Of returns the script of cfg, a *software.SyntheticConfig, to read or
// change in place.
func Of(cfg any) *Script { return of(cfg) }
