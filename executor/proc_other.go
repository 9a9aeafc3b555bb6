//go:build !unix

package executor

import "os/exec"

// setProcessGroup does nothing here: cancellation kills the process only.
func setProcessGroup(cmd *exec.Cmd) {}
