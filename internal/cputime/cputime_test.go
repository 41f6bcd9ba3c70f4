package cputime

import (
	"runtime"
	"testing"
)

// work is a fixed amount of arithmetic, of the order of a millisecond.
func work() (sum float64) {
	for i := range 1_000_000 {
		sum += float64(i & 7)
	}
	return sum
}

var sink float64

// TestReportPerOp checks that a benchmark of fixed work reports a positive
// CPU time per operation that is at most what the wall time per operation
// allows on GOMAXPROCS threads, and that the metric is absent only where
// the system gives no CPU time.
func TestReportPerOp(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		m := Start()
		for b.Loop() {
			sink += work()
		}
		m.ReportPerOp(b)
	})
	got, ok := res.Extra["cpu-ns/op"]
	if _, can := process(); !can {
		if ok {
			t.Fatalf("cpu-ns/op = %v reported without a CPU clock", got)
		}
		t.Skipf("no process CPU time on %s", runtime.GOOS)
	}
	if !ok {
		t.Fatalf("no cpu-ns/op in %v", res.Extra)
	}
	// The Getrusage clock ticks in microseconds; over the whole run its
	// rounding is far below one operation.
	wall := float64(res.T.Nanoseconds()) / float64(res.N)
	if limit := wall * float64(runtime.GOMAXPROCS(0)); got <= 0 || got > limit+1e3 {
		t.Errorf("cpu-ns/op = %.0f, want in (0, %.0f] (wall %.0f ns/op)", got, limit, wall)
	}
}
