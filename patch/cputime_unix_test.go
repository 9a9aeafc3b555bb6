//go:build unix

package patch

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the whole process has used (user and
// system, garbage collector included). The benchmarks report it per
// operation beside wall time: on a shared, overloaded machine the wall
// time also counts the time spent waiting for a core.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
