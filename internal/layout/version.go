package layout

// File versions (value of the /file_version message, spec §0, §6.1).
const (
	VersionLegacy = 1 // topic /FILE_VERSION, realsense_legacy_msgs (read-only)
	VersionMin    = 2 // smallest /file_version a reader accepts
	VersionWrite  = 3 // the version our writer writes
	VersionLatest = 4 // the version librealsense >= v2.19 writes
)

// ReadableVersion reports whether a file version found on topicKind
// (KindFileVersion or KindLegacyFileVersion) can be read: /file_version
// must be at least VersionMin (larger values read as the latest version),
// /FILE_VERSION at most VersionLegacy.
func ReadableVersion(topicKind TopicKind, v uint32) bool {
	switch topicKind {
	case KindFileVersion:
		return v >= VersionMin
	case KindLegacyFileVersion:
		return v <= VersionLegacy
	}
	return false
}

// Texts librealsense uses for options (spec §5.6).
const (
	// MissingOptionDescription is what the reader reports for an option
	// value without a description message.
	MissingOptionDescription = "N/A"
	readOnlyOptionPrefix     = "Read only option of "
)

// ReadOnlyOptionDescription returns the description librealsense writes
// for an option without one, and gives to version 2 properties:
// "Read only option of <name>".
func ReadOnlyOptionDescription(name string) string { return readOnlyOptionPrefix + name }
