//go:build !linux

package blob

import "os"

// newWriteback is the file itself where the kernel offers no way to start
// writeback early (see writeback_linux.go): the fsync that ends Put writes
// the whole blob.
func newWriteback(f *os.File) *os.File { return f }
