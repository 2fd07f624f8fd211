//go:build !unix

package testdb

import "os/exec"

// runAs is never called where there is no root: os.Geteuid returns -1
// there, so the server runs as this process's user.
func runAs(*exec.Cmd, owner) {}
