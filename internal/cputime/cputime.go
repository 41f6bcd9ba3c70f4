// Package cputime measures the CPU time of the process, so that benchmarks
// can report CPU time per operation beside wall time, which is inflated when
// the machine is oversubscribed.
package cputime

import (
	"testing"
	"time"
)

// Meter holds the CPU time of the process at the start of a measurement.
type Meter struct {
	start time.Duration
	ok    bool
}

// Start starts a measurement.
func Start() Meter {
	start, ok := process()
	return Meter{start: start, ok: ok}
}

// ReportPerOp reports the CPU time of the process since Start divided by
// b.N as the metric "cpu-ns/op". Where the system does not give the CPU
// time of a process it reports nothing.
func (m Meter) ReportPerOp(b *testing.B) {
	if end, ok := process(); m.ok && ok {
		b.ReportMetric(float64(end-m.start)/float64(b.N), "cpu-ns/op")
	}
}
