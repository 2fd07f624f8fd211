//go:build !linux

package store

// startWriteback does nothing where the kernel offers no way to start
// writeback early (see writeback_linux.go): the checkpoint's fsync writes
// the log.
func startWriteback(string) {}
