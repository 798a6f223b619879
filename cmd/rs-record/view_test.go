package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/sensor"
)

// TestViewServesBag: `rs-record view --port 0 BAG` (and, without a bag, the
// synthetic camera) prints the page's URL on its first line, serves the
// page there and stops cleanly on SIGINT.
func TestViewServesBag(t *testing.T) {
	t.Parallel()
	bag := filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	for _, args := range [][]string{{"--loop", bag}, {"--synthetic"}} {
		t.Run(args[0], func(t *testing.T) { testViewServes(t, args...) })
	}
}

// startView starts `rs-record view` with args and returns it with its
// first line and its stderr; the test kills it at its end.
func startView(t *testing.T, args ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"view"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e := &bytes.Buffer{}
	cmd.Stderr = e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v (stderr %s)", err, e.String())
	}
	return cmd, line, e
}

func testViewServes(t *testing.T, args ...string) {
	cmd, line, e := startView(t, append([]string{"--port", "0"}, args...)...)
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line %q is not the page's URL on 127.0.0.1", line)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(page, []byte(`src="/app.js"`)) {
		t.Errorf("GET %s: %s, %d bytes", url, resp.Status, len(page))
	}
	resp, err = http.Get(url + "..%2f..%2fgo.mod")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a path outside the page: %s, want 404", resp.Status)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("view after SIGINT: %v\n%s", err, e.String())
	}
	checkNoPanic(t, result{stderr: e.String()})
}

// TestViewRefusesFIFO: the viewer seeks in the bag, so a FIFO is refused
// with an error naming it instead of blocking.
func TestViewRefusesFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pipe.bag")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	r := rsRecord(t, "view", "--port", "0", fifo)
	if r.code != 1 || !strings.Contains(r.stderr, fifo) || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("view of a FIFO: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestViewBeyondLoopback: `rs-record view --listen 0.0.0.0:0 BAG` prints
// a usable URL per address of the machine, each with the token, warns on
// stderr, and serves the page only with the token and only to its hosts.
func TestViewBeyondLoopback(t *testing.T) {
	t.Parallel()
	bag := filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	cmd, line, e := startView(t, "--listen", "0.0.0.0:0", bag)
	page := strings.TrimSpace(line)
	u, err := url.Parse(page)
	if err != nil || u.Query().Get("token") == "" || u.Hostname() == "" || net.ParseIP(u.Hostname()).IsUnspecified() {
		t.Fatalf("first line %q is not a usable URL with a token", line)
	}
	noToken := *u
	noToken.RawQuery = ""
	for _, tc := range []struct {
		url, host string
		status    int
	}{
		{page, "", 200},
		{noToken.String(), "", 401},
		{page, "evil.com", 403},
	} {
		req, _ := http.NewRequest("GET", tc.url, nil)
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("GET %s (Host %q): %s, want %d", tc.url, tc.host, resp.Status, tc.status)
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("view after SIGINT: %v\n%s", err, e.String())
	}
	if !strings.Contains(e.String(), "warning") || !strings.Contains(e.String(), "all interfaces") {
		t.Errorf("no warning about listening on all interfaces:\n%s", e.String())
	}
	checkNoPanic(t, result{stderr: e.String()})
}

// viewState reads the page's WebSocket of the viewer at page until a state
// message satisfies want (or the guard of a hang runs out) and returns it.
func viewState(t *testing.T, page string, want func(status, file string) bool) (status, file string) {
	t.Helper()
	ctx, cancel := await.Context(t, context.Background()) // a hang fails at the test's deadline
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(page, "http")+"ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("%s: waiting for the state wanted, the last %q: %v", page, status, err)
		}
		if typ != websocket.MessageText {
			continue
		}
		var m struct{ Type, Status, File string }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		switch m.Type {
		case "hello":
			file = m.File
		case "state":
			if status = m.Status; want(status, file) {
				return status, file
			}
		}
	}
}

// TestViewAutoplay: `view BAG` opens the bag paused, `view --autoplay BAG`
// plays it.
func TestViewAutoplay(t *testing.T) {
	t.Parallel()
	bag := filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{bag}, "Paused"},
		{[]string{"--autoplay", "--loop", bag}, "Playing"},
	} {
		cmd, line, e := startView(t, append([]string{"--port", "0"}, tc.args...)...)
		if tc.want == "Paused" {
			if st, _ := viewState(t, strings.TrimSpace(line), func(string, string) bool { return true }); st != "Paused" {
				t.Errorf("view %q: first state %s, want Paused", tc.args, st)
			}
		} else {
			viewState(t, strings.TrimSpace(line), func(st, _ string) bool { return st == tc.want })
		}
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Errorf("view after SIGINT: %v\n%s", err, e.String())
		}
	}
}

// TestViewCamerasOverUSB: the cameras a camera's page switches to are the
// attached ones, by serial number and name; each opens with the view's
// default streams for its product and records into the current directory.
func TestViewCamerasOverUSB(t *testing.T) {
	second := usbtest.D435Desc()
	second.Address, second.Path, second.Serial = 4, []int{2}, "210987654321"
	tr := usbtest.New(fakeD435i(), usbtest.NewDevice(second, usbtest.D435Config(false), usbtest.DefaultFirmware().OpenOps(false)...))
	e := &env{stdout: io.Discard, stderr: io.Discard, usb: tr}
	rc, err := parseRecordFlags(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	cams := &usbCameras{e: e, rc: rc}
	list, err := cams.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list {
		got = append(got, c.Serial+" "+c.Name)
	}
	if want := []string{"012345678901 Intel RealSense D435I", "210987654321 Intel RealSense D435"}; !slices.Equal(got, want) {
		t.Errorf("cameras %q; want %q", got, want)
	}
	cfg, err := cams.Open(context.Background(), "012345678901")
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Device.Close()
	wd, _ := os.Getwd()
	if cfg.Device.Info()[sensor.CameraInfoSerialNumber] != "012345678901" || len(cfg.Profiles) == 0 || cfg.RecordDir != wd || cfg.RecordOptions == nil {
		t.Errorf("opened %v with %d profiles, record dir %q, options %v", cfg.Device.Info(), len(cfg.Profiles), cfg.RecordDir, cfg.RecordOptions)
	}
	if _, err := cams.Open(context.Background(), "999"); err == nil || !strings.Contains(err.Error(), "999") {
		t.Errorf("opening an unknown serial: %v", err)
	}
}
