package layout

import (
	"errors"

	"github.com/rsbag/rsbag/msgs"
)

// Canonical returns the message as this module writes file version 3, valid
// ROS: the quirks librealsense writes (spec §8) — StreamInfo.is_recommended
// stored as 2, four bytes after Image.data — are rewritten as a bool of 0
// or 1 and no trailing bytes. Other messages are returned as they are. k is
// the kind of the message's topic; a rewritten message is appended to
// (*scratch)[:0], which the result then shares.
func Canonical(k TopicKind, data []byte, scratch *[]byte) ([]byte, error) {
	switch k {
	case KindStreamInfo:
		var si msgs.StreamInfo
		if err := msgs.Unmarshal(data, &si); err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
			return nil, err
		}
		si.IsRecommended = msgs.BoolOf(si.IsRecommended.Bool())
		*scratch = msgs.Append((*scratch)[:0], &si)
		return *scratch, nil
	case KindImageData:
		var img msgs.Image
		if err := msgs.Unmarshal(data, &img); err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
			return nil, err
		}
		if !img.HasDepthUnits && msgs.Size(&img) == len(data) {
			return data, nil
		}
		// librealsense's frame_id "1" announces the trailing float32;
		// the valid ROS message has neither (playback then takes the
		// depth units from the Depth Units option, as for our bags).
		img.Header.FrameID = "0" // what record writes
		img.HasDepthUnits = false
		*scratch = msgs.Append((*scratch)[:0], &img)
		return *scratch, nil
	}
	return data, nil
}
