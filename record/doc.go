// Package record implements the record device: a decorator around any
// device.Device (live, software, even playback) that behaves exactly like the
// wrapped device while it writes the device's description and every frame
// that streams through it to a RealSense bag (file version 3, see
// testdata/spec/realsense-bag-format.md §3–§7 and
// testdata/spec/realsense-playback-semantics.md part R).
//
// # Wrapping
//
// Create (which creates the bag file) and NewWriter (which borrows an
// io.WriteSeeker) return a *Device. Its sensors wrap the inner device's
// sensors one to one, in the same order; info, profiles, options,
// extrinsics and frames are the inner device's. The user's handler receives
// the very *sensor.Frame the inner sensor delivered: the recorder keeps a
// reference to it (frames are immutable) instead of copying it.
//
// A record sensor exposes the extensions of its inner sensor and nothing
// more — extensions.Options, DepthSensor, DepthStereoSensor, Kinded and
// RecommendedFilters are forwarded when, and only when, the inner sensor
// implements them — with one exception: every record sensor implements
// extensions.Notifier, because the recorder raises its own notifications
// (dropped frames, write errors). Notifications of an inner Notifier are
// forwarded to the same callbacks. The inner sensor is reachable through
// the Unwrap method (see Unwrapper).
//
// Recording covers what is started through the record device's sensors:
// stream info is written when a record sensor starts, frames as they arrive.
//
// Limitation (differs from librealsense, spec R.5): a sensor started through
// the wrapped device rather than through its record sensor is not recorded —
// neither its stream info nor its frames — and neither is a sensor already
// streaming when the record device is created, until it is stopped and
// started again through the record sensor. librealsense hooks the live
// sensor's start, whoever starts it; sensor.Sensor offers no way to observe
// a start made elsewhere, so the record sensor only sees its own Start. Start
// every sensor to be recorded through Device.Sensors.
//
// # What is written
//
// /file_version 3 at static time (0 s, 1 ns); at each sensor start the
// StreamInfo and CameraInfo/ImuIntrinsic of every opened profile not written
// before; before the first frame, the device description (device info, per
// sensor info and every option's value and description), all at static time;
// per frame the data message(s) and the metadata messages at the frame's
// capture time (time since the first frame reached the recorder, minus
// pauses; for a source faster or slower than real time — one whose
// RealTime() is false, such as playback in non-real-time mode or the
// synthetic camera at Speed 0, or whose Speed() is not 1 — the frames' own
// timing instead: the first frame of each timestamp domain at its capture
// time, each later one that time plus its timestamp's distance from the
// first's, so that the bag plays at the source's rate; librealsense's
// recorder stamps every frame with the wall clock), then, after the first
// frame of each stream, its extrinsics (tf)
// at static time. The tf groups and transforms are the wrapped device's
// (Device.PinnedExtrinsics): those of a device.ExtrinsicsSource as it
// reports them, bit for bit; for other devices derived with device.Capture's
// rule and numbered from the wrapped device's FirstExtrinsicsGroup method
// if it has one, else from 0 as for a live camera. The record device
// reports the same PinnedExtrinsics, so device.Capture sees the wrapped
// device through it. Option changes (extensions.Options.OnOptionChange) and
// notifications (extensions.Notifier) of the inner sensors are written at
// the capture time they happen, also while paused. Device-level options are
// not written.
//
// Messages are valid ROS: Image and Imu headers carry frame_id "0" and no
// bytes follow Image.data (librealsense's frame_id "1" announces a trailing
// depth_units float that we do not write; playback then takes the depth
// units from the sensor's Depth Units option), and StreamInfo.is_recommended
// is 0 or 1.
//
// # Concurrency and back-pressure
//
// Recording never blocks frame delivery. A frame handler computes the
// frame's capture time and appends the frame to a bounded queue
// (Options.QueueSize frames, Options.QueueBytes bytes); one writer goroutine
// owns the rosbag.Writer and encodes and writes everything in queue order.
// When the queue is full the frame is dropped for the bag (the user's handler
// still gets it), counted per stream (Stats) and reported to the record
// sensor's notification callbacks (at most one report per stream every
// 200 ms; Sensor.Stop and Device.Close report the rest). Options.Lossless
// makes a full queue wait instead, for sources that are not real time (a
// software device running as fast as possible, playback in non-real-time
// mode).
//
// A write error (disk full) stops recording — streaming continues — and is
// reported to every record sensor's notification callbacks (category Unknown
// Error, severity Error, the librealsense text) and returned by Close.
//
// The recorder's goroutine never runs user code: its notifications are
// delivered on the sensor's frame delivery goroutine, just before the frame
// that finds them pending reaches the handler, or by Sensor.Stop and
// Device.Close on the caller's goroutine. Handlers and notification
// callbacks may therefore call any method of the record device, Flush and
// Close included. Stop and Close of a record sensor return the wrapped
// sensor's errors unchanged: called from that sensor's own handler they fail
// as the wrapped sensor's do (sensor.ErrStopFromHandler), never hang in the
// recorder.
//
// # Ownership and end of recording
//
// The record device borrows the wrapped device: Close finalizes the bag
// (synchronously: every queued frame is written, then the index) but never
// stops, closes or otherwise touches the wrapped device or its sensors, which
// keep streaming to the user's handlers. Close the wrapped device yourself.
// Create owns the file it creates and closes it; NewWriter's io.WriteSeeker is
// the caller's. A process killed while recording leaves a bag without index
// that rosbag.NewReader opens by recovery, losing what was not yet written:
// the messages written in the last Options.FlushInterval (1 s by default)
// and the frames still queued (a machine that compresses slower than the
// camera streams holds a backlog, up to the queue's limits). Flush makes
// everything recorded before it durable.
package record
