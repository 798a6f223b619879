package sensor

import "sync/atomic"

var uidCounter atomic.Int64

// NextUID returns a new process-unique stream profile id (StreamProfile.UID),
// for every package that makes profiles: devices, playback and processing
// blocks share one sequence, as librealsense's profiles share one.
func NextUID() int { return int(uidCounter.Add(1)) }
