//go:build !linux

package grammarbridge

import (
	"testing"
	"time"
)

// threadCPU skips: thread CPU time is read on Linux only.
func threadCPU(t *testing.T, runs int, f func()) float64 {
	t.Skip("thread CPU time is read on Linux only")
	return 0
}

// processCPU is not read here.
func processCPU() (time.Duration, bool) { return 0, false }
