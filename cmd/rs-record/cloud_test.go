//go:build cloud

package main

// buildTags are the tags TestMain builds the command with: those of the
// test binary.
var buildTags = []string{"-tags", "cloud"}
