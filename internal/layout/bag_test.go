package layout

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/rsbag/rsbag/msgs"
)

// testBags lists the reference bags of the repository.
func testBags(t testing.TB) []string {
	t.Helper()
	var bags []string
	for _, pat := range []string{
		"../../testdata/librealsense/*.bag",
		"../../testdata/librealsense/real/*.bag",
		"../../testdata/spec/ref-head-v4-softdevice.bag",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		bags = append(bags, m...)
	}
	if len(bags) < 3 {
		t.Fatalf("found only %d test bags", len(bags))
	}
	sort.Strings(bags)
	return bags
}

type bagMessage struct {
	Topic, Type, MD5 string
	Time             msgs.Time
	Data             []byte
}

// readBag returns every message of a bag in file order (a minimal ROS bag
// 2.0 scanner for tests; chunks "none" and "lz4").
func readBag(t testing.TB, path string) []bagMessage {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const magic = "#ROSBAG V2.0\n"
	if !bytes.HasPrefix(raw, []byte(magic)) {
		t.Fatalf("%s: not a bag", path)
	}
	conns := map[uint32]bagMessage{}
	var out []bagMessage
	var scan func(b []byte, top bool)
	scan = func(b []byte, top bool) {
		for len(b) > 0 {
			hdr, data, rest, err := splitRecord(b)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			b = rest
			switch op := hdr["op"]; {
			case len(op) == 1 && op[0] == 0x05 && top:
				var payload []byte
				switch string(hdr["compression"]) {
				case "none":
					payload = data
				case "lz4":
					payload, err = io.ReadAll(lz4.NewReader(bytes.NewReader(data)))
					if err != nil {
						t.Fatalf("%s: lz4: %v", path, err)
					}
				default:
					t.Fatalf("%s: compression %q", path, hdr["compression"])
				}
				scan(payload, false)
			case len(op) == 1 && op[0] == 0x07:
				id := binary.LittleEndian.Uint32(hdr["conn"])
				if _, ok := conns[id]; ok {
					continue
				}
				ch, err := parseHeader(data)
				if err != nil {
					t.Fatalf("%s: connection %d: %v", path, id, err)
				}
				conns[id] = bagMessage{Topic: string(hdr["topic"]), Type: string(ch["type"]), MD5: string(ch["md5sum"])}
			case len(op) == 1 && op[0] == 0x02:
				c, ok := conns[binary.LittleEndian.Uint32(hdr["conn"])]
				if !ok {
					t.Fatalf("%s: message before its connection", path)
				}
				tm := hdr["time"]
				c.Time = msgs.Time{Sec: binary.LittleEndian.Uint32(tm), Nsec: binary.LittleEndian.Uint32(tm[4:])}
				c.Data = data
				out = append(out, c)
			}
		}
	}
	scan(raw[len(magic):], true)
	return out
}

func splitRecord(b []byte) (map[string][]byte, []byte, []byte, error) {
	if len(b) < 4 {
		return nil, nil, nil, fmt.Errorf("short record")
	}
	hl := int(binary.LittleEndian.Uint32(b))
	if hl > len(b)-8 {
		return nil, nil, nil, fmt.Errorf("short record header")
	}
	hdr, err := parseHeader(b[4 : 4+hl])
	if err != nil {
		return nil, nil, nil, err
	}
	b = b[4+hl:]
	dl := int(binary.LittleEndian.Uint32(b))
	if dl > len(b)-4 {
		return nil, nil, nil, fmt.Errorf("short record data")
	}
	return hdr, b[4 : 4+dl], b[4+dl:], nil
}

func parseHeader(b []byte) (map[string][]byte, error) {
	h := map[string][]byte{}
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("short header field")
		}
		n := int(binary.LittleEndian.Uint32(b))
		if n > len(b)-4 {
			return nil, fmt.Errorf("short header field")
		}
		k, v, ok := bytes.Cut(b[4:4+n], []byte("="))
		if !ok {
			return nil, fmt.Errorf("header field without =")
		}
		h[string(k)] = v
		b = b[4+n:]
	}
	return h, nil
}
