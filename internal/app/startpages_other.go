//go:build !linux

package app

// releaseStartPages releases nothing outside Linux (docs/decisions.md, D55).
func releaseStartPages() int64 { return 0 }
