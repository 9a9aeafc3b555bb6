package fuzzy

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling OS thread has used, read from
// CLOCK_THREAD_CPUTIME_ID (nanosecond resolution). The benchmarks lock
// their goroutine to a thread and report CPU time per operation beside
// wall time: on a shared, overloaded machine the wall time also counts the
// time spent waiting for a core.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }
