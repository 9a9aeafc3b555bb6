package grammarbridge

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU runs f runs times on one locked thread and returns the least
// CPU time, in seconds, that thread spent in one run: the time other
// processes take on a busy machine is not in it.
func threadCPU(t *testing.T, runs int, f func()) float64 {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(1 << 62)
	for range runs {
		before := threadTime(t)
		f()
		best = min(best, threadTime(t)-before)
	}
	return best.Seconds()
}

func threadTime(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Skipf("no thread CPU time: %v", err)
	}
	return time.Duration(ts.Nano())
}

// processCPU returns the CPU time the whole process has used (garbage
// collector included), for benchmarks on a machine other work shares.
func processCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
