package spd

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestAnchorTargetsEqualsAIRMTarget wants AIRMTargets bit for bit what
// AIRMTarget gives, for d = 1..50 (both sides of the lanes' vecMinD and
// of dense.PlainMaxD), on 19 targets (two groups of eight and a rest of
// three), well and ill conditioned (eigenvalues over e^±0.5 to e^±14,
// cond up to 1e12) and at far apart scales (targets scaled by 1e±280,
// where the generalised eigenvalues leave fastEigen's range), and the
// errors of bad targets among good ones.
func TestAnchorTargetsEqualsAIRMTarget(t *testing.T) {
	for d := 1; d <= 50; d++ {
		r := newRand(uint64(700 + d))
		spreads := []float64{0.5, 1.5, 3, 7, 14}
		var ts []*Target
		for i := range 19 {
			y := randSPD(r, d, spreads[i%len(spreads)])
			if i%7 == 6 {
				y.ScaleSym([]float64{1e280, 1e-280}[i%2], y)
			}
			tg, err := NewTarget(y)
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, tg)
		}
		a, err := NewAnchor(randSPD(r, d, 3))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, len(ts))
		if err := a.AIRMTargets(got, ts); err != nil {
			t.Fatalf("d=%d: %v", d, err)
		}
		for i, tg := range ts {
			want, err := a.AIRMTarget(tg)
			if err != nil {
				t.Fatalf("d=%d, target %d: %v", d, i, err)
			}
			if math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Errorf("d=%d, target %d: AIRMTargets %v, AIRMTarget %v", d, i, got[i], want)
			}
		}
	}
	a, _ := NewAnchor(diag(1, 2, 3))
	good, _ := NewTarget(diag(1, 2, 4))
	small, _ := NewTarget(diag(1, 2))
	for _, c := range []struct {
		name string
		ts   []*Target
		dst  int
		want error
	}{
		{"nil target", []*Target{good, good, nil, good}, 4, ErrParameter},
		{"2×2 target", []*Target{good, small, good}, 3, ErrDimension},
		{"short dst", []*Target{good, good}, 1, ErrDimension},
	} {
		if err := a.AIRMTargets(make([]float64, c.dst), c.ts); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if err := (*Anchor)(nil).AIRMTargets(nil, nil); !errors.Is(err, ErrParameter) {
		t.Errorf("nil anchor: %v", err)
	}
}

// BenchmarkAIRMTargets measures AIRMTargets from one anchor to 32 targets
// (an MDM query's distances to its class means), per distance, against
// AIRMTarget's one at a time (sub-benchmark "one").
func BenchmarkAIRMTargets(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		r := newRand(uint64(800 + d))
		ts := make([]*Target, 32)
		for i := range ts {
			ts[i], _ = NewTarget(randSPD(r, d, 1.5))
		}
		a, _ := NewAnchor(randSPD(r, d, 1.5))
		dst := make([]float64, len(ts))
		b.Run(fmt.Sprintf("d=%d/batch", d), func(b *testing.B) {
			for b.Loop() {
				if err := a.AIRMTargets(dst, ts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(ts)*b.N), "ns/distance")
		})
		b.Run(fmt.Sprintf("d=%d/one", d), func(b *testing.B) {
			for b.Loop() {
				for i, tg := range ts {
					v, err := a.AIRMTarget(tg)
					if err != nil {
						b.Fatal(err)
					}
					dst[i] = v
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(ts)*b.N), "ns/distance")
		})
	}
}
