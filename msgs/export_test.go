package msgs

// For legacy_test.go (package msgs_test), which checks the descriptors of
// internal/legacymsgs as defs_test.go checks this package's.
var (
	SplitDefinition = splitDefinition
	GenmsgMD5       = genmsgMD5
	SpecJSON        = specJSON
	Types           = types
)
