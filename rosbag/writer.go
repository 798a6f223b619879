package rosbag

import "io"

// A Writer writes a bag. Its methods must be called from one goroutine.
type Writer struct{}

// NewWriter starts a bag on w, which must be positioned at its start. The
// Writer borrows w: Close does not close it.
func NewWriter(w io.WriteSeeker, opts *WriterOptions) (*Writer, error) { return nil, nil }

// Create creates (or truncates) the file path and starts a bag on it; Close
// closes the file.
func Create(path string, opts *WriterOptions) (*Writer, error) { return nil, nil }

// AddConnection declares a topic and returns its connection id. Ids are
// 0, 1, 2… in call order; a topic may be added only once.
func (w *Writer) AddConnection(topic, typ, md5, def string) (uint32, error) { return 0, nil }

// WriteMessage appends a message of connection conn at time t (≥ MinTime).
// data is copied before WriteMessage returns.
func (w *Writer) WriteMessage(conn uint32, t Time, data []byte) error { return nil }

// Flush finalizes the open chunk and returns once every finalized chunk was
// written to the underlying writer.
func (w *Writer) Flush() error { return nil }

// Close finalizes the bag: writes the open chunk, the index section and the
// bag header. It returns the first error of the Writer's life.
func (w *Writer) Close() error { return nil }

// Size returns the number of bytes written to the underlying writer so far.
func (w *Writer) Size() int64 { return 0 }

// Err returns the sticky error of the Writer, if any.
func (w *Writer) Err() error { return nil }
