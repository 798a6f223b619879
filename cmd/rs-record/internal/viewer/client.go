package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// Limits of one connection.
const (
	maxCommandBytes = 4 << 10          // a command is a small JSON object
	writeTimeout    = 10 * time.Second // a client that takes no data for that long is dropped
	maxReplies      = 16               // replies waiting to be sent; more are dropped
)

// client is one connected page.
type client struct {
	conn    *websocket.Conn
	png     bool
	wake    chan struct{}
	replies chan []byte
	cancel  context.CancelFunc
	sent    []*picture // per stream: the last picture sent (the page counts the frames it never got from the frame numbers)

	cloud     atomic.Bool // the page shows the point cloud
	sentCloud *picture    // the last cloud sent
}

func (s *Server) clientCount() int {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	return len(s.clients)
}

func (s *Server) wakeClients() {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

func (s *Server) wakeEncoders() {
	for _, st := range s.streams {
		if st.kind == kindVideo {
			st.poke()
		}
	}
}

func (s *Server) dropClients() {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		c.cancel()
	}
}

// serveWS runs one client: a reader of commands and a writer of state and
// pictures.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	codec := r.URL.Query().Get("codec")
	if codec != "" && codec != "jpeg" && codec != "png" {
		http.Error(w, "codec must be jpeg or png", http.StatusBadRequest)
		return
	}
	conn, err := websocket.Accept(w, r, nil) // same-origin only
	if err != nil {
		return
	}
	conn.SetReadLimit(maxCommandBytes)
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{
		conn: conn, png: codec == "png", wake: make(chan struct{}, 1), replies: make(chan []byte, maxReplies),
		cancel: cancel, sent: make([]*picture, len(s.streams)),
	}
	if c.png {
		s.pngUsers.Add(1)
	}
	s.clientsMu.Lock()
	s.clients[c] = struct{}{}
	s.clientsMu.Unlock()
	defer func() {
		s.clientsMu.Lock()
		delete(s.clients, c)
		s.clientsMu.Unlock()
		if c.png {
			s.pngUsers.Add(-1)
		}
		if c.cloud.Load() {
			s.cloudUsers.Add(-1)
		}
		cancel()
		conn.CloseNow()
	}()
	s.wakeEncoders() // the newest pictures for the new client

	go s.readCommands(ctx, c)
	if err := s.writeLoop(ctx, c); err == nil {
		conn.Close(websocket.StatusNormalClosure, "")
	}
}

// writeLoop sends the hello, then the newest state and pictures each time
// there is something new, until the client goes.
func (s *Server) writeLoop(ctx context.Context, c *client) error {
	send := func(typ websocket.MessageType, b []byte) error {
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return c.conn.Write(wctx, typ, b)
	}
	var hello *[]byte
	var stateSeq uint64
	for {
		if h := s.hello.Load(); h != hello {
			// The first message, and again when a stream changed profile.
			hello = h
			if err := send(websocket.MessageText, *h); err != nil {
				return err
			}
		}
		for {
			select {
			case rep := <-c.replies:
				if err := send(websocket.MessageText, rep); err != nil {
					return err
				}
				continue
			default:
			}
			break
		}
		if st := s.state.Load(); st != nil && st.seq != stateSeq {
			stateSeq = st.seq
			if err := send(websocket.MessageText, st.msg); err != nil {
				return err
			}
		}
		for i, st := range s.streams {
			if st.kind != kindVideo {
				continue
			}
			p := st.jpeg.Load()
			if c.png && st.profile().Format != sensor.FormatMJPEG {
				p = st.png.Load() // lossless pictures only (an MJPEG stream has nothing else)
			}
			if p == nil || p == c.sent[i] {
				continue
			}
			c.sent[i] = p
			if err := send(websocket.MessageBinary, p.msg); err != nil {
				return err
			}
		}
		if p := s.primary.cloud.Load(); c.cloud.Load() && p != nil && p != c.sentCloud {
			c.sentCloud = p
			if err := send(websocket.MessageBinary, p.msg); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			return nil
		case <-c.wake:
		}
	}
}

// command is a message from the page.
type command struct {
	Cmd    string  `json:"cmd"`
	T      float64 `json:"t"`      // seek: seconds from the start
	Dir    int     `json:"dir"`    // step: +1 or -1
	X      float64 `json:"x"`      // speed factor; hover: pixel column
	Y      float64 `json:"y"`      // hover: pixel row
	On     bool    `json:"on"`     // loop
	ID     int     `json:"id"`     // hover: stream id
	Scheme int     `json:"scheme"` // scheme index
	Tag    int64   `json:"tag"`    // echoed in the reply
	Full   bool    `json:"full"`   // cloud: every vertex
	Name   string  `json:"name"`   // filter, blockOption: the filter (or the colorizer); record: the file; openCamera: the serial
	Option int     `json:"option"` // blockOption: the option
	Value  float64 `json:"value"`  // blockOption, setOption: its value
	Sensor int     `json:"sensor"` // setOption: the sensor's index
	X2     float64 `json:"x2"`     // ruler: the second pixel
	Y2     float64 `json:"y2"`
	// profile: the index of the profile in the stream's profiles of the hello
	Profile int `json:"profile"`
}

type reply struct {
	Type   string  `json:"type"`
	Cmd    string  `json:"cmd"`
	Tag    int64   `json:"tag"`
	Error  string  `json:"error,omitempty"`
	Meters float64 `json:"meters,omitempty"`
	// hover over a bag with ground truth: the exact depth at the pixel
	Exact  *float64 `json:"exact,omitempty"`
	Number uint64   `json:"number,omitempty"`
	ID     int      `json:"id,omitempty"`
	X      int      `json:"x,omitempty"`
	Y      int      `json:"y,omitempty"`
	// ruler: the two points in meters
	A *[3]float32 `json:"a,omitempty"`
	B *[3]float32 `json:"b,omitempty"`
	// playRecording, openCamera: the URLs of the recording's or camera's page
	URLs []string `json:"urls,omitempty"`
	// cameras: the attached cameras
	Cameras []Camera `json:"cameras,omitempty"`
}

// readCommands reads and runs the page's commands until the connection ends.
func (s *Server) readCommands(ctx context.Context, c *client) {
	defer c.cancel()
	for {
		typ, b, err := c.conn.Read(ctx)
		if err != nil {
			return
		}
		rep := reply{Type: "reply"}
		var cmd command
		if typ != websocket.MessageText {
			rep.Error = "commands are JSON text messages"
		} else if err := json.Unmarshal(b, &cmd); err != nil {
			rep.Error = fmt.Sprintf("bad command: %v", err)
		} else {
			rep.Cmd, rep.Tag = cmd.Cmd, cmd.Tag
			if cmd.Cmd == "hover" || cmd.Cmd == "ruler" {
				rep.ID, rep.X, rep.Y = cmd.ID, int(cmd.X), int(cmd.Y)
			}
			if err := s.run(c, &cmd, &rep); err != nil {
				rep.Error = err.Error()
			}
		}
		out, _ := json.Marshal(rep)
		select {
		case c.replies <- out:
			select {
			case c.wake <- struct{}{}:
			default:
			}
		default: // a client that sends faster than it reads loses replies
		}
		if cmd.Cmd != "hover" && cmd.Cmd != "ruler" && rep.Error == "" {
			s.publishState()
		}
	}
}

// run executes one command.
func (s *Server) run(cl *client, c *command, rep *reply) error {
	switch c.Cmd {
	case "play":
		return s.play()
	case "pause":
		return s.pause()
	case "step":
		if c.Dir != 1 && c.Dir != -1 {
			return fmt.Errorf("step direction %d: must be 1 or -1", c.Dir)
		}
		return s.step(c.Dir)
	case "seek":
		if math.IsNaN(c.T) || math.IsInf(c.T, 0) || c.T < 0 || c.T > 1e9 {
			return fmt.Errorf("seek to %v s: not a time in the bag", c.T)
		}
		return s.seek(time.Duration(c.T * float64(time.Second)))
	case "speed":
		return s.setSpeed(c.X)
	case "loop":
		return s.setLoop(c.On)
	case "scheme":
		if c.Scheme < 0 || c.Scheme >= len(processing.ColorSchemes()) {
			return fmt.Errorf("color scheme %d: must be 0 to %d", c.Scheme, len(processing.ColorSchemes())-1)
		}
		s.scheme.Store(int32(c.Scheme))
		s.wakeEncoders()
		return nil
	case "hover":
		if math.IsNaN(c.X) || math.IsNaN(c.Y) || math.Abs(c.X) > 1e6 || math.Abs(c.Y) > 1e6 {
			return fmt.Errorf("hover at (%v, %v): not a pixel", c.X, c.Y)
		}
		m, n, exact, err := s.hover(c.ID, int(c.X), int(c.Y))
		rep.Meters, rep.Number, rep.Exact = m, n, exact
		return err
	case "filter":
		return s.setFilter(c.Name, c.On)
	case "blockOption":
		return s.setBlockOption(c.Name, c.Option, c.Value)
	case "ruler":
		for _, v := range []float64{c.X, c.Y, c.X2, c.Y2} {
			if math.IsNaN(v) || math.Abs(v) > 1e6 {
				return fmt.Errorf("ruler from (%v, %v) to (%v, %v): not pixels", c.X, c.Y, c.X2, c.Y2)
			}
		}
		a, b, n, err := s.ruler(c.ID, [2]int{int(c.X), int(c.Y)}, [2]int{int(c.X2), int(c.Y2)})
		if err != nil {
			return err
		}
		rep.Meters, rep.Number, rep.A, rep.B = distance3(a, b), n, &a, &b
		return nil
	case "stream":
		return s.setStream(c.ID, c.On)
	case "profile":
		return s.setProfile(c.ID, c.Profile)
	case "setOption":
		return s.setOption(c.Sensor, c.Option, c.Value)
	case "record":
		if c.On {
			return s.startRecording(c.Name)
		}
		return s.stopRecording()
	case "cameras":
		cams, err := s.cameraList()
		rep.Cameras = cams
		return err
	case "openCamera":
		urls, err := s.openCamera(c.Name)
		rep.URLs = urls
		return err
	case "playRecording":
		urls, err := s.openRecording()
		rep.URLs = urls
		return err
	case "cloud":
		if cl.cloud.Swap(c.On) != c.On {
			if c.On {
				s.cloudUsers.Add(1)
			} else {
				s.cloudUsers.Add(-1)
			}
		}
		s.cloudFull.Store(c.Full)
		if p := s.primary.profile(); c.On && p.Format != sensor.FormatZ16 {
			return fmt.Errorf("no point cloud: the stream %s is %s, not Z16 depth", p.Name(), p.Format)
		}
		s.pokeCloud()
		return nil
	default:
		return fmt.Errorf("unknown command %q", c.Cmd)
	}
}
