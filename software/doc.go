// Package software implements the software device (what rs2::software_device
// is in librealsense) and, on top of it, the synthetic camera.
//
// # Software device
//
// A Device is built from code: New, then AddSensor, then streams
// (AddVideoStream, AddMotionStream, AddPoseStream), options (AddOption,
// AddReadOnlyOption; SetReadOnlyOption changes a value from the device
// side), info and extrinsics
// (RegisterExtrinsics). The user then opens and starts its sensors like any
// other device, and the code that owns the device injects frames
// (Sensor.Inject) and notifications (Sensor.Notify).
//
// Delivery follows the rules of package sensor ("Frame delivery"): each
// started sensor owns one delivery goroutine (a worker of
// the sensor runtime, as every backend's) that calls the
// handler for every injected frame, in injection order. Inject hands the frame
// to that goroutine and returns once it has been taken (an unbuffered
// hand-off), so a producer never runs more than one frame ahead of a slow
// handler and nothing is dropped. Flush waits until every frame injected
// before it has been handled. Stop is synchronous and Close is idempotent;
// no goroutine outlives Close. A call that would wait for the goroutine it
// runs on (Stop, Close or Inject from the sensor's own handler, device Close
// from any handler or from the synthetic camera's timeline) returns an error
// wrapping sensor.ErrStopFromHandler instead of deadlocking.
//
// Extrinsics groups are numbered from 1, as
// librealsense numbers those of a software device.
//
// Extrinsics: registrations are kept as librealsense keeps them, and every
// ordered pair is reported exactly (bit for bit) as librealsense playback
// reports it for a recording of the device: each connected set of streams
// is a group whose pin is the "from" stream of its first registration, and
// pairs are derived from the pins as device.Snapshot.Pinned says.
//
// # Synthetic camera
//
// NewSynthetic builds a software device whose sensors, streams, options,
// info, extrinsics and frames are the deterministic content described for the
// reference bags in testdata/librealsense/README.md; see SyntheticConfig (the
// module's tests take each reference bag's configuration from
// internal/testsupport/refcam).
//
// With SyntheticConfig.Scene, the same camera films a 3D scene instead of
// the reference pattern (package software/scene): every video stream is ray
// cast through its own intrinsics and extrinsics from the camera's pose on a
// trajectory, the accelerometer and gyroscope sample that trajectory, and
// GroundTruth gives each frame's pose and exact depth. Without it (the zero
// value, and the reference bags' configurations) every frame is exactly what it was before.
//
// Options: every sensor gets librealsense's Frames Queue Size option
// (default 16), which reports 0 while the sensor streams, as librealsense
// does in the reference bags (0 for sensors streaming when recording began, 16
// for a sensor started later). The synthetic camera's option ranges are not
// recorded in any bag; DefaultRange gives the ones it uses.
//
// System time: like librealsense's software device, which leaves the system
// time of injected frames at 0 (every reference bag holds system_time
// 0.000000), synthetic frames carry Frame.SystemTimeMs 0 unless
// SyntheticConfig.HostSystemTime asks for the arrival time on the wall clock.
//
// Pose rotations are glibc 2.36's sinf/cosf of 0.005f·n, as in the
// reference pose.bag: float32(math.Sin/Cos(float64(x))) except for the frames
// where testdata/librealsense/README.md documents glibc one float32 step away
// (sin for n = 19, 93, 99, 109, 136; cos for n = 169, 197, 199), which a
// small table supplies.
//
// # Frame buffers
//
// Frames are never pooled or reused: a frame's Data is immutable once the
// frame is handed out, whoever keeps it. The synthetic camera allocates one
// new buffer per frame when it renders exact contents; with
// SyntheticConfig.PreparedFrames it renders a few frames per stream in advance
// and hands the same immutable buffers out again, so the steady state
// allocates no pixel buffers at all and the frame-lifetime contract needs no
// release step.
package software
