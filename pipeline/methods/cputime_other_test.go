//go:build !unix

package methods

import "time"

// processCPU returns the wall clock where the CPU time of the process is
// not available: the cost of a round of the refinement is then its wall
// time.
func processCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }
