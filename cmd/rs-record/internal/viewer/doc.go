// Package viewer is the web viewer of rs-record view: an HTTP server that
// plays a bag (or shows a live or synthetic camera) and serves one page which
// draws every stream in the browser.
//
// # What travels to the browser
//
// The page opens one WebSocket (/ws). The server sends:
//
//   - a "hello" text message: the device info, the sensors with their
//     options, the streams, the duration of the bag and whether it can be
//     controlled (a bag) or not (a camera), and the unit output topics the
//     bag holds with their schema versions;
//   - a "state" text message about ten times a second: position, status,
//     speed, loop, per-stream delivered/dropped/lost counters and fps, the
//     option values at the current position, the IMU samples that arrived
//     since the previous state and the latest pose, and for a bag recorded
//     with unit outputs (package units, topics /units/...) each output
//     topic's latest output at or before the position, its bag time and
//     its value as the units package decoded it (JSON), about 80 bytes a
//     topic;
//   - one binary message per video frame: a 4-byte little-endian length, a
//     JSON header (stream id, frame number, timestamp, domain, metadata, size,
//     codec; for a bag recorded with rs-record record --ground-truth, the
//     "truth" of the frame: its stream's pose in the scene, translation "t"
//     in meters and rotation "q" as a quaternion x, y, z, w, as
//     playback.Device.GroundTruth gives it, about 100 bytes) and the
//     encoded picture (JPEG, or PNG when the client asked for lossless
//     pictures with ?codec=png);
//   - to a page that shows the 3D view, one binary message per depth frame
//     on view: the same length and JSON header (kind "cloud"), then the
//     points of processing.PointCloud as int16 x, y, z (meters = value ×
//     scale) and their RGB8 colors, taken from the color (or infrared)
//     frame on view at the points' texture coordinates, or from the
//     colorized depth, then a bit per pixel of the (decimated) depth frame
//     set for the pixels that have a point (the page finds the depth pixel
//     of a point clicked in 3D for the ruler). By default the depth frame is
//     decimated to at most 160 columns first; the "full" toggle sends every
//     vertex.
//
// The browser sends text commands: play, pause, step (+1/-1 frame of the
// primary stream), seek (seconds from the start), speed, loop, scheme (the
// colorizer's color scheme), hover (distance in meters at a depth pixel, and
// the exact depth there, "exact", from a bag with ground truth),
// ruler (the distance between the 3D points of two depth pixels), cloud
// (the 3D view on or off, reduced or full), filter and blockOption (the
// depth filters of the primary depth stream and the colorizer's options,
// applied on the server by the processing blocks to the 2D and 3D views),
// and, for a camera, stream (start or stop one of its streams), profile
// (switch a stream to another of the camera's profiles; every page is sent
// a new hello), cameras and openCamera (the attached cameras, and the page
// of one of them by serial number, shown by a Server of its own on another
// port, with Config.Cameras), setOption (a sensor's option) and record (start or stop
// recording into Config.RecordDir, through the recorder, written under a
// temporary name until complete) and playRecording (the last recording
// served for playback by a Server of its own, on another port of the same
// address, until this one closes). GET /snapshot.ply is the PLY of the point
// cloud on view; its X-Depth-Frame and X-Texture-Frame headers give the
// numbers of the depth and color frames it was made of.
//
// A bag opens paused with the first frame of every stream on view (so that a
// page opened later starts there) until a page presses play, or plays at
// once with Config.Autoplay. After its end the position stays at the
// duration, where the last frame is.
//
// # Frames are encoded once and never wait for a browser
//
// The frame handler only stores the newest frame of its stream and wakes the
// stream's encoder goroutine; playback never waits for the viewer. Each
// encoder renders the newest frame (depth colorized, color and infrared
// converted to RGB) and encodes it once for every client; the primary
// stream's newest frame is first run through the depth filters by a
// goroutine of its own, which hands it to the point cloud without waiting
// for the picture's encoding. Each client has
// one writer goroutine which sends, when the connection is free, the newest
// encoded picture of each stream that it has not sent yet: a slow browser
// skips pictures (they are counted per client) while the others, and the
// playback, go on at full rate. The server holds at most the newest raw
// frame and the newest encoded picture(s) per stream, whatever the number of
// clients, so its memory is bounded.
//
// # Security
//
// The server listens on the loopback interface unless told otherwise, serves
// only its embedded page, the PLY snapshot and the WebSocket (it never reads
// a file other than the bag it was started with, and writes only the
// recordings a page asks for, under a plain file name in Config.RecordDir), refuses requests whose Host is not the
// address it listens on when bound to loopback (DNS rebinding), refuses
// WebSocket upgrades from other origins, and limits the size of every request
// and command.
package viewer
