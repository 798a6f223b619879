package main

import (
	"os"
	"syscall"
)

// fileOwner returns the owner, group and number of hard links of fi (ok
// false where the system does not say).
func fileOwner(fi os.FileInfo) (uid, gid int, links uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return int(st.Uid), int(st.Gid), uint64(st.Nlink), true
}

// freeSpace returns the bytes available to this user in the file system
// holding dir (ok false where the system does not say).
func freeSpace(dir string) (free int64, ok bool, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false, err
	}
	return int64(st.Bavail) * int64(st.Bsize), true, nil
}
