//go:build !unix

package app

// derivedMaxConns is the default bound of open connections where the
// process has no file descriptor limit to derive it from.
func derivedMaxConns() int { return fallbackMaxConns }
