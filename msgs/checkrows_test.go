package msgs

import (
	"errors"
	"testing"
)

// TestCheckRows: an image whose bytes do not hold the frame they describe
// is a *DecodeError naming the field; one that holds it is not.
func TestCheckRows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		im    Image
		field string // "" when whole
	}{
		{"whole", Image{Width: 2, Height: 2, Step: 4, Data: make([]byte, 8)}, ""},
		{"longer data", Image{Width: 2, Height: 2, Step: 4, Data: make([]byte, 9)}, ""},
		{"rows cut", Image{Width: 2, Height: 2, Step: 4, Data: make([]byte, 7)}, "data"},
		{"huge step", Image{Width: 1, Height: 1 << 31, Step: 1 << 31}, "data"},
		{"no width", Image{Height: 6, Step: 16, Data: make([]byte, 96)}, "width"},
		{"no height", Image{Width: 8, Step: 16}, "height"},
		{"depth units", Image{Width: 1, Height: 1, Header: Header{FrameID: DepthUnitsFrameID}, HasDepthUnits: true, DepthUnits: 0.001}, ""},
		{"frame_id 1 without depth units", Image{Width: 1, Height: 1, Header: Header{FrameID: DepthUnitsFrameID}}, "depth_units"},
		{"other frame_id without depth units", Image{Width: 1, Height: 1, Header: Header{FrameID: "0"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.im.CheckRows()
			var de *DecodeError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("CheckRows: %v, want nil", err)
			case tc.field != "" && !errors.As(err, &de):
				t.Fatalf("CheckRows: %v, want a *DecodeError", err)
			case tc.field != "" && de.Field != tc.field:
				t.Fatalf("CheckRows: field %q, want %q (%v)", de.Field, tc.field, err)
			}
		})
	}
}

// TestCheckRowsAfterUnmarshal: an Image written with frame_id "1" and cut
// before its depth_units decodes, and CheckRows refuses it.
func TestCheckRowsAfterUnmarshal(t *testing.T) {
	im := Image{Header: Header{FrameID: DepthUnitsFrameID}, Height: 1, Width: 2, Step: 4, Encoding: "16UC1",
		Data: []byte{1, 2, 3, 4}, DepthUnits: 0.001, HasDepthUnits: true}
	b := Append(nil, &im)
	var got Image
	if err := Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if err := got.CheckRows(); err != nil {
		t.Fatalf("whole message: %v", err)
	}
	if err := Unmarshal(b[:len(b)-4], &got); err != nil {
		t.Fatal(err)
	}
	if err := got.CheckRows(); err == nil {
		t.Fatal("message cut before depth_units: CheckRows accepted it")
	}
}
