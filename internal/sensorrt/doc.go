// Package sensorrt is the sensor runtime: the one implementation of the
// frame delivery contract that the live camera (package usb), the software
// and synthetic devices (package software) and playback (package playback)
// share. A backend produces frames — reads USB payloads, renders a
// timeline, reads a bag and paces it — and hands them to a Worker; a
// Lifecycle holds its sensors' open/start/stop/close states; callbacks run
// through extensions.Callbacks, in registration order.
//
// # Frame delivery contract
//
// The rules every device.Device follows (they refine those of package
// sensor):
//
//   - Goroutine: a started sensor calls its handler on a Worker goroutine it
//     owns (one per sensor in the software and synthetic devices, one per
//     stream in playback and per USB interface in the live camera), never
//     on the goroutine that called Start and never with a lock held. A
//     handler may call any method of the device except Stop or Close of its
//     own sensor and Close of the device, which would wait for the handler
//     to return: those fail with an error wrapping sensor.ErrStopFromHandler
//     (Lifecycle.Handlers).
//   - Ordering: a Worker delivers one frame at a time, in the order it got
//     them, so frames of one stream arrive one at a time in increasing frame
//     order, and frames of the streams sharing a Worker in production order.
//     Frames of different Workers may be delivered concurrently.
//   - Slow handlers: lossless producers (software device, synthetic camera,
//     non-real-time playback) wait for the handler (Worker.Send,
//     Worker.Deliver), so frames arrive late but none are lost; real-time
//     producers (live cameras, real-time playback) never wait
//     (Worker.Offer): a frame is dropped, oldest first and counted, only
//     when the handler is still inside a call a whole frame period after
//     the next frame arrived. A handler never blocks another Worker.
//   - Stop is synchronous: when it returns the handler is not running and
//     will not be called again for that sensor (Lifecycle.Stop, Worker.Stop).
//     Close stops every sensor and returns only when every goroutine the
//     device started has ended.
//   - Lifetime: a delivered *sensor.Frame and its Data are immutable and stay
//     valid for as long as they are referenced, including after the handler
//     returns, after Stop and after Close. Producers never write to a buffer
//     after handing it out; they may hand the same immutable buffer to
//     several frames (the synthetic camera's prepared contents). Consumers
//     must not modify a frame or its Data; there is nothing to release.
package sensorrt
