//go:build unix

package testdb

import (
	"os/exec"
	"syscall"
)

// runAs makes cmd run as o (the server refuses to run as root).
func runAs(cmd *exec.Cmd, o owner) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(o.uid), Gid: uint32(o.gid)}}
}
