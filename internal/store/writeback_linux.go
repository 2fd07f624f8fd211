package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the file at path to the
// disk, without waiting for it (sync_file_range with
// SYNC_FILE_RANGE_WRITE): a hint that changes nothing about durability,
// which the fsyncs of SQLite's checkpoint still decide. Only ever the
// write-ahead log: SQLite locks the database file and its -shm with POSIX
// locks, which closing any other descriptor of those files would drop.
func startWriteback(path string) {
	f, err := os.Open(path)
	if err != nil {
		return // no log yet
	}
	defer f.Close()
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
