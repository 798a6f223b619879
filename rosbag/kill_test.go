package rosbag

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestKilledWriter re-executes the test binary as a child that writes a bag
// and reports on stdout how many messages it has flushed; the child is
// killed with SIGKILL and the bag must yield at least those messages.
func TestKilledWriter(t *testing.T) {
	if p := os.Getenv("ROSBAG_KILL_CHILD"); p != "" {
		killChild(p)
		return
	}
	for _, comp := range []string{"lz4", "none"} {
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "killed.bag")
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$")
			cmd.Env = append(os.Environ(), "ROSBAG_KILL_CHILD="+path, "ROSBAG_KILL_COMP="+comp)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cmd.StdinPipe(); err != nil { // open until the child is killed
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			flushed := 0
			for sc.Scan() {
				if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "flushed ")); err == nil {
					flushed = n
					if n >= 3000 {
						break
					}
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if flushed == 0 {
				t.Fatal("child reported nothing")
			}
			r, err := Open(path, nil)
			if err == nil {
				err = r.Unindexed()
			}
			if r == nil || !errors.Is(err, ErrUnindexed) {
				t.Fatalf("open: %v", err)
			}
			defer r.Close()
			it := r.Messages(nil)
			n := 0
			for it.Next() {
				m := it.Message()
				if int(binary.LittleEndian.Uint32(m.Data)) != int(m.Time)-1 {
					t.Fatalf("message at %v holds %d", m.Time, binary.LittleEndian.Uint32(m.Data))
				}
				n++
			}
			if it.Err() != nil || n < flushed {
				t.Errorf("recovered %d messages (err %v), child had flushed %d", n, it.Err(), flushed)
			}
			t.Logf("child flushed %d, recovered %d; %v", flushed, n, err)
			// Reindex makes it a proper indexed bag.
			rc, err := Reindex(path)
			if err != nil || rc == nil {
				t.Fatalf("reindex: %v", err)
			}
			r2, err := Open(path, nil)
			if err != nil {
				t.Fatalf("after reindex: %v", err)
			}
			if got := r2.Info().Messages; got != uint64(n) {
				t.Errorf("after reindex: %d messages, want %d", got, n)
			}
			r2.Close()
			if rep, ok := runChecker(t, "bagcheck-ros", path); ok && !rep.OK {
				t.Errorf("bagcheck-ros after reindex: %v", rep.Errors)
			}
		})
	}
}

// killChildMessages is how many messages the child writes before it waits
// to be killed: past the 3000 the parent waits for, so that the kill may
// come while it writes, and few enough that a slow parent finds a small
// file.
const killChildMessages = 10000

func killChild(path string) {
	w, err := Create(path, &WriterOptions{Compression: os.Getenv("ROSBAG_KILL_COMP"), ChunkThreshold: 16 << 10})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, _ := w.AddConnection("/a", "std_msgs/UInt32", uint32MD5, uint32Def, nil)
	for i := range killChildMessages {
		if err := w.WriteMessage(c, Time(i+1), binary.LittleEndian.AppendUint32(nil, uint32(i))); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if i%500 == 499 {
			if err := w.Flush(); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Printf("flushed %d\n", i+1)
		}
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed (or the test's end closes stdin)
}
