// Package msgs holds the ROS1 message types of RealSense bags: one Go struct
// per type of realsense-msgdefs.json, with ROS1 little-endian serialization
// and a static descriptor (type name, md5sum, exact definition text). The
// realsense_legacy_msgs types of file version 1, which only the reader of old
// bags decodes, are generated with them into an internal package.
//
// The descriptors, which each struct's Type method returns (and LookupType
// finds by name), are generated from
// testdata/spec/realsense-msgdefs.json by go generate, with the codec of each
// struct; tests recompute every md5sum from the definition text and check
// every struct's fields against it.
//
// Every type is a Message, whose one method Type returns its descriptor.
// The descriptor holds the codec, which the package functions call:
//
//	Size(m) int               // encoded size
//	Append(b, m) []byte       // append-style encoding, no allocation when b has room
//	Marshal(m) []byte         // the encoding in a new slice
//	Unmarshal(b, m) error     // decoding; replaces every field
//
// A message type of one's own (to record beside the camera's streams) is a
// struct with a Type method returning a Type whose Size, Append and
// Unmarshal fields encode and decode it.
//
// Unmarshal never panics and checks every length against the remaining
// bytes before allocating. A short message gives a *DecodeError naming the
// type, the field and the byte offset, unwrapping to io.ErrUnexpectedEOF;
// left-over bytes give a *DecodeError unwrapping to ErrTrailingBytes (the
// message itself is then fully decoded). Image.Data is a view of the input,
// not a copy; strings are copied.
//
// What librealsense writes beyond standard ROS is read as written and
// re-encodes to the same bytes: the float32 depth_units after Image.data when
// header.frame_id is "1" (Image.DepthUnits, Image.HasDepthUnits), and ROS
// bools stored as 2 (type Bool keeps the raw byte). Writers that leave
// HasDepthUnits unset and use BoolOf produce standard ROS messages.
//
// Package msgs knows nothing about bags: package rosbag moves bytes and
// connection headers, internal/layout says which type goes on which topic.
package msgs
