package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// realIncludeEnv names the environment variable that points the tests at
// librealsense's own headers: a directory holding librealsense2/rs.h and
// librealsense2/rs.hpp (librealsense's include/).
const realIncludeEnv = "RSBAG_LIBREALSENSE_INCLUDE"

// realInclude returns the directory of librealsense's headers, or skips the
// test when there is none.
func realInclude(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(realIncludeEnv)
	if dir == "" {
		t.Skipf("%s is not set: set it to librealsense 2.56.5's include/ (holding librealsense2/rs.h and rs.hpp) to judge the library by librealsense's headers", realIncludeEnv)
	}
	for _, h := range []string{"rs.h", "rs.hpp"} {
		if _, err := os.Stat(filepath.Join(dir, "librealsense2", h)); err != nil {
			t.Skipf("%s=%s holds no librealsense2/%s: %v", realIncludeEnv, dir, h, err)
		}
	}
	return dir
}

var (
	shimOnce sync.Once
	shimDir  string
	shimErr  error
)

// realShim returns a directory whose rs2.h includes librealsense's C
// headers, so that the test programs written against rs2.h compile against
// those instead.
func realShim(t testing.TB) string {
	t.Helper()
	shimOnce.Do(func() {
		shimDir = filepath.Join(library(t), "real")
		if shimErr = os.MkdirAll(shimDir, 0o755); shimErr != nil {
			return
		}
		shimErr = os.WriteFile(filepath.Join(shimDir, "rs2.h"), []byte(realRS2H), 0o644)
	})
	if shimErr != nil {
		t.Fatal(shimErr)
	}
	return shimDir
}

// realRS2H declares librealsense's C interface from its own headers, as
// rs2.h does from the copy of their declarations.
const realRS2H = `#include <librealsense2/rs.h>
#include <librealsense2/h/rs_pipeline.h>
#include <librealsense2/h/rs_config.h>
`

// realProgram compiles testdata/NAME against librealsense's headers.
func realProgram(t testing.TB, name string) string {
	t.Helper()
	return compile(t, realInclude(t), name)
}

// TestRealHeaders judges the library by librealsense 2.56.5's own headers
// (RSBAG_LIBREALSENSE_INCLUDE; skipped without them): every enum value,
// struct size and field offset of rs2.h equals theirs, every function
// rs2.h declares is declared alike there, the C test programs compiled
// against librealsense2/rs.h print what they print against rs2.h, and C++
// programs written as users of the rs2:: wrapper (rs.hpp) print the lines
// of librealsense's reference outputs and of rs-record dump.
func TestRealHeaders(t *testing.T) {
	include := realInclude(t)
	t.Run("layout", func(t *testing.T) { checkLayout(t, include) })
	t.Run("prototypes", func(t *testing.T) { checkPrototypes(t, include) })
	for _, c := range []struct {
		name  string
		check func(*testing.T, string)
	}{
		{"dump.c/go", checkDumpMatchesGo},
		{"dump.c/librealsense", checkDumpMatchesLibrealsense},
		{"dump.c/seek", checkDumpSeekMatchesGo},
		{"pipe.c", checkPipelineMatchesSync},
		{"pipecb.c", checkPipelineCallbackMatchesLibrealsense},
		{"proc.c/go", checkProcessingMatchesGo},
		{"proc.c/librealsense", checkProcessingMatchesLibrealsense},
		{"errors.c", checkErrors},
		{"errdetail.c", checkErrorDetails},
		{"nullargs.c", checkNullArguments},
		{"logfile.c", checkLogFile},
		{"race.c", checkCallbacksOnSeveralSensors},
		{"optvalue.c", checkOptionValue},
		{"streams.c", checkActiveStreamsAndClones},
		{"cpp.cc", checkCppCallbacks},
		{"rotate.cc", checkRotationFilter},
		{"fullqueue.c", checkFullQueue},
		{"restart.c", checkStartStarted},
		{"sync.c", checkSyncerMatchesSync},
		{"wrap_sync.cc", checkSyncerMatchesSync},
		{"wrap_errors.cc", checkWrapErrors},
		{"devchange.c", checkDevicesChanged},
		{"wrap_dump.cc/go", checkDumpMatchesGo},
		{"wrap_dump.cc/librealsense", checkDumpMatchesLibrealsense},
		{"wrap_dump.cc/seek", checkDumpSeekMatchesGo},
		{"wrap_pipe.cc", checkPipelineMatchesSync},
		{"wrap_proc.cc/go", checkProcessingMatchesGo},
		{"wrap_proc.cc/librealsense", checkProcessingMatchesLibrealsense},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, realProgram(t, strings.Split(c.name, "/")[0]))
		})
	}
}

// layoutProgram writes a C program that prints the value of every
// enumerator and the size and field offsets of every struct rs2.h
// declares, to be compiled against rs2.h and against librealsense's
// headers.
func layoutProgram(t *testing.T) string {
	h, err := os.ReadFile("rs2.h")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("#include <stddef.h>\n#include <stdio.h>\n#include \"rs2.h\"\nint main(void) {\n")
	for _, m := range regexp.MustCompile(`(?s)typedef enum (\w+)\s*\{(.*?)\}`).FindAllSubmatch(h, -1) {
		for _, e := range regexp.MustCompile(`(?m)^\s*(RS2_\w+)`).FindAllSubmatch(m[2], -1) {
			fmt.Fprintf(&b, "\tprintf(\"%s %%lld\\n\", (long long)%s);\n", e[1], e[1])
		}
	}
	structs := regexp.MustCompile(`typedef struct (\w+)\s*\{`).FindAllSubmatchIndex(h, -1)
	for _, m := range structs {
		name := string(h[m[2]:m[3]])
		depth, end := 1, m[1]
		for ; depth > 0; end++ {
			switch h[end] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		fmt.Fprintf(&b, "\tprintf(\"sizeof %s %%zu\\n\", sizeof(%s));\n", name, name)
		for _, f := range structFields(string(h[m[1] : end-1])) {
			fmt.Fprintf(&b, "\tprintf(\"offsetof %s.%s %%zu\\n\", offsetof(%s, %s));\n", name, f, name, f)
		}
	}
	if len(structs) < 10 {
		t.Fatalf("rs2.h: %d structs found", len(structs))
	}
	b.WriteString("\treturn 0;\n}\n")
	path := filepath.Join(t.TempDir(), "layout.c")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// structFields returns the names of the fields of a struct body: those of
// the struct itself and of its anonymous unions.
func structFields(body string) []string {
	var names []string
	var kinds []bool // open braces: union or not
	cur := ""
	for _, ch := range body {
		switch ch {
		case '{':
			kinds = append(kinds, strings.Contains(cur, "union"))
			cur = ""
		case '}':
			kinds = kinds[:len(kinds)-1]
			cur = ""
		case ';':
			inUnion := true
			for _, u := range kinds {
				inUnion = inUnion && u
			}
			if inUnion {
				for i, d := range strings.Split(regexp.MustCompile(`\[.*?\]`).ReplaceAllString(cur, ""), ",") {
					ws := strings.Fields(strings.ReplaceAll(d, "*", " "))
					if len(ws) > 0 && (i > 0 || len(ws) > 1 || len(kinds) == 0) {
						names = append(names, ws[len(ws)-1])
					}
				}
			}
			cur = ""
		default:
			cur += string(ch)
		}
	}
	return names
}

// checkLayout compiles the layout program against rs2.h and against
// librealsense's headers: both print the same.
func checkLayout(t *testing.T, include string) {
	src := layoutProgram(t)
	out := map[string]string{}
	for _, flags := range [][]string{{"-I."}, {"-I" + realShim(t), "-isystem", include}} {
		bin := filepath.Join(t.TempDir(), "layout")
		args := append(append([]string{"-Wall", "-Werror"}, flags...), src, "-o", bin)
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		b, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		out[flags[0]] = string(b)
	}
	own, real := out["-I."], out["-I"+realShim(t)]
	if n := strings.Count(own, "\n"); n < 400 {
		t.Fatalf("the layout program prints %d lines", n)
	}
	// got: rs2.h's, want: librealsense's.
	compareLinesBy(t, own, real, func(a, b string) bool { return a == b })
}

// checkPrototypes compiles, after librealsense's headers, rs2.h's
// declarations of every function and callback type again: a C compiler
// refuses a declaration that does not match the one before.
func checkPrototypes(t *testing.T, include string) {
	h, err := os.ReadFile("rs2.h")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(realRS2H)
	n := 0
	for _, st := range strings.Split(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(string(h), ""), ";") {
		st = strings.TrimSpace(st)
		if i := strings.LastIndex(st, "}"); i >= 0 {
			st = strings.TrimSpace(st[i+1:])
			if !strings.HasPrefix(st, "typedef") && !strings.HasPrefix(st, "rs2") && !strings.HasPrefix(st, "const") && !strings.HasPrefix(st, "void") {
				continue
			}
		}
		if regexp.MustCompile(`\brs2_\w+\s*\(`).MatchString(st) || regexp.MustCompile(`^typedef [^{]*\(\s*\*`).MatchString(st) {
			b.WriteString(st + ";\n")
			n++
		}
	}
	if n < 300 {
		t.Fatalf("%d declarations found in rs2.h", n)
	}
	src := filepath.Join(t.TempDir(), "protos.c")
	if err := os.WriteFile(src, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-std=c11", "-Wall", "-Werror", "-isystem", include, "-fsyntax-only", src}
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("rs2.h declares otherwise than librealsense's headers: gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// checkWrapErrors runs testdata/wrap_errors.cc: each failing call reaches
// the program as the C++ wrapper's exception class of the error's type,
// with the failed function and message that TestErrors checks through C,
// and the wrapper's devices-changed callback sees the bag loaded and
// unloaded.
func checkWrapErrors(t *testing.T, bin string) {
	out := run(t, bin, filepath.Join("..", "testdata", "librealsense", "depth_color.bag"))
	for _, want := range []string{
		"missing file: error rs2_context_add_device: ",
		"\nreset: no error\n",
		"\nunsupported option: invalid_value_error rs2_get_option: object doesn't support option White Balance\n",
		"\nread-only option: not_implemented_error rs2_set_option: This option is read-only!\n",
		"\nframe timeout: error rs2_wait_for_frame: Frame did not arrive in time!\n",
		"\nstub: not_implemented_error rs2_create_yuy_decoder: rs2_create_yuy_decoder is not supported by rsbag's librealsense2 (bags only)\n",
		"\nstop unstarted pipeline: wrong_api_call_sequence_error rs2_pipeline_stop: stop() cannot be called before start()\n",
		"\nstart unopened sensor: no error\nstop it: no error\ndevices changed: added 1 removed 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}
