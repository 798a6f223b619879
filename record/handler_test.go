package record

import (
	"errors"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/sensor"
)

// noHang fails the test if f does not return: the calls under test would
// otherwise deadlock.
func noHang(t *testing.T, what string, f func()) {
	t.Helper()
	await.Do(t, what, f)
}

// TestCallsFromHandler: Stop and Close of a record sensor called from its
// own handler fail like the wrapped sensor's (sensor.ErrStopFromHandler)
// instead of hanging, and Flush and Close of the record device work from a
// handler.
func TestCallsFromHandler(t *testing.T) {
	td := newTestDevice(t, 8, 4)
	defer td.dev.Close()
	rec, err := NewWriter(td.dev, &memFile{}, &Options{Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Sensors()[0]
	if err := s.Open(td.depth); err != nil {
		t.Fatal(err)
	}
	var stopErr, closeErr, flushErr, recCloseErr error
	calls := 0
	if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		calls++
		switch calls {
		case 1:
			stopErr, closeErr = s.Stop(), s.Close()
			flushErr = rec.Flush()
		case 2:
			recCloseErr = rec.Close()
		}
	})); err != nil {
		t.Fatal(err)
	}
	noHang(t, "calls from the handler", func() {
		for i := 0; i < 3; i++ {
			if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
				t.Error(err)
			}
			td.depthS.Flush()
		}
	})
	if !errors.Is(stopErr, sensor.ErrStopFromHandler) || !errors.Is(closeErr, sensor.ErrStopFromHandler) {
		t.Errorf("Stop, Close from the handler = %v, %v; want sensor.ErrStopFromHandler", stopErr, closeErr)
	}
	if flushErr != nil || recCloseErr != nil {
		t.Errorf("record device Flush, Close from the handler = %v, %v", flushErr, recCloseErr)
	}
	if calls != 3 {
		t.Errorf("handler ran %d times, want 3 (streaming goes on after the record device closes)", calls)
	}
	if st := rec.Stats(); st.Frames != 2 {
		t.Errorf("recorded %d frames, want 2 (the third arrived after Close)", st.Frames)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestCallsFromNotification: the recorder's own notification (here the write
// error) reaches a callback that may call Flush and Close of the record
// device and Stop of the sensor without hanging.
func TestCallsFromNotification(t *testing.T) {
	td := newTestDevice(t, 64, 48)
	defer td.dev.Close()
	rec, err := NewWriter(td.dev, &memFile{limit: 20_000}, &Options{Compression: CompressionNone, ChunkThreshold: 4 << 10, Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Sensors()[0]
	var mu sync.Mutex
	var got []error
	s.(extensions.Notifier).OnNotification(func(n sensor.Notification) {
		if n.Severity != sensor.SeverityError {
			return
		}
		flushErr := rec.Flush()
		closeErr := rec.Close()
		stopErr := s.Stop()
		mu.Lock()
		got = append(got, flushErr, closeErr, stopErr)
		mu.Unlock()
	})
	var log handlerLog
	openStart(t, s, &log, td.depth)
	noHang(t, "calls from the notification callback", func() {
		for i := 0; i < 20; i++ {
			if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
				t.Error(err)
			}
			td.depthS.Flush()
			_ = rec.Flush()
		}
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("write error notified %d times, want once", len(got)/3)
	}
	if !errors.Is(got[0], errDiskFull) || !errors.Is(got[1], errDiskFull) || !errors.Is(got[2], sensor.ErrStopFromHandler) {
		t.Errorf("Flush, Close, Stop from the callback = %v", got)
	}
	if log.count() != 20 {
		t.Errorf("handler got %d frames, want 20", log.count())
	}
}
