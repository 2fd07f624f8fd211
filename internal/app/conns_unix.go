//go:build unix

package app

import "syscall"

// derivedMaxConns is the default bound of open connections for the
// process's file descriptor limit (Go raises the soft limit to the hard one
// at start).
func derivedMaxConns() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return fallbackMaxConns
	}
	return int(min(max(rl.Cur/2, minDerivedConns), maxDerivedConns))
}
