// Command rs-record records Intel RealSense cameras (or a synthetic camera)
// to RealSense ".bag" files, and inspects, plays and dumps such files.
//
// Usage:
//
//	rs-record [record] [-t SECONDS] [-f FILE] [flags]   record a session (the default command)
//	rs-record info [--json] [--quick] BAG                describe a bag
//	rs-record play [flags] BAG                           play a bag through the playback device
//	rs-record dump [--seek T] [--limit N] BAG        print a bag as JSON lines
//	rs-record view [--port N] [--loop] [BAG]             show a bag (or the camera) in the browser
//	rs-record export --mcap OUT.mcap BAG                 write a bag as an MCAP file
//	rs-record import IN.mcap OUT.bag                     turn such an MCAP file back into a bag
//	rs-record convert -p|-r|-v|-b|-l PREFIX BAG         write frames as files (as rs-convert)
//	rs-record edit trim|split|compress|decompress|reindex ...  rewrite a bag
//	rs-record devices [--json]                           list the attached cameras (as rs-enumerate-devices)
//	rs-record --version                                  print the module version and commit
//
// Every command accepts -h. The exit status is 0 on success, 1 on an error,
// 2 on a usage error and 3 when a bag is damaged (see internal/tools/damage:
// it is read as far as it can be, every loss is reported, and --allow-damaged
// makes the status 0). Errors are printed as one line on stderr that names
// the file and the problem.
//
// info, dump, play, export and convert read a BAG by a file:// URL, and
// in the cloud build (go build -tags cloud ./cmd/rs-record) a BAG in object
// storage by its URL (s3://BUCKET/KEY, gs://, azblob://; see package
// blobfile) with range requests, without downloading it. The default build
// leaves the cloud SDKs out: it builds in a fraction of the time, and its
// binary is a fifth of the size.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/rosbag"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const progName = "rs-record"

func main() {
	os.Exit(run(os.Args[1:], newEnv()))
}

// env is what a command reads and writes: the standard streams and whether
// they are terminals.
type env struct {
	stdin          *os.File
	stdout, stderr io.Writer
	stdoutTTY      bool // stdout is a terminal: show live progress
	stdinTTY       bool // stdin is a terminal: accept key commands
	// usb is the USB transport live cameras are found through; nil is
	// libusb's.
	usb usbio.Transport
}

// usbContext returns ctx carrying e.usb for package usb (see
// usbio.WithTransport), or ctx itself when e.usb is nil (libusb).
func (e *env) usbContext(ctx context.Context) context.Context {
	if e.usb == nil {
		return ctx
	}
	return usbio.WithTransport(ctx, e.usb)
}

func newEnv() *env {
	return &env{
		stdin:     os.Stdin,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		stdoutTTY: isTerminal(os.Stdout),
		stdinTTY:  isTerminal(os.Stdin),
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// usageError is a command-line mistake: it is printed with a hint and exits 2.
type usageError struct {
	cmd string
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usageErrorf(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

var commands = []command{
	{"record", "record a camera (or the synthetic camera) to a bag (default command)", runRecord},
	{"info", "describe a bag: ROS view and RealSense view", runInfo},
	{"play", "play a bag through the playback device", runPlay},
	{"dump", "print a bag as JSON lines (topology, frames, summary)", runDump},
	{"view", "show a bag (or the camera) in the browser", runView},
	{"export", "write a bag as an MCAP file (for Foxglove and the MCAP tools)", runExport},
	{"import", "turn an MCAP file written by export back into a bag", runImport},
	{"convert", "write a bag's frames as PNG, RAW, CSV, BIN or PLY files (as rs-convert)", runConvert},
	{"edit", "trim, split, compress, decompress or reindex a bag", runEdit},
	{"devices", "list the attached cameras, their sensors and stream profiles (as rs-enumerate-devices)", runDevices},
}

func mainUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s [command] [flags] [BAG]\n\nCommands:\n", progName)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nWithout a command, %s records. Run '%s COMMAND -h' for the flags of a command.\n", progName, progName)
}

// run executes the command line args and returns the exit status.
func run(args []string, e *env) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "%s: internal error: %v\n%s", progName, r, debug.Stack())
			status = exitError
		}
	}()
	cmd := commands[0]
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "help" || a == "-h" || a == "-help" || a == "--help":
			mainUsage(e.stdout)
			return exitOK
		case a == "--version" || a == "-version" || a == "version":
			fmt.Fprintln(e.stdout, versionLine())
			return exitOK
		case strings.HasPrefix(a, "-"):
			// flags of the default command
		default:
			found := false
			for _, c := range commands {
				if c.name == a {
					cmd, found = c, true
					break
				}
			}
			if !found {
				fmt.Fprintf(e.stderr, "%s: unknown command %q\n", progName, cutValue(a))
				mainUsage(e.stderr)
				return exitUsage
			}
			args = args[1:]
		}
	}
	err := cmd.run(e, args)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "%s %s: %s\nRun '%s %s -h' for usage.\n", progName, cmd.name, cutArgs(ue.msg, args), progName, cmd.name)
		return exitUsage
	case damage.Is(err):
		fmt.Fprintf(e.stderr, "%s: %s\n", progName, oneLine(err.Error()))
		return damage.ExitDamaged
	default:
		fmt.Fprintf(e.stderr, "%s: %s\n", progName, oneLine(err.Error()))
		return exitError
	}
}

// maxEchoed bounds the bytes of a command-line value a usage error quotes;
// a longer one is cut (and its length given).
const maxEchoed = 256

// cutValue returns v, or its start and its length when it is longer than
// maxEchoed.
func cutValue(v string) string {
	if len(v) <= maxEchoed {
		return v
	}
	n := 64
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return fmt.Sprintf("%s...(%d bytes)", v[:n], len(v))
}

// cutArgs cuts, in a usage error's message, each copy of a command-line
// argument (or of a flag's name or value in it) longer than maxEchoed.
func cutArgs(msg string, args []string) string {
	var long []string
	for _, a := range args {
		name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		for _, v := range []string{a, name, value} {
			if len(v) > maxEchoed {
				long = append(long, v)
			}
		}
	}
	slices.SortFunc(long, func(a, b string) int { return len(b) - len(a) }) // longest first
	for _, v := range long {
		msg = strings.ReplaceAll(msg, strconv.Quote(v), strconv.Quote(cutValue(v)))
		msg = strings.ReplaceAll(msg, v, cutValue(v))
	}
	return msg
}

// oneLine folds a multi-line error message into one line.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// fileError puts path at the front of err's message (and removes the
// copies of it that the packages below put inside), keeping err for
// errors.Is/As.
func fileError(path string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, rosbag.ErrMCAP) {
		err = fmt.Errorf("%w; 'rs-record import %s OUT.bag' turns it into a bag", err, path)
	}
	return &pathError{path: path, err: err}
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string {
	var pe *fs.PathError
	if errors.As(e.err, &pe) && pe.Path == e.path && !errors.As(e.err, new(*damage.Error)) {
		return e.path + ": " + pe.Err.Error() // "x.bag: no such file or directory"
	}
	msg := strings.TrimPrefix(e.err.Error(), e.path+": ")
	r := strings.NewReplacer(
		"rosbag: "+e.path+": ", "rosbag: ",
		"playback: "+e.path+": ", "playback: ",
		"record "+e.path+": ", "record: ",
		": "+e.path+": ", ": ",
		" "+e.path+": ", ": ", // "open x.bag: no such file" → "open: no such file"
	)
	return e.path + ": " + r.Replace(msg)
}

func (e *pathError) Unwrap() error { return e.err }

// reportDamage prints what a command read of path's damage on stderr (each
// lost part, or the notice that an unindexed bag was recovered whole) and
// returns the damage error that gives exit status 3, or nil when nothing
// was lost or allow accepts damaged bags.
func reportDamage(e *env, path string, rep *damage.Report, allow bool) error {
	for _, l := range rep.Lines() {
		fmt.Fprintf(e.stderr, "%s: %s\n", progName, fileError(path, errors.New(l)))
	}
	if !rep.Damaged() {
		return nil
	}
	err := &damage.Error{Report: rep}
	if allow {
		fmt.Fprintf(e.stderr, "%s: %s: %s, accepted by --allow-damaged; read as far as it could be\n", progName, path, rep.Summary())
		return nil
	}
	return fileError(path, err)
}

// allowDamagedUsage is the help of --allow-damaged.
const allowDamagedUsage = "exit 0 for a damaged bag read as far as it could be (the loss is still reported)"
