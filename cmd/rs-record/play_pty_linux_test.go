//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/rsbag/rsbag/internal/testsupport/await"
)

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("pty number: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pty slave: %v", err)
	}
	return m, s
}

// screen collects what the program writes to the terminal.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	closed  bool          // the terminal has no writer left
	changed chan struct{} // a value after a write or the close, merged
}

func newScreen() *screen { return &screen{changed: make(chan struct{}, 1)} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.buf.Write(p)
	s.mu.Unlock()
	s.signal()
	return n, err
}

// close records that nothing more will be written.
func (s *screen) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
}

func (s *screen) signal() {
	select {
	case s.changed <- struct{}{}:
	default: // one is pending already
	}
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the text written after mark contains want and
// returns the new mark, looking at the text again after each write: the
// program's output is the only event, and the test's deadline the only
// limit.
func (s *screen) waitFor(t *testing.T, mark int, want string) int {
	t.Helper()
	for {
		s.mu.Lock()
		out, closed := s.buf.String(), s.closed
		s.mu.Unlock()
		if i := strings.Index(out[mark:], want); i >= 0 {
			return mark + i + len(want)
		}
		if closed {
			t.Fatalf("no %q on the terminal, which has no writer left; it shows:\n%q", want, out[mark:])
		}
		await.Recv(t, fmt.Sprintf("%q on the terminal", want), s.changed)
	}
}

// TestPlayKeys drives `rs-record play` on a terminal: space pauses and
// resumes, the right arrow seeks 5 s ahead (to the end of a shorter bag),
// the left arrow back to the start, and q quits with the summary line.
func TestPlayKeys(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(binPath, "play", "--loop", "--rate", "0.5", "../../testdata/librealsense/depth_color.bag")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	scr := newScreen()
	drained := make(chan struct{}) // closed when the terminal has no writer left
	go func() {
		defer close(drained)
		defer scr.close()
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			scr.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()
	key := func(k string) {
		if _, err := master.Write([]byte(k)); err != nil {
			t.Fatalf("type %q: %v", k, err)
		}
	}

	mark := scr.waitFor(t, 0, "Playing")
	key(" ")
	mark = scr.waitFor(t, mark, "Paused")
	key("\x1b[C") // → : 5 s ahead, clamped to the duration
	mark = scr.waitFor(t, mark, "1.0 s / 1.0 s  Paused")
	key("\x1b[D") // ← : back to the start
	mark = scr.waitFor(t, mark, "0.0 s / 1.0 s  Paused")
	key(" ")
	mark = scr.waitFor(t, mark, "Playing")
	key("q")
	if err := await.Recv(t, "the end of rs-record play after q", exited); err != nil {
		t.Fatalf("rs-record play ended with %v; terminal:\n%q", err, scr.String())
	}
	// The program has exited: the reader gets its last output, then EIO.
	await.Recv(t, "the terminal's last output", drained)
	if out := scr.String()[mark:]; !strings.Contains(out, "Depth/0") || !strings.Contains(out, "Color/0") {
		t.Errorf("no per-stream summary after q:\n%q", out)
	}
}
