package viewer

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/playback"
)

const testToken = "k7Q2mZ9vXe4TfLp0sRb8Wy"

// TestBeyondLoopbackNeedsToken: a viewer listening on every interface
// serves the page, its assets and the WebSocket only with the token (in
// the URL, then in the cookie the page sets), refuses a Host that is not
// one of its own (403) and a WebSocket from another origin (403).
func TestBeyondLoopbackNeedsToken(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "0.0.0.0:0", Config{Token: testToken})
	_, port, _ := net.SplitHostPort(ts.addr)
	var cookie *http.Cookie
	for _, tc := range []struct {
		name, path, host string
		withCookie       bool
		status           int
	}{
		{"no token", "/", "", false, 401},
		{"wrong token", "/?token=" + testToken[:len(testToken)-1] + "x", "", false, 401},
		{"short token", "/?token=k7Q2", "", false, 401},
		{"asset without token", "/app.js", "", false, 401},
		{"token", "/?token=" + testToken, "", false, 200},
		{"asset with the cookie", "/app.js", "", true, 200},
		{"other host", "/?token=" + testToken, "evil.com", false, 403},
		{"other host and port", "/?token=" + testToken, "evil.com:" + port, false, 403},
	} {
		req, err := http.NewRequest("GET", ts.url+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.withCookie {
			if cookie == nil {
				t.Fatal("the page set no cookie")
			}
			req.AddCookie(cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: GET %s (Host %q): status %d, want %d", tc.name, tc.path, tc.host, resp.StatusCode, tc.status)
		}
		for _, c := range resp.Cookies() {
			if c.Name == tokenCookie {
				if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
					t.Errorf("token cookie %v: want HttpOnly and SameSite=Strict", c)
				}
				cookie = c
			}
		}
	}

	ctx, cancel := await.Context(t, context.Background())
	defer cancel()
	for _, tc := range []struct {
		name, query, origin string
		status              int
	}{
		{"no token", "", "", 401},
		{"token from another origin", "?token=" + testToken, "http://evil.com", 403},
		{"token from another origin with the port", "?token=" + testToken, "http://evil.com:" + port, 403},
		{"token", "?token=" + testToken, "", 101},
		{"token from the page's origin", "?token=" + testToken, "http://" + ts.addr, 101},
	} {
		h := http.Header{}
		if tc.origin != "" {
			h.Set("Origin", tc.origin)
		}
		conn, resp, err := websocket.Dial(ctx, "ws://"+ts.addr+"/ws"+tc.query, &websocket.DialOptions{HTTPHeader: h})
		if resp == nil {
			t.Fatalf("%s: no response (%v)", tc.name, err)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("%s: WebSocket status %d (%v), want %d", tc.name, resp.StatusCode, err, tc.status)
		}
		if conn != nil {
			conn.CloseNow()
		}
	}
	// A WebSocket with the page's cookie and no token in its URL.
	conn, resp, err := websocket.Dial(ctx, "ws://"+ts.addr+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie.String()}}})
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Errorf("WebSocket with the cookie: %v", err)
	} else {
		conn.CloseNow()
	}
}

// TestLoopbackNeedsNoToken: on loopback the page is served without a token
// and Host names beyond loopback stay refused.
func TestLoopbackNeedsNoToken(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "127.0.0.1:0", Config{Token: testToken})
	for host, status := range map[string]int{"": 200, "evil.com": 403} {
		req, _ := http.NewRequest("GET", ts.url+"/", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("Host %q: status %d, want %d", host, resp.StatusCode, status)
		}
	}
}

// TestServeBeyondLoopbackWithoutToken: Serve refuses to listen beyond
// loopback without a token.
func TestServeBeyondLoopbackWithoutToken(t *testing.T) {
	dev, err := playback.Open(filepath.Join(refDir, "depth_color.bag"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	srv, err := Start(Config{Device: dev})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := srv.Serve(context.Background(), ln); !errors.Is(err, ErrNoToken) {
		t.Errorf("Serve = %v, want ErrNoToken", err)
	}
}

// TestPageURLs: on every interface the URLs are one per address of the
// machine, each with the token; on loopback the one URL has none.
func TestPageURLs(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "0.0.0.0:0", Config{Token: testToken})
	urls := ts.srv.PageURLs(ts.ln)
	_, port, _ := net.SplitHostPort(ts.addr)
	if len(urls) == 0 {
		t.Fatal("no URL")
	}
	loopbackSeen := false
	for _, u := range urls {
		if !strings.HasPrefix(u, "http://") || !strings.HasSuffix(u, ":"+port+"/?token="+testToken) || strings.Contains(u, "0.0.0.0") {
			t.Errorf("URL %q: want http://ADDRESS:%s/?token=%s", u, port, testToken)
		}
		loopbackSeen = loopbackSeen || strings.HasPrefix(u, "http://127.0.0.1:")
	}
	if !loopbackSeen {
		t.Errorf("URLs %q lack the loopback address", urls)
	}
	lo := startOn(t, filepath.Join(refDir, "depth_color.bag"), "127.0.0.1:0", Config{Token: testToken})
	if got := lo.srv.PageURLs(lo.ln); len(got) != 1 || got[0] != lo.url+"/" {
		t.Errorf("loopback URLs %q, want [%s/]", got, lo.url)
	}
}

// TestFrameAncestors: no page may frame the viewer.
func TestFrameAncestors(t *testing.T) {
	ts := startTest(t, filepath.Join(refDir, "depth_color.bag"), false)
	resp, err := http.Get(ts.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q lacks frame-ancestors 'none'", csp)
	}
	if xfo := resp.Header.Get("X-Frame-Options"); xfo != "DENY" {
		t.Errorf("X-Frame-Options %q, want DENY", xfo)
	}
}

// pipeListener hands out the server ends of in-memory connections.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}
func (l *pipeListener) Close() error   { close(l.done); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// TestIdleConnectionClosed: the viewer's HTTP server closes a keep-alive
// connection that stays idle for idleTimeout, and not before.
func TestIdleConnectionClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hs := httpServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
		ln := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
		go hs.Serve(ln)
		defer hs.Close()
		client, server := net.Pipe()
		ln.conns <- server
		go client.Write([]byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"))
		br := bufio.NewReader(client)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		closed := make(chan error, 1)
		go func() { _, err := br.ReadByte(); closed <- err }()
		time.Sleep(idleTimeout - time.Second)
		synctest.Wait()
		select {
		case err := <-closed:
			t.Fatalf("the connection ended before its idle timeout: %v", err)
		default:
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		select {
		case <-closed:
		default:
			t.Fatalf("the connection is open %v after its last response", idleTimeout+time.Second)
		}
	})
}
