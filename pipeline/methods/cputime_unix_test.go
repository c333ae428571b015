//go:build unix

package methods

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used
// so far (BenchmarkAccuracyTarget's clock); where the operating
// system does not say, the wall clock.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
