// Package sensor defines what every RealSense sensor has in common, whatever
// backs it (a live USB camera, the software device, a record device or a
// playback device): the librealsense enums, stream profiles, intrinsics,
// frames and the Sensor interface.
//
// # Frame delivery
//
// These are the rules every device of this module follows (each delivers
// through one sensor runtime, internal/sensorrt, which implements and
// tests them); the other packages refer to them rather than restate them:
//
//   - Goroutine: a started sensor calls its Handler on a goroutine it owns
//     (one per sensor in the software and synthetic devices, one per stream
//     in playback and per USB interface in the live camera), never on the
//     goroutine that called Start and never with a lock held. A handler may
//     call any method of the device except those that would wait for the
//     handler itself — Stop or Close of its own sensor and Close of the
//     device (and, in playback, the calls its package lists) — which fail
//     with an error wrapping ErrStopFromHandler and change nothing.
//   - Ordering: frames of one stream arrive one at a time in increasing
//     frame order, and frames of streams delivered by one goroutine in the
//     order they were produced; frames of different goroutines may be
//     delivered concurrently.
//   - Slow handlers: lossless producers (the software device, the
//     synthetic camera, non-real-time playback) wait for the handler, so
//     frames arrive late but none are lost; real-time producers (live
//     cameras, real-time playback) never wait: a frame is dropped, oldest
//     first and counted, only when the handler is still inside a call a
//     whole frame period after the next frame arrived. A slow handler never
//     blocks another stream's goroutine.
//   - Stop is synchronous: once it returns the handler is not running and
//     is never called again for that sensor. A device's Close stops every
//     sensor and returns only when every goroutine the device started has
//     ended.
//   - Lifetime: a delivered *Frame and its Data are immutable and stay
//     valid for as long as anybody holds them, including after the handler
//     returns, after Stop and after Close: producers never write to a
//     buffer after handing it out (they may hand the same immutable buffer
//     to several frames, as the synthetic camera's prepared contents do),
//     so a handler may keep a frame or hand it to another goroutine without
//     copying it. Consumers must not modify a frame or its Data; there is
//     nothing to release.
package sensor

//go:generate go run ./internal/genenums -spec ../testdata/spec/realsense-bag-format.md -out enums.go
