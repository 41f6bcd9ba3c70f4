//go:build unix

package features_test

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process, so that
// benchmarks can report CPU time per image alongside wall time, which is
// inflated when the machine is oversubscribed.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
