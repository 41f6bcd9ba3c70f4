package spd

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAIRMPairsEqualsAIRM wants AIRMPairs bit for bit what Workspace.AIRM
// gives for each pair, for d = 1..50 (both sides of the lanes' vecMinD and
// of dense.PlainMaxD), on 21 pairs (two groups of eight and a rest of
// five) of five anchors, some repeated within a group, over well and ill
// conditioned targets and targets at far apart scales (1e±280, off
// fastEigen's range), and the errors of bad pairs among good ones.
func TestAIRMPairsEqualsAIRM(t *testing.T) {
	for d := 1; d <= 50; d++ {
		r := newRand(uint64(900 + d))
		spreads := []float64{0.5, 1.5, 3, 7, 14}
		xs := make([]*mat.SymDense, 5)
		anchors := make([]*Anchor, len(xs))
		for k := range xs {
			xs[k] = randSPD(r, d, spreads[(k+2)%len(spreads)])
			var err error
			if anchors[k], err = NewAnchor(xs[k]); err != nil {
				t.Fatal(err)
			}
		}
		var as []*Anchor
		var ts []*Target
		var px, py []*mat.SymDense
		for i := range 21 {
			y := randSPD(r, d, spreads[i%len(spreads)])
			if i%7 == 6 {
				y.ScaleSym([]float64{1e280, 1e-280}[i%2], y)
			}
			tg, err := NewTarget(y)
			if err != nil {
				t.Fatal(err)
			}
			k := (i * i) % len(xs) // anchors repeated, out of order
			as, ts, px, py = append(as, anchors[k]), append(ts, tg), append(px, xs[k]), append(py, y)
		}
		got := make([]float64, len(ts))
		if err := AIRMPairs(got, as, ts); err != nil {
			t.Fatalf("d=%d: %v", d, err)
		}
		w := NewWorkspace(d)
		for i := range ts {
			want, err := w.AIRM(px[i], py[i])
			if err != nil {
				t.Fatalf("d=%d, pair %d: %v", d, i, err)
			}
			if math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Errorf("d=%d, pair %d: AIRMPairs %v, Workspace.AIRM %v", d, i, got[i], want)
			}
		}
	}
	a, _ := NewAnchor(diag(1, 2, 3))
	b, _ := NewAnchor(diag(3, 2, 1))
	a2, _ := NewAnchor(diag(1, 2))
	good, _ := NewTarget(diag(1, 2, 4))
	small, _ := NewTarget(diag(1, 2))
	for _, c := range []struct {
		name string
		as   []*Anchor
		ts   []*Target
		dst  int
		want error
	}{
		{"nil target", []*Anchor{a, b, a, b}, []*Target{good, good, nil, good}, 4, ErrParameter},
		{"2×2 target", []*Anchor{a, b, a}, []*Target{good, small, good}, 3, ErrDimension},
		{"2×2 anchor", []*Anchor{a, a2}, []*Target{good, good}, 2, ErrDimension},
		{"nil anchor", []*Anchor{a, nil}, []*Target{good, good}, 2, ErrParameter},
		{"short dst", []*Anchor{a, b}, []*Target{good, good}, 1, ErrDimension},
		{"short anchors", []*Anchor{a}, []*Target{good, good}, 2, ErrDimension},
	} {
		if err := AIRMPairs(make([]float64, c.dst), c.as, c.ts); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if err := AIRMPairs(nil, nil, nil); err != nil {
		t.Errorf("no pairs: %v", err)
	}
}

// TestAIRMPairsClosedForm checks AIRMPairs against the closed form of
// commuting pairs: for diagonal X and Y, d_g(X, Y)² = Σ_i log²(y_i/x_i).
func TestAIRMPairsClosedForm(t *testing.T) {
	for _, d := range []int{3, 17, 43} {
		r := newRand(uint64(950 + d))
		var as []*Anchor
		var ts []*Target
		var want []float64
		for range 11 {
			x, y := make([]float64, d), make([]float64, d)
			var s float64
			for i := range d {
				x[i], y[i] = math.Exp(4*r.Float64()-2), math.Exp(4*r.Float64()-2)
				l := math.Log(y[i] / x[i])
				s += l * l
			}
			a, err := NewAnchor(diag(x...))
			if err != nil {
				t.Fatal(err)
			}
			tg, err := NewTarget(diag(y...))
			if err != nil {
				t.Fatal(err)
			}
			as, ts, want = append(as, a), append(ts, tg), append(want, math.Sqrt(s))
		}
		got := make([]float64, len(ts))
		if err := AIRMPairs(got, as, ts); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*want[i] {
				t.Errorf("d=%d, pair %d: %v, want %v", d, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkAIRMPairs measures AIRMPairs on eight pairs of eight anchors
// (a nearest-neighbour search's lockstep queries), per distance, against
// AIRMTarget's one at a time (sub-benchmark "one").
func BenchmarkAIRMPairs(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		r := newRand(uint64(980 + d))
		as, ts := make([]*Anchor, 8), make([]*Target, 8)
		for i := range as {
			as[i], _ = NewAnchor(randSPD(r, d, 1.5))
			ts[i], _ = NewTarget(randSPD(r, d, 1.5))
		}
		dst := make([]float64, len(ts))
		b.Run(fmt.Sprintf("d=%d/batch", d), func(b *testing.B) {
			for b.Loop() {
				if err := AIRMPairs(dst, as, ts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(ts)*b.N), "ns/distance")
		})
		b.Run(fmt.Sprintf("d=%d/one", d), func(b *testing.B) {
			for b.Loop() {
				for i, tg := range ts {
					v, err := as[i].AIRMTarget(tg)
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
