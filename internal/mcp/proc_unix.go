//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that
// closing the server reaches what it spawned (npx starts node).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of the process group of pid. A group
// already gone is not an error.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
