package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/sensor"
)

// newFlagSet returns a flag set for command name whose usage text is
// synopsis followed by the flag list.
func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(progName+" "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by run; -h prints below
	fs.Usage = func() {
		w := e.stdout
		fmt.Fprintf(w, "Usage: %s %s\n\n", progName, synopsis)
		printDefaults(w, fs)
	}
	return fs
}

// printDefaults prints the flags of fs with "--" spellings, pairing a short
// alias with its long name (hidden flags, whose usage starts with "hidden:",
// are left out).
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	aliases := map[string]string{} // long name → short alias
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, "alias:") {
			aliases[strings.TrimPrefix(f.Usage, "alias:")] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, "alias:") || strings.HasPrefix(f.Usage, "hidden:") {
			return
		}
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if a, ok := aliases[f.Name]; ok {
			name = "-" + a + ", " + name
		}
		typ, usage := flag.UnquoteUsage(f)
		if typ != "" {
			name += " " + typ
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s\n    \t%s%s\n", name, strings.ReplaceAll(usage, "\n", "\n    \t"), def)
	})
}

// parseArgs parses args with fs, allowing flags after positional arguments
// (rs-record play BAG --rate 2). Everything after "--" is positional.
// Parse errors become usage errors; -h returns flag.ErrHelp after printing
// the usage.
func parseArgs(fs *flag.FlagSet, cmd string, args []string) ([]string, error) {
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	// The flag package calls Usage on -h and on every parse error; the usage
	// is printed (on stdout) only when it was asked for: a mistake gets the
	// one-line error and a hint on stderr.
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
				return nil, err
			}
			return nil, usageErrorf(cmd, "%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, rest...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagSet reports whether the flag name (or one of alt) was given.
func flagSet(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n {
				found = true
			}
		}
	})
	return found
}

// streamSpec is a video stream request "WxH@FPS[:FMT]"; the zero value (or
// "off") disables the stream.
type streamSpec struct {
	Width, Height, FPS int
	Format             sensor.Format // FormatAny: the camera's default format
}

func (s *streamSpec) enabled() bool { return s.FPS > 0 }

func (s *streamSpec) String() string {
	if s == nil || !s.enabled() {
		return "off"
	}
	str := fmt.Sprintf("%dx%d@%d", s.Width, s.Height, s.FPS)
	if s.Format != sensor.FormatAny {
		str += ":" + s.Format.String()
	}
	return str
}

// Set parses "WxH@FPS[:FMT]", e.g. "848x480@30" or "640x480@15:Y8", or
// "off"/"0" to disable the stream.
func (s *streamSpec) Set(v string) error {
	if isOff(v) {
		*s = streamSpec{}
		return nil
	}
	var n streamSpec
	rest := v
	if i := strings.IndexByte(rest, ':'); i >= 0 {
		f, ok := sensor.Parse[sensor.Format](strings.ToUpper(rest[i+1:]))
		if !ok || f == sensor.FormatAny {
			return fmt.Errorf("unknown format %q (e.g. Z16, RGB8, BGR8, YUYV, Y8, Y16)", rest[i+1:])
		}
		n.Format = f
		rest = rest[:i]
	}
	size, fps, ok := strings.Cut(rest, "@")
	w, h, ok2 := strings.Cut(strings.ToLower(size), "x")
	if !ok || !ok2 {
		return fmt.Errorf("want WIDTHxHEIGHT@FPS[:FORMAT], e.g. 848x480@30:Z16, or off")
	}
	var err error
	if n.Width, err = positive(w, "width"); err != nil {
		return err
	}
	if n.Height, err = positive(h, "height"); err != nil {
		return err
	}
	if n.FPS, err = positive(fps, "fps"); err != nil {
		return err
	}
	if err := synthscript.CheckVideo(n.Width, n.Height, n.FPS); err != nil {
		return err
	}
	*s = n
	return nil
}

// isOff reports whether a stream flag's value is one of the words that turn
// the stream off.
func isOff(v string) bool {
	switch strings.ToLower(v) {
	case "off", "none", "0", "no", "false":
		return true
	}
	return false
}

// rateHz is a motion or pose stream's rate in Hz, or "off"/"0" (0) to
// disable the stream. Its range is checked with the other record flags.
type rateHz struct{ p *int }

func (r rateHz) String() string {
	if r.p == nil || *r.p == 0 {
		return "off"
	}
	return strconv.Itoa(*r.p)
}

func (r rateHz) Set(v string) error {
	if isOff(v) {
		*r.p = 0
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a rate in Hz such as 200, or off")
	}
	*r.p = n
	return nil
}

func positive(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q is not a positive integer", what, s)
	}
	return n, nil
}

// minRate is the slowest playback rate and synthetic camera speed: at
// 0.001 a 30 fps stream gives a frame every 33 s.
const minRate = 0.001

// sizeValue is a byte count given as "N", "NK"/"NKiB", "NM"/"NMiB",
// "NG"/"NGiB" (binary units), at most 1 GiB.
type sizeValue int64

func (s *sizeValue) String() string {
	switch n := int64(*s); {
	case n > 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n > 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	case n == 0:
		return "0"
	default:
		return strconv.FormatInt(n, 10) + "B"
	}
}

func (s *sizeValue) Set(v string) error {
	u := strings.ToUpper(strings.TrimSpace(v))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			u, mult = strings.TrimSuffix(u, suf.s), suf.m
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 || n > (1<<30)/mult {
		return fmt.Errorf("want a size between 1 byte and 1GiB such as 768KiB, got %q", v)
	}
	*s = sizeValue(n * mult)
	return nil
}

// sizeUnits are the units a file size takes (B, KB, KiB, MB, MiB, GB,
// GiB, in any case; KB and MB are 1024 and 1024², as in sizeValue).
var sizeUnits = []struct {
	s string
	m int64
}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"B", 1}}

// isSize reports whether v ends with a size unit (and so is not a time).
func isSize(v string) bool {
	u := strings.ToUpper(strings.TrimSpace(v))
	for _, suf := range sizeUnits {
		if strings.HasSuffix(u, suf.s) {
			return true
		}
	}
	return false
}

// setFileSize sets s from a size that must name its unit ("5MB", "64MiB",
// "1000B"): a bare number is refused, saying so.
func (s *sizeValue) setFileSize(v string) error {
	if !isSize(v) {
		return fmt.Errorf("a size needs its unit (B, KB, KiB, MB, MiB, GB, GiB), got %q", v)
	}
	return s.Set(v)
}

// negBool is a boolean flag that stores the negation of its value in *p
// (--no-compress sets compress to false).
type negBool struct{ p *bool }

func (b negBool) IsBoolFlag() bool { return true }
func (b negBool) String() string {
	if b.p == nil {
		return "false"
	}
	return strconv.FormatBool(!*b.p)
}
func (b negBool) Set(v string) error {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	*b.p = !x
	return nil
}

// oneOf is a string flag restricted to a set of values.
type oneOf struct {
	v       *string
	allowed []string
}

func (o oneOf) String() string {
	if o.v == nil {
		return ""
	}
	return *o.v
}

func (o oneOf) Set(v string) error {
	for _, a := range o.allowed {
		if v == a {
			*o.v = v
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(o.allowed, ", "))
}

// maxSeconds bounds every duration flag (-t, --start, --duration): 10⁷ s,
// about 115 days, far beyond any recording and far within time.Duration.
const maxSeconds = 1e7

// parseTime parses a time value as every time flag takes it: seconds as a
// decimal number ("1.5", "2", ".25") or a Go duration with its unit
// ("1500ms", "2m30s", "1.5s"). NaN, infinities, negative values and values
// over maxSeconds are refused; a value is rounded to the nanosecond.
func parseTime(v string) (time.Duration, error) {
	const want = "want seconds (1.5) or a duration with its unit (1500ms, 2m)"
	v = strings.TrimSpace(v)
	if x, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if strings.ContainsAny(strings.ToLower(v), "xpn") { // hex floats, NaN, Inf
			return 0, fmt.Errorf("%s, got %s", want, v)
		}
		if math.IsNaN(x) || x < 0 || x > maxSeconds {
			return 0, fmt.Errorf("%s from 0 to %g s, got %s", want, float64(maxSeconds), v)
		}
		return time.Duration(math.Round(x * float64(time.Second))), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s, got %s", want, v)
	}
	if d < 0 || d > maxSeconds*time.Second {
		return 0, fmt.Errorf("%s from 0 to %g s, got %s", want, float64(maxSeconds), v)
	}
	return d, nil
}

// timeValue is a time flag (see parseTime).
type timeValue struct{ p *time.Duration }

// timeFlag defines a time flag with default def.
func timeFlag(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(timeValue{p}, name, usage)
}

func (t timeValue) String() string {
	if t.p == nil || *t.p == 0 {
		return ""
	}
	return fmtTime(*t.p)
}

func (t timeValue) Set(v string) error {
	d, err := parseTime(v)
	if err != nil {
		return err
	}
	*t.p = d
	return nil
}

// fmtTime shows a position or a duration as the time flags take it:
// seconds, with as many decimals as needed (2.5, 0.000001).
func fmtTime(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// rangeFloat is a float flag restricted to [lo, hi] (lo excluded when
// loOpen): NaN, infinities and values out of range are refused, naming the
// range.
type rangeFloat struct {
	p      *float64
	lo, hi float64
	loOpen bool
}

func floatIn(fs *flag.FlagSet, p *float64, name string, def, lo, hi float64, loOpen bool, usage string) {
	*p = def
	fs.Var(rangeFloat{p, lo, hi, loOpen}, name, usage)
}

func (r rangeFloat) String() string {
	if r.p == nil {
		return ""
	}
	return strconv.FormatFloat(*r.p, 'g', -1, 64)
}

func (r rangeFloat) Set(v string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	open := "["
	if r.loOpen {
		open = "("
	}
	want := fmt.Sprintf("want a number in %s%g, %g]", open, r.lo, r.hi)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return errors.New(want)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x < r.lo || x > r.hi || (r.loOpen && x == r.lo) {
		return fmt.Errorf("%s, got %s", want, v)
	}
	*r.p = x
	return nil
}

// repeated collects every value of a flag given several times.
type repeated struct{ p *[]string }

func (r repeated) String() string {
	if r.p == nil {
		return ""
	}
	return strings.Join(*r.p, ",")
}

func (r repeated) Set(v string) error {
	*r.p = append(*r.p, v)
	return nil
}
