package record

import (
	"fmt"
	"time"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// Compression values for Options.Compression, as written in chunk records.
const (
	CompressionLZ4  = "lz4"
	CompressionNone = "none"
)

// Defaults used when the corresponding Options field is zero.
const (
	// defaultQueueSize is the number of frames the recording queue holds.
	// It is deep enough to ride out disk and scheduling stalls of a second
	// or more at IMU rates (hundreds of small frames per second); memory is
	// bounded by defaultQueueBytes.
	defaultQueueSize = 4096
	// defaultQueueBytes bounds the frame bytes the recording queue holds
	// (librealsense's recorder cache limit is about 250 MB).
	defaultQueueBytes = 256 << 20
)

// Options configures a record device. The zero value (or nil) records like
// librealsense: LZ4 chunks of 768 KiB, flushed at least every second.
type Options struct {
	// Compression is CompressionLZ4 (default when empty) or CompressionNone.
	Compression string
	// ChunkThreshold is the uncompressed chunk size in bytes after which a
	// chunk is closed; 0 means rosbag's default (768 KiB).
	ChunkThreshold int
	// FlushInterval bounds how long written messages may stay in memory
	// before they reach the file (what a killed process can lose); 0 means
	// rosbag's default (1 s).
	FlushInterval time.Duration
	// QueueSize is the number of frames waiting for the writer goroutine
	// beyond which frames are dropped (or waited for, with Lossless); 0 means
	// 4096.
	QueueSize int
	// QueueBytes bounds the frame data waiting for the writer goroutine; 0
	// means 256 MiB.
	QueueBytes int64
	// Lossless makes a frame handler wait for queue space instead of
	// dropping the frame. Use it only with sources that are not real time.
	Lossless bool
	// Origin, when not zero, is the instant of bag time 0 instead of the
	// arrival of the first frame. Devices recorded together as one session
	// (package rig) share one, so that their bag times compare: a frame at
	// bag time t in one bag and one at t in another arrived at the same
	// instant. Frames that arrive before it are recorded at bag time 0.
	Origin time.Time
	// Notes are written to /additional_info after the program's name and
	// version, in order (rs-record record --note KEY=VALUE).
	Notes []Note
	// Companions, when set, is called with every frame that reaches the
	// recorder, on the frame's delivery goroutine before the frame is
	// queued, and returns messages to record beside it (when the frame is
	// recorded) at the frame's bag time: the
	// ground truth of a synthetic camera, say. Their topics must lie outside
	// the RealSense topic layout (spec §4; librealsense's reader and the
	// player ignore them): one that the layout knows stops the recording
	// with an error.
	Companions func(f *sensor.Frame) []Companion
}

// Companion is a message recorded beside a frame (Options.Companions).
type Companion struct {
	Topic string
	Msg   msgs.Message
}

// Note is a key and value of the /additional_info topic.
type Note struct{ Key, Value string }

func (o *Options) withDefaults() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	switch r.Compression {
	case "":
		r.Compression = CompressionLZ4
	case CompressionLZ4, CompressionNone:
	default:
		return r, fmt.Errorf("record: compression %q: want %q or %q", r.Compression, CompressionLZ4, CompressionNone)
	}
	if r.ChunkThreshold < 0 {
		return r, fmt.Errorf("record: chunk threshold %d: want ≥ 0", r.ChunkThreshold)
	}
	if r.FlushInterval < 0 {
		return r, fmt.Errorf("record: flush interval %v: want ≥ 0", r.FlushInterval)
	}
	if r.FlushInterval == 0 {
		r.FlushInterval = time.Second
	}
	if r.QueueSize < 0 || r.QueueBytes < 0 {
		return r, fmt.Errorf("record: queue size %d frames, %d bytes: want ≥ 0", r.QueueSize, r.QueueBytes)
	}
	if r.QueueSize == 0 {
		r.QueueSize = defaultQueueSize
	}
	if r.QueueBytes == 0 {
		r.QueueBytes = defaultQueueBytes
	}
	return r, nil
}

// StreamStats counts the frames of one recorded stream.
type StreamStats struct {
	Sensor int           // sensor index
	Stream sensor.Stream // stream type
	Index  int           // stream index

	Frames       uint64 // frames written to the bag
	Bytes        uint64 // frame data bytes written (Frame.Data)
	Dropped      uint64 // frames dropped because the queue was full
	DroppedBytes uint64 // frame data bytes dropped
	Paused       uint64 // frames not recorded because recording was paused
	// Refused counts the frames not recorded because their message would
	// be larger than rosbag.MaxMessageSize, the largest a bag reader
	// accepts (each one is reported by a notification).
	Refused uint64
}

// Name returns "Stream/index", e.g. "Depth/0".
func (s StreamStats) Name() string { return fmt.Sprintf("%s/%d", s.Stream, s.Index) }

// Stats is a snapshot of a recording.
type Stats struct {
	// Streams holds one entry per stream that delivered a frame, in the
	// order the streams first did.
	Streams []StreamStats
	// Frames, Bytes, Dropped and DroppedBytes total the streams.
	Frames, Bytes, Dropped, DroppedBytes uint64
	// Refused totals StreamStats.Refused.
	Refused uint64
	// Elapsed is the wall time since the first frame reached the recorder
	// (0 before).
	Elapsed time.Duration
	// MBPerSec is the frame data written per second of Elapsed, in 10⁶ bytes.
	MBPerSec float64
	// FileSize is the number of bytes written to the file so far.
	FileSize int64
	// Queued is the number of frames waiting for the writer goroutine.
	Queued int
	// Err is the error that stopped recording, if any.
	Err error
}
