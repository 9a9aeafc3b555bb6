//go:build !unix

package patch

import "time"

// processCPU is not available here.
func processCPU() (time.Duration, bool) { return 0, false }
