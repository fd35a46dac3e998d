// Package benchcpu measures benchmarks in CPU time as well as wall time: the
// machines gpuisa is developed on are shared, so wall-clock rates swing with
// other load while the process's own CPU time stays comparable.
package benchcpu

import (
	"testing"
	"time"
)

// Now returns the CPU time (user + system) the process has used, or 0
// where the system does not say (Report then reports nothing).
func Now() time.Duration { return processCPU() }

// Timer reports a rate per CPU second when stopped.
type Timer struct {
	b     *testing.B
	start time.Duration
}

// Start begins measuring; call it right after b.ResetTimer.
func Start(b *testing.B) Timer { return Timer{b, Now()} }

// Report adds the metric "<unit>/cpu-s": units done in all b.N iterations
// divided by the CPU seconds the process used meanwhile.
func (t Timer) Report(unitsPerOp float64, unit string) {
	cpu := (Now() - t.start).Seconds()
	if cpu <= 0 {
		return
	}
	t.b.ReportMetric(unitsPerOp*float64(t.b.N)/cpu, unit+"/cpu-s")
}
