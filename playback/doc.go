// Package playback plays a RealSense bag (file versions 1 to 4) as a
// device: Open rebuilds the recorded topology — device info, sensors with
// their extensions (read-only options, depth units, stereo baseline, sensor
// kinds, recommended filters, notifications), stream profiles with their
// intrinsics, and the extrinsics librealsense derives — and the sensors
// deliver the recorded frames through the sensor.Sensor interface like a
// live camera (testdata/spec/realsense-playback-semantics.md part P).
//
// # Goroutines
//
// Frames are delivered by the rules of package sensor ("Frame delivery").
// A Device owns one reader goroutine, which reads the bag in bag-time order,
// and one worker goroutine of the sensor runtime per started stream, which
// calls the handler. Seek, Pause, Resume, Step, Stop, SetSpeed, SetRealTime and the sensors'
// Open/Start/Stop/Close are requests answered by the reader goroutine: they
// are synchronous (except Start, checked at once and applied by the reader
// before anything else it does) and take no lock that user code could
// hold. SetRealTime
// and SetSpeed are answered even while the reader waits for a handler in
// non-real-time mode (they apply from the next bag time read), so that a
// handler waiting for their caller cannot hang them. Status,
// notification and option-change callbacks run in order on a separate
// goroutine. Close returns after every goroutine of the device has ended.
//
// # Calls from handlers
//
// A frame handler of the device may control playback. Pause, Resume, Seek,
// SeekFrame, SetSpeed and SetRealTime called from a handler return at once
// (argument errors such as a seek beyond the end are still returned) and
// take effect as soon as the handler has returned: in non-real-time mode
// before any other frame is handed out, so that "pause (or seek) at this
// frame" is exact and deterministic; in real time the reader applies them
// at its next turn, like a call from another goroutine. The calls that
// would have to wait for the calling handler — Stop and Step of the device,
// Open, Start, Stop and Close of any of its sensors, and Close of the
// device — fail with an error wrapping sensor.ErrStopFromHandler and change
// nothing; make them from another goroutine (go dev.Stop()). Close from a
// status, notification or option-change callback fails the same way.
//
// # Real time
//
// By default frames leave at their recorded bag-time spacing divided by the
// speed factor (SetSpeed, > 0), on the wall clock. A frame that its
// handler has not taken when the next frame of its stream is due — the
// handler is slower than the stream — is evicted by that frame (Stats
// counts it as dropped), so a slow handler sees only the latest frames and
// never slows the playback or the other streams, as with a live camera. A
// frame is evicted only then: when the reader itself was held up (by the
// scheduler, a slow disk) and hands the overdue frames out back to back,
// they queue (up to 32 per stream) and a handler that keeps up with the
// stream gets every one of them. Nor is a frame evicted by one recorded
// microseconds after it (a recorder that wrote a burst): a handler always
// has at least the stream's nominal frame period (1/fps, divided by the
// speed) to take a frame before a newer one evicts it, and that period
// counts only while the handler is inside a call — a frame that waits
// because the worker has not been scheduled yet is never the handler's
// delay.
//
// # Non-real time: deterministic playback
//
// With Options.NonRealTime or SetRealTime(false) playback is lossless: the
// reader hands each frame to its stream's worker and waits until the
// handler has returned before reading on. Frames of all streams are
// therefore delivered one at a time in bag order (equal bag times in file
// order). After a switch from real time, the frames already handed out in
// real time reach their handlers before the first frame read after the
// switch.
//
// In non-real-time mode the device waits for all opened sensors to start:
// reading begins, and goes on, only while every opened sensor is started.
// Opening the sensors and then starting them one after the other therefore
// loses nothing, with no need to pause first. A sensor that is opened but
// never started (or stopped but not closed) holds playback — the status
// says Playing but no frame is read — until it is started or closed;
// closing it releases playback. (In real-time mode reading begins with the
// first started sensor, as in librealsense, and frames of opened sensors
// that are not started are skipped. Sensor.Start queues the start on the
// reader and returns without waiting for it, as librealsense's playback
// sensor queues its start on its reader thread: the reader applies the
// starts queued before it hands out a frame, so a sensor gets every frame
// of its streams handed out after its Start returned, and sensors started
// one after the other, with nothing in between, all get their first
// frame, however late the reader's goroutine runs.)
//
// The guarantee: every run over the same bag, with the same sensors opened
// and started and the same seeks, delivers the same frames in the same order
// to the same handlers, whatever the machine load or the speed of the
// handlers.
//
// # Position, seek and end of file
//
// Positions are bag times, counted from bag time 0, where a RealSense
// recording has its first message (librealsense's recordings, rsbag's, and
// the parts rs-record edit cuts, whose frames keep their bag times): the
// first frame's position is its capture time, not 0, as librealsense's
// get_position reports. Duration is the position of the last frame, so that
// every position lies in [0, Duration] (librealsense's get_duration, last −
// first frame, is Span's last − first). Seek(t) accepts 0 ≤ t ≤ Duration; the next frames are those at or
// after t, and no frame read before the seek is delivered after Seek
// returns; right after Seek(t), Position is t (also for 0). Seeking while
// stopped sets where the next start begins. Seeking while paused delivers,
// before Seek returns and in either mode, the current picture at t: for
// every started video and motion stream its last frame at or before t (P.35;
// pose streams have none), so that a viewer's seek bar shows where it
// landed; the device stays paused, and Resume or Step go on with the frames
// after that picture, none delivered twice. At the end of the file
// the queued frames are delivered, every sensor stops (staying open) and
// the status becomes Stopped; starting again plays from the beginning.
// Options.Repeat loops instead. A malformed frame message (one that does not
// decode, or an Image whose data is shorter than step × height) or a read error
// (other than a corrupt chunk, see below) also stops playback: Err returns the error and every started sensor gets
// an "Unknown Error" notification.
//
// A corrupt chunk of an indexed bag (its payload fails to decompress or
// its checksum or inner record framing is wrong, while the index is intact)
// does not stop playback: its frames are lost and reading goes on with the
// frames after it, in bag order. Every sensor whose streams had messages in
// that chunk gets a notification of category Frame Corrupted, severity
// Warn, timestamped with the current time, whose description names the
// file, the chunk's offset and size, its bag-time range, the number of
// frames and messages of that sensor that were lost, and the cause.
// device.StreamStats.Lost counts the lost frames per stream; Err stays nil.
// SeekFrame numbers the readable frames only.
//
// Device.Stop stops playback at once: unlike librealsense's stop, which
// leaves the sensors reporting that they stream (P.40), it stops them too,
// so that starting them again plays from the start (or from a seek made
// while stopped).
//
// Deliberate differences from librealsense: the speed must be > 0; resuming
// does not skip a frame; a seek never stalls real-time playback; restarting
// after the end of the file plays again; a seek beyond the duration is an
// error instead of being ignored.
//
// # File version 1
//
// Legacy files (topic /FILE_VERSION, spec §10) are read too: the device
// info is synthesized (Name "Intel RealSense TM2", Product Id 2150, Serial
// Number N/A); /info/4294967295's sensor_count gives the sensors, named
// "Sensor <index>" (entries of /info/<sensor> named like a camera-info field
// are kept; GUID-named entries are ignored, the spec not listing the
// GUIDs); video profiles and intrinsics come from the legacy stream_info
// (width, height and encoding of the message), motion profiles (format
// MOTION_XYZ32F) from motion_stream_info, and a pose profile (6DOF, fps 0)
// from each rs_6DoF<i> frame topic. Extrinsics are the stream_extrinsics
// taken as the transform from the reference point to the stream, with
// reference_point_id as the group. Frames come from the image_raw, imu_raw
// and rs_6DoF topics; a frame_info message at the frame's bag time gives
// its system time, timestamp domain (2 system time, otherwise hardware
// clock) and metadata (each value the little-endian integer of its bytes,
// keyed by its rs2_frame_metadata_value type). Version-1 files have no
// options, notifications or recommended filters.
package playback
