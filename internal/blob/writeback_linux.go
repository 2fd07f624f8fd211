package blob

import (
	"os"

	"golang.org/x/sys/unix"
)

// writebackEvery is how much of a blob is written before the kernel is
// asked to start putting it on disk.
const writebackEvery = 8 << 20

// writeback writes to f and, every writebackEvery bytes, asks the kernel to
// start writing those pages to disk (sync_file_range with
// SYNC_FILE_RANGE_WRITE, which does not wait for them), so that the disk
// works while the rest of the blob arrives and the fsync that ends Put waits
// for the tail only, not for the whole file. The fsync still decides
// durability; a failed hint changes nothing but the timing.
type writeback struct {
	f                *os.File
	written, started int64
}

func newWriteback(f *os.File) *writeback { return &writeback{f: f} }

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if w.written-w.started >= writebackEvery {
		if rc, cerr := w.f.SyscallConn(); cerr == nil {
			off, size := w.started, w.written-w.started
			_ = rc.Control(func(fd uintptr) {
				_ = unix.SyncFileRange(int(fd), off, size, unix.SYNC_FILE_RANGE_WRITE)
			})
		}
		w.started = w.written
	}
	return n, err
}
