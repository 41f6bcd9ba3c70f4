// Package roofline puts benchmarks of floating-point kernels beside the
// machine's peak: Peak measures the rate of a tight loop of independent
// fused multiply-adds on one core, and Report gives a kernel's rate, its
// FLOP count per operation over its time per operation, in GFLOP/s and as
// a percentage of that peak, measured in the same process.
//
// FLOP counts are the leading terms of the textbook counts, a fused
// multiply-add counting two (Golub and Van Loan, Matrix Computations, 4th
// ed., §1.1.15): a Cholesky factorisation of a d×d matrix d³/3, a
// Householder tridiagonalisation 4d³/3.
package roofline

import (
	"testing"
	"time"
)

// peakOps is the number of loop iterations Peak times: about a
// millisecond at the rate of one core.
const peakOps = 1 << 16

// Peak returns the floating-point rate of one core in GFLOP/s: the best of
// a few timings of a loop of twelve independent fused multiply-adds of
// four float64 lanes (AVX2 and FMA, 96 FLOP an iteration), which no data
// dependence or memory access slows, so that it runs at the rate the
// multiply-add units allow. Without those instructions (other
// architectures, -tags purego, older CPUs) it times the same loop of
// scalar multiply-adds in Go, the peak those paths can reach.
func Peak() float64 {
	best := time.Duration(1 << 62)
	var flops float64
	for range 5 {
		start := time.Now()
		flops = fmaLoop(peakOps)
		best = min(best, time.Since(start))
	}
	return flops / float64(best.Nanoseconds())
}

// Report reports, for a benchmark of flops FLOP per operation, the rate
// flops·b.N over the benchmark's elapsed time as the metric "GFLOP/s" and
// its ratio to Peak, measured after the benchmark's loop, as "%peak". Call
// it after the loop.
func Report(b *testing.B, flops float64) {
	ns := float64(b.Elapsed().Nanoseconds())
	if ns <= 0 || b.N == 0 {
		return
	}
	rate := flops * float64(b.N) / ns
	b.ReportMetric(rate, "GFLOP/s")
	b.ReportMetric(100*rate/Peak(), "%peak")
}
