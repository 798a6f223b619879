//go:build !unix

package outfile

import "os"

const noFollow = 0

// lock does nothing where flock is missing: RemoveStale then never proves
// a temporary file stale and leaves them all.
func lock(*os.File) error { return nil }

func tryLock(*os.File) bool { return false }
