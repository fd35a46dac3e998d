//go:build !unix

package benchcpu

import "time"

// processCPU is 0 where getrusage is not checked: the benchmarks report
// only their wall-clock rates.
func processCPU() time.Duration { return 0 }
