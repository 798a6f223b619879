//go:build race

package playback

func init() { raceEnabled = true }
