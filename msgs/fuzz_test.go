package msgs

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// addSeeds adds up to max of the smallest messages of type typ found in the
// test bags, plus the filled sample of that type.
func addSeeds(f *testing.F, typ string, max int) {
	var seeds [][]byte
	for _, path := range testBags(f) {
		if filepath.Base(path) == "metadata_rich.bag" && typ != keyValueType.Name {
			continue
		}
		for _, m := range readBag(f, path) {
			if m.Type != typ {
				continue
			}
			data := m.Data
			if typ == imageType.Name {
				// Keep the structure (frame_id, trailing depth_units) but
				// not megabytes of pixels: large inputs slow the fuzzer.
				var img Image
				if err := Unmarshal(data, &img); err == nil && len(img.Data) > 64 {
					img.Data = img.Data[:64]
					data = Marshal(&img)
				}
			}
			seeds = append(seeds, data)
		}
	}
	sort.SliceStable(seeds, func(i, j int) bool { return len(seeds[i]) < len(seeds[j]) })
	for i := 0; i < len(seeds) && i < max; i++ {
		f.Add(seeds[i])
	}
	for _, m := range filledMessages() {
		if m.Type().Name == typ {
			f.Add(Marshal(m))
		}
	}
}

// fuzzUnmarshal checks that decoding never panics and that what decodes
// re-encodes to the same bytes and decodes to the same value.
func fuzzUnmarshal(f *testing.F, typ string) {
	addSeeds(f, typ, 8)
	f.Fuzz(func(t *testing.T, b []byte) {
		m := New(typ)
		err := Unmarshal(b, m)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if !errors.Is(err, ErrTrailingBytes) {
				return
			}
			b = b[:de.Offset]
		}
		enc := Marshal(m)
		if !bytes.Equal(enc, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", enc, b)
		}
		m2 := New(typ)
		if err := Unmarshal(enc, m2); err != nil {
			t.Fatalf("decoding the re-encoding: %v", err)
		}
		if !equalBits(reflect.ValueOf(m), reflect.ValueOf(m2)) {
			t.Fatalf("decode(encode(m)) = %+v, m = %+v", m2, m)
		}
	})
}

// equalBits is reflect.DeepEqual with floats compared by bit pattern (so a
// NaN equals itself) and nil and empty slices equal.
func equalBits(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		return equalBits(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !equalBits(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equalBits(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	}
	panic("equalBits: unhandled kind " + a.Kind().String())
}

func FuzzUnmarshalImage(f *testing.F)        { fuzzUnmarshal(f, imageType.Name) }
func FuzzUnmarshalKeyValue(f *testing.F)     { fuzzUnmarshal(f, keyValueType.Name) }
func FuzzUnmarshalCameraInfo(f *testing.F)   { fuzzUnmarshal(f, cameraInfoType.Name) }
func FuzzUnmarshalImu(f *testing.F)          { fuzzUnmarshal(f, imuType.Name) }
func FuzzUnmarshalNotification(f *testing.F) { fuzzUnmarshal(f, notificationType.Name) }
func FuzzUnmarshalStreamInfo(f *testing.F)   { fuzzUnmarshal(f, streamInfoType.Name) }
