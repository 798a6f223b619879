package main

import (
	"fmt"
	"strings"
	"time"
)

// streamStat is the running count of one stream.
type streamStat struct {
	Name   string // "Depth/0"
	Frames uint64
	Drops  uint64
}

// snapshot is the state of a recording or playback at one instant.
type snapshot struct {
	Elapsed time.Duration
	Streams []streamStat
	Bytes   int64 // bytes written (recording) or read (playback)
	Drops   uint64
}

// shortName drops the "/0" index of a stream name when it is the only one
// of its type ("Depth/0" → "Depth"); any other index is named
// ("Infrared/1", and "Infrared/2" also when it is played alone).
func shortName(name string, all []streamStat) string {
	typ, idx, _ := strings.Cut(name, "/")
	if idx != "0" && idx != "" {
		return name
	}
	n := 0
	for _, s := range all {
		if t, _, _ := strings.Cut(s.Name, "/"); t == typ {
			n++
		}
	}
	if n == 1 {
		return typ
	}
	return name
}

// formatRate prints a frame rate with 3 significant-ish digits.
func formatRate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	default:
		return fmt.Sprintf("%.2f", r)
	}
}

// formatMB prints a byte count in decimal megabytes.
func formatMB(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// progressLine formats the live line: elapsed time, frames/s per stream
// over the last interval (prev → cur), MB/s, drops and size.
func progressLine(prev, cur *snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%6.1f s", cur.Elapsed.Seconds())
	dt := (cur.Elapsed - prev.Elapsed).Seconds()
	if dt <= 0 {
		dt = 1
	}
	for i, s := range cur.Streams {
		var before uint64
		if i < len(prev.Streams) {
			before = prev.Streams[i].Frames
		}
		fmt.Fprintf(&b, "  %s %s/s", shortName(s.Name, cur.Streams), formatRate(float64(s.Frames-before)/dt))
	}
	fmt.Fprintf(&b, "  %.1f MB/s  drops %d  %s", float64(cur.Bytes-prev.Bytes)/dt/1e6, cur.Drops, formatMB(cur.Bytes))
	return b.String()
}

// summaryLine formats the final line: frames per stream, drops, bytes,
// elapsed seconds and MB/s.
func summaryLine(verb, path string, s *snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s:", verb, path)
	for i, st := range s.Streams {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s %d", sep, shortName(st.Name, s.Streams), st.Frames)
	}
	if len(s.Streams) == 0 {
		b.WriteString(" no")
	}
	secs := s.Elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(s.Bytes) / secs / 1e6
	}
	fmt.Fprintf(&b, " frames; %d dropped; %d bytes in %.2f s, %.1f MB/s", s.Drops, s.Bytes, secs, rate)
	return b.String()
}

// liveLine rewrites one terminal line in place.
type liveLine struct {
	w    interface{ Write([]byte) (int, error) }
	last int
}

func (l *liveLine) show(s string) {
	pad := ""
	if n := l.last - len(s); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(l.w, "\r%s%s", s, pad)
	l.last = len(s)
}

// clear erases the line so that the next output starts at column 0.
func (l *liveLine) clear() {
	if l.last > 0 {
		fmt.Fprintf(l.w, "\r%s\r", strings.Repeat(" ", l.last))
		l.last = 0
	}
}
