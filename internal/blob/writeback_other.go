//go:build !linux

package blob

import (
	"io"
	"os"
)

// newWriteback is the file itself where the kernel offers no way to start
// writeback early (see writeback_linux.go): the fsync that ends Put writes
// the whole blob.
func newWriteback(f *os.File) io.Writer { return struct{ io.Writer }{f} }
