//go:build !unix

package mcp

import "os/exec"

// ownGroup does nothing here: there are no process groups.
func ownGroup(cmd *exec.Cmd) {}

// killGroup does nothing here; closing the session ends the process.
func killGroup(pid int) {}
