package main

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/rsbag/rsbag/sensor"
)

// optionValue marks an rs2_option_value handed to the program: the struct
// itself lives in C memory (so the program reads its fields) and is freed by
// rs2_delete_option_value.
type optionValue struct{}

// listValue is the value of an option when it was read: librealsense
// reads the values of an options list when it makes the list.
type listValue struct {
	id    sensor.Option
	v     float32
	valid bool
}

// readValue reads opt of o as librealsense does for an rs2_option_value:
// every option of a bag and of a processing block is a float option, valid
// when its value can be read.
func readValue(o optionSet, opt sensor.Option) listValue {
	v, err := o.Option(opt)
	return listValue{opt, v, err == nil}
}

// copy returns the value as an rs2_option_value for the program.
func (lv listValue) copy() *C.rs2_option_value {
	p := (*C.rs2_option_value)(C.calloc(1, C.sizeof_rs2_option_value))
	p.id = C.rs2_option(lv.id)
	p._type = C.RS2_OPTION_TYPE_FLOAT
	if lv.valid {
		*(*C.float)(unsafe.Pointer(&p.anon0)) = C.float(lv.v)
		p.is_valid = 1
	}
	handles.Store(uintptr(unsafe.Pointer(p)), optionValue{})
	return p
}

//export rs2_get_option_value
func rs2_get_option_value(p *C.rs2_options, opt C.rs2_option, e **C.rs2_error) (r *C.rs2_option_value) {
	defer catch(e, "rs2_get_option_value", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option_id", opt) })
	o := options(unsafe.Pointer(p))
	return readValue(o, checkOption(o, opt)).copy()
}

//export rs2_get_option_value_from_list
func rs2_get_option_value_from_list(l *C.rs2_options_list, i C.int, e **C.rs2_error) (r *C.rs2_option_value) {
	defer catch(e, "rs2_get_option_value_from_list", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(l)), "i", i) })
	ol := lookup[*optionsList](unsafe.Pointer(l), "options")
	return ol.values[checkIndex(i, len(ol.values), "i")].copy()
}

//export rs2_delete_option_value
func rs2_delete_option_value(v *C.rs2_option_value) {
	defer catch(nil, "rs2_delete_option_value", nil)
	lookup[optionValue](unsafe.Pointer(v), "p_value")
	freeHandle(unsafe.Pointer(v))
}

//export rs2_set_option_value
func rs2_set_option_value(p *C.rs2_options, v *C.rs2_option_value, e **C.rs2_error) {
	defer catch(e, "rs2_set_option_value", func() string {
		return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option_value", ptrArg(unsafe.Pointer(v)))
	})
	o := options(unsafe.Pointer(p))
	if v == nil {
		failNull("option_value")
	}
	opt := checkOption(o, v.id)
	if v.is_valid == 0 {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "option %s: a float option cannot be set to no value", sensor.Option(v.id))
	}
	if v._type != C.RS2_OPTION_TYPE_FLOAT {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "expected Float type")
	}
	f := float32(*(*C.float)(unsafe.Pointer(&v.anon0)))
	rg, err := o.OptionRange(opt)
	check(err)
	if f < rg.Min || f > rg.Max {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "out of range value for argument \"option_value->as_float\"")
	}
	if readOnly(o, opt) {
		fail(C.RS2_EXCEPTION_TYPE_NOT_IMPLEMENTED, "This option is read-only!") // as librealsense's option (src/option.h)
	}
	check(o.SetOption(opt, f))
}

//export rs2_get_option_value_description
func rs2_get_option_value_description(p *C.rs2_options, opt C.rs2_option, value C.float, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_option_value_description", func() string {
		return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option", opt, "value", floatArg(float64(value)))
	})
	o := options(unsafe.Pointer(p))
	id := checkOption(o, opt)
	// librealsense returns NULL for a value without a name.
	if vd, ok := o.(interface {
		OptionValueDescription(sensor.Option, float32) string
	}); ok {
		if d := vd.OptionValueDescription(id, float32(value)); d != "" {
			return cstr(d)
		}
	}
	return nil
}
