// Package sensorrt is the sensor runtime: the one implementation of the
// frame delivery contract that the live camera (package usb), the software
// and synthetic devices (package software) and playback (package playback)
// share. A backend produces frames — reads USB payloads, renders a
// timeline, reads a bag and paces it — and hands them to a Worker; a
// Lifecycle holds its sensors' open/start/stop/close states; callbacks run
// through callbacks.Callbacks, in registration order.
//
// # Frame delivery contract
//
// The rules are those of package sensor (its "Frame delivery" section);
// this package is where they are implemented:
//
//   - Goroutine: a Worker goroutine calls the handler; Lifecycle.Handlers
//     and the Goroutines a Device owns are the goroutines that run user
//     code, and a call that would wait for one of them is refused with the
//     one error of Refuse, wrapping sensor.ErrStopFromHandler.
//   - Ordering: a Worker delivers one frame at a time, in the order it got
//     them.
//   - Slow handlers: lossless producers hand frames over with Worker.Send
//     or Worker.Deliver, which wait for the handler; real-time producers
//     with Worker.Offer, which never waits and drops only stale frames.
//   - Stop is synchronous: Lifecycle.Stop and Worker.Stop return once the
//     handler is not running; Device.Close shuts the device down once.
package sensorrt
