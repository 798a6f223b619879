// Command capi is librealsense2.so on rsbag's Go core: built with
//
//	go build -buildmode=c-shared -o OUT/librealsense2.so.2.56 ./capi
//
// it exports the rs2_* functions of librealsense 2.56.5's public C interface
// (rs2.h declares them) over the playback device, the pipeline and the
// processing blocks, so that programs written against librealsense play bags
// through rsbag unchanged. README.md lists every exported function.
//
// Handles are small blocks of C memory the program holds; each names a Go
// object in a table. A frame's pixels are handed out where they are, pinned
// (runtime.Pinner) until the program releases its last reference. Every
// exported function recovers any panic and returns it as an rs2_error.
package main

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"unsafe"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

func main() {}

// apiVersion is RS2_API_VERSION of librealsense 2.56.5.
const apiVersion = 2*10000 + 56*100 + 5

// handles maps the address of each handle's C block to its Go object.
var handles sync.Map

// newHandle returns a new handle naming v.
func newHandle(v any) unsafe.Pointer {
	p := C.malloc(8)
	handles.Store(uintptr(p), v)
	return p
}

// freeHandle forgets the handle p and frees its block.
func freeHandle(p unsafe.Pointer) {
	if _, ok := handles.LoadAndDelete(uintptr(p)); ok {
		C.free(p)
	}
}

// handleCount is the number of live handles (for the leak test).
func handleCount() int {
	n := 0
	handles.Range(func(_, _ any) bool { n++; return true })
	return n
}

// lookup returns the object of handle p as a T, or fails naming the argument.
func lookup[T any](p unsafe.Pointer, arg string) T {
	if p == nil {
		failNull(arg)
	}
	v, ok := handles.Load(uintptr(p))
	if !ok {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "invalid handle passed for argument \"%s\"", arg)
	}
	t, ok := v.(T)
	if !ok {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "argument \"%s\" is a %s, not a %s", arg, kindOf(v), kindOf(*new(T)))
	}
	return t
}

// kindOf names the kind of handle whose object v is, or would be.
func kindOf(v any) string {
	switch v.(type) {
	case *contextState:
		return "context handle"
	case *deviceHandle:
		return "device handle"
	case *sensorHandle:
		return "sensor handle"
	case *frameRef:
		return "frame handle"
	case *profileEntry:
		return "stream profile handle"
	case *frameQueue:
		return "frame queue handle"
	case *blockHandle:
		return "processing block handle"
	case *pipelineState:
		return "pipeline handle"
	case *configState:
		return "config handle"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", v), "*main.") + " handle"
}

// apiError is an error on its way to the program as an rs2_error.
type apiError struct {
	typ C.rs2_exception_type
	msg string
}

func (e *apiError) Error() string { return e.msg }

// fail stops the exported function with an rs2_error of type typ.
func fail(typ C.rs2_exception_type, format string, args ...any) {
	panic(&apiError{typ, fmt.Sprintf(format, args...)})
}

// check stops the exported function with err as an rs2_error, if not nil.
func check(err error) {
	if err != nil {
		panic(err)
	}
}

// exceptionType is librealsense's exception type for err.
func exceptionType(err error) C.rs2_exception_type {
	var ae *apiError
	var pe *fs.PathError
	switch {
	case errors.As(err, &ae):
		return ae.typ
	case errors.Is(err, sensor.ErrNotOpen), errors.Is(err, sensor.ErrAlreadyOpen), errors.Is(err, sensor.ErrNotStarted),
		errors.Is(err, sensor.ErrAlreadyStarted), errors.Is(err, sensor.ErrClosed), errors.Is(err, sensor.ErrStopFromHandler):
		return C.RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE
	case errors.Is(err, sensor.ErrNoProfile), errors.Is(err, extensions.ErrUnsupportedOption), errors.Is(err, extensions.ErrOutOfRange),
		errors.Is(err, extensions.ErrReadOnly), errors.Is(err, device.ErrNoExtrinsics):
		return C.RS2_EXCEPTION_TYPE_INVALID_VALUE
	case errors.Is(err, device.ErrDisconnected):
		return C.RS2_EXCEPTION_TYPE_CAMERA_DISCONNECTED
	case errors.As(err, &pe):
		return C.RS2_EXCEPTION_TYPE_IO
	}
	return C.RS2_EXCEPTION_TYPE_COUNT // a std::exception's type in librealsense
}

// catch, deferred first in every exported function, turns a panic into an
// rs2_error for fn with the arguments args describes.
func catch(e **C.rs2_error, fn string, args func() string) {
	r := recover()
	if r == nil {
		return
	}
	var err error
	switch x := r.(type) {
	case error:
		err = x
	default:
		err = fmt.Errorf("%v", x)
	}
	if errors.Is(err, device.ErrNoExtrinsics) {
		err = &apiError{C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "Requested extrinsics are not available!"}
	}
	if e != nil {
		a := ""
		if args != nil {
			a = args()
		}
		*e = newError(err.Error(), fn, a, exceptionType(err))
		logError(fn, a, err.Error(), exceptionType(err))
	}
}

// newError allocates an rs2_error in C memory (rs2_free_error frees it).
func newError(msg, fn, args string, typ C.rs2_exception_type) *C.rs2_error {
	e := (*C.rs2_error)(C.calloc(1, C.sizeof_struct_rs2_error))
	e.message = C.CString(msg)
	e.function = C.CString(fn)
	e.args = C.CString(args)
	e._type = typ
	return e
}

// failNull stops the exported function with librealsense's error for a
// null argument (VALIDATE_NOT_NULL in src/api.h): a std::runtime_error,
// whose rs2_error has RS2_EXCEPTION_TYPE_COUNT ("UNKNOWN").
func failNull(arg string) {
	fail(C.RS2_EXCEPTION_TYPE_COUNT, "null pointer passed for argument \"%s\"", arg)
}

// fmtArgs formats name/value pairs as librealsense's API macros do
// (stream_args in src/api.h): "name:value" joined by ", ". The values of
// pointer arguments come formatted by ptrArg, charArg, derefArg and the
// others below, as librealsense streams each C type.
func fmtArgs(kv ...any) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v:%v", kv[i], kv[i+1])
	}
	return b.String()
}

// nullptr is how librealsense streams a null pointer argument.
const nullptr = "nullptr"

// ptrArg is a pointer argument of a type librealsense cannot stream
// (a handle, user data): its address, or nullptr.
func ptrArg(p unsafe.Pointer) string {
	if p == nil {
		return nullptr
	}
	return fmt.Sprintf("%p", p)
}

// charArg is a char* argument: librealsense streams the pointed-to char
// (the first of the string), or nullptr.
func charArg(p unsafe.Pointer) string {
	if p == nil {
		return nullptr
	}
	return string([]byte{*(*byte)(p)})
}

// derefArg is a pointer to a number or an enum: librealsense streams the
// value it points to when the call fails, or nullptr.
func derefArg[T any](p *T) any {
	if p == nil {
		return nullptr
	}
	if f, ok := any(*p).(C.float); ok {
		return floatArg(float64(f))
	}
	return *p
}

// outArg is an output argument (output_arg in src/api.h): "(out)", or
// "nullptr(out)".
func outArg(p unsafe.Pointer) string {
	if p == nil {
		return nullptr + "(out)"
	}
	return "(out)"
}

// ptrPtrArg is a pointer to a pointer: librealsense streams the address
// it points to ("0" for a null one), or nullptr.
func ptrPtrArg(p unsafe.Pointer) string {
	if p == nil {
		return nullptr
	}
	q := *(*unsafe.Pointer)(p)
	if q == nil {
		return "0"
	}
	return fmt.Sprintf("%p", q)
}

// funcArg is a C function pointer argument: librealsense streams it as a
// bool, 1, or nullptr.
func funcArg(p unsafe.Pointer) string {
	if p == nil {
		return nullptr
	}
	return "1"
}

// floatArg is a float argument as a C++ stream writes it by default: six
// significant digits, %g.
func floatArg(v float64) string {
	return fmt.Sprintf("%.6g", v)
}

// extrinsicsArg is an rs2_extrinsics argument, which librealsense streams
// as "[ r[...]  t[...] ]" (operator<< in src/types.cpp), or nullptr.
func extrinsicsArg(p *C.rs2_extrinsics) string {
	if p == nil {
		return nullptr
	}
	var b strings.Builder
	b.WriteString("[ r[")
	for i, v := range p.rotation {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(floatArg(float64(v)))
	}
	b.WriteString("]  t[")
	for i, v := range p.translation {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(floatArg(float64(v)))
	}
	b.WriteString("] ]")
	return b.String()
}

// intrinsicsArg is an rs2_intrinsics argument, which librealsense streams
// as "[ WxH  p[ppx ppy]  f[fx fy]  MODEL [c0 c1 c2 c3 c4] ]" (operator<< in
// src/types.cpp), or nullptr.
func intrinsicsArg(p *C.rs2_intrinsics) string {
	if p == nil {
		return nullptr
	}
	f := func(v C.float) string { return floatArg(float64(v)) }
	return fmt.Sprintf("[ %dx%d  p[%s %s]  f[%s %s]  %s [%s %s %s %s %s] ]", p.width, p.height, f(p.ppx), f(p.ppy), f(p.fx), f(p.fy),
		C.GoString(rs2_distortion_to_string(p.model)), f(p.coeffs[0]), f(p.coeffs[1]), f(p.coeffs[2]), f(p.coeffs[3]), f(p.coeffs[4]))
}

// streamAbbrs are librealsense's abbreviations of the rs2_stream values
// (get_abbr_string in src/to-string.cpp).
var streamAbbrs = [...]string{"Any", "D", "C", "IR", "FE", "G", "A", "GPIO", "P", "Conf", "M"}

// profileArg is a stream profile argument, which librealsense streams as
// "[ D Z16 0 640x480 @ 30 ]" (operator<< in src/rs.cpp), or nullptr.
func profileArg(p unsafe.Pointer) string {
	if p == nil {
		return nullptr
	}
	v, ok := handles.Load(uintptr(p))
	pe, ok2 := v.(*profileEntry)
	if !ok || !ok2 || pe.p == nil {
		return fmt.Sprintf("%p", p)
	}
	sp := pe.p
	abbr := "?"
	if int(sp.Stream) >= 0 && int(sp.Stream) < len(streamAbbrs) {
		abbr = streamAbbrs[sp.Stream]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[ %s %s %d", abbr, sp.Format, sp.Index)
	if sp.Kind == sensor.KindVideo {
		fmt.Fprintf(&b, " %dx%d", sp.Width, sp.Height)
	}
	fmt.Fprintf(&b, " @ %d ]", sp.FPS)
	return b.String()
}

// cstrings holds the C strings handed out for Go strings that never change
// (names of enum values, info values): one allocation per distinct string.
var cstrings sync.Map

// cstr returns a C string equal to s that stays valid for the life of the
// process.
func cstr(s string) *C.char {
	if p, ok := cstrings.Load(s); ok {
		return (*C.char)(p.(unsafe.Pointer))
	}
	p := unsafe.Pointer(C.CString(s))
	if q, loaded := cstrings.LoadOrStore(s, p); loaded {
		C.free(p)
		return (*C.char)(q.(unsafe.Pointer))
	}
	return (*C.char)(p)
}

//export rs2_get_error_message
func rs2_get_error_message(e *C.rs2_error) *C.char {
	if e == nil {
		return nil
	}
	return e.message
}

//export rs2_get_failed_function
func rs2_get_failed_function(e *C.rs2_error) *C.char {
	if e == nil {
		return nil
	}
	return e.function
}

//export rs2_get_failed_args
func rs2_get_failed_args(e *C.rs2_error) *C.char {
	if e == nil {
		return nil
	}
	return e.args
}

//export rs2_get_librealsense_exception_type
func rs2_get_librealsense_exception_type(e *C.rs2_error) C.rs2_exception_type {
	if e == nil {
		return C.RS2_EXCEPTION_TYPE_UNKNOWN
	}
	return e._type
}

//export rs2_free_error
func rs2_free_error(e *C.rs2_error) {
	if e == nil {
		return
	}
	C.free(unsafe.Pointer(e.message))
	C.free(unsafe.Pointer(e.function))
	C.free(unsafe.Pointer(e.args))
	C.free(unsafe.Pointer(e))
}

//export rs2_get_api_version
func rs2_get_api_version(e **C.rs2_error) C.int { return apiVersion }

func itoa(v int) string { return fmt.Sprint(v) }

// rsbag_unsupported is the error of the functions of librealsense's
// interface this library has but does not support (stubs.c): it names fn.
//
//export rsbag_unsupported
func rsbag_unsupported(fn *C.char) *C.rs2_error {
	name := C.GoString(fn)
	return newError(name+" is not supported by rsbag's librealsense2 (bags only)", name, "", C.RS2_EXCEPTION_TYPE_NOT_IMPLEMENTED)
}
