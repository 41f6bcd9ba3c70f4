package roofline

import (
	"math"
	"testing"
)

// TestPeak checks that the peak is a positive finite rate, that the
// loops count their FLOP as their iterations make them, and that Report
// gives the rate a benchmark's FLOP count and time imply, and its share
// of the peak.
func TestPeak(t *testing.T) {
	if p := Peak(); !(p > 0) || math.IsInf(p, 0) {
		t.Fatalf("Peak() = %v, want a positive rate", p)
	}
	if got := scalarLoop(10); got != 160 {
		t.Errorf("scalarLoop(10) = %v FLOP, want 160", got)
	}
	if got := fmaLoop(10); got != 160 && got != 960 {
		t.Errorf("fmaLoop(10) = %v FLOP, want 160 (scalar) or 960 (AVX2)", got)
	}
	res := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			fmaLoop(1000)
		}
		Report(b, 96000)
	})
	rate, pct := res.Extra["GFLOP/s"], res.Extra["%peak"]
	want := 96000 * float64(res.N) / float64(res.T.Nanoseconds())
	if math.Abs(rate-want) > 0.05*want {
		t.Errorf("Report: %v GFLOP/s, want about %v", rate, want)
	}
	if !(pct > 0 && pct < 1000) {
		t.Errorf("Report: %v%% of the peak, want a share near 100", pct)
	}
}

// BenchmarkPeakFMA reports Peak's loop itself: the peak of one core.
func BenchmarkPeakFMA(b *testing.B) {
	var flops float64
	for b.Loop() {
		flops = fmaLoop(peakOps)
	}
	b.ReportMetric(flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
}
