// Package layout is the RealSense topic layer of a bag: topic names (spec
// §4), which message type goes on which topic, file versions, the
// conversions between capture/frame times and ROS times (§3), the
// rs2_format ↔ encoding mapping (§5.14) and the text formats of metadata
// values (§5.10, §5.12). Package record builds topics with it and package
// playback parses them with it, so both agree on every string.
//
// Topics are described by Topic values: Topic.String builds the name the
// writer uses (option names with underscores, notification categories with
// spaces) and Parse follows the reader's rules (both option spellings;
// anything it does not recognise is KindUnknown, never an error).
package layout
