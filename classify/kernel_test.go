package classify

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestKernels checks every kernel of the table against package spd's
// kernel of the same name evaluated pair by pair: its name parses back to
// it, Exp(σ) of its quantity's blocks are the kernel values, and its
// σ check is spd's. A kernel added to the table without a row here fails.
func TestKernels(t *testing.T) {
	data := pairsData(t, 12)
	train := []int{0, 2, 3, 7, 9}
	rows := []int{1, 0, 11, 9}
	direct := map[spd.Metric]struct {
		eval func(sigma float64, x, y mat.Symmetric) (float64, error)
		// bad is a σ the kernel refuses on 4×4 matrices unless pseudo,
		// NaN when it refuses none (every σ > 0 is positive definite).
		bad float64
	}{
		spd.SteinMetric: {func(sigma float64, x, y mat.Symmetric) (float64, error) {
			return spd.SteinKernel{Sigma: sigma}.Eval(x, y)
		}, 0.7},
		spd.LogEuclideanMetric: {func(sigma float64, x, y mat.Symmetric) (float64, error) {
			return spd.LogEuclideanKernel{Sigma: sigma}.Eval(x, y)
		}, math.NaN()},
	}
	table := Kernels()
	if len(table) != len(direct) {
		t.Errorf("%d kernels in the table, %d tested", len(table), len(direct))
	}
	for m, k := range table {
		want, ok := direct[m]
		if !ok {
			t.Errorf("kernel %v is not tested", m)
			continue
		}
		if k.Metric != m || k.String() != m.String() {
			t.Errorf("kernel under %v is %v", m, k)
		}
		if got, err := ParseKernel(m.String()); err != nil || got.Metric != m {
			t.Errorf("ParseKernel(%q) = %v, %v", m.String(), got, err)
		}
		p, err := data.Pairs(k.Quantity, train)
		if err != nil {
			t.Fatal(err)
		}
		const sigma = 2
		got, err := p.Block(context.Background(), rows, train, Exp(sigma))
		if err != nil {
			t.Fatal(err)
		}
		for r, i := range rows {
			for c, j := range train {
				w, err := want.eval(sigma, data.Set.View(i), data.Set.View(j))
				if err != nil {
					t.Fatal(err)
				}
				if g := got.At(r, c); math.Abs(g-w) > 1e-10 {
					t.Errorf("%v: k(%d, %d) = %v, spd %v", k, i, j, g, w)
				}
			}
		}
		for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
			if k.Check(s, 4, true) == nil {
				t.Errorf("%v: σ = %v accepted", k, s)
			}
		}
		if err := k.Check(sigma, 4, false); err != nil {
			t.Errorf("%v: σ = %v refused: %v", k, sigma, err)
		}
		if math.IsNaN(want.bad) {
			if err := k.Check(0.7, 4, false); err != nil {
				t.Errorf("%v: σ = 0.7 refused: %v", k, err)
			}
		} else if k.Check(want.bad, 4, false) == nil || k.Check(want.bad, 4, true) != nil {
			t.Errorf("%v: σ = %v should need a pseudo-kernel on 4×4 matrices", k, want.bad)
		}
	}
	// The deprecated spelling names the same kernel; metrics without a
	// kernel and unknown names are refused, naming the kernels there are.
	if k, err := ParseKernel("logeuclid"); err != nil || k.Metric != spd.LogEuclideanMetric {
		t.Errorf("ParseKernel(logeuclid) = %v, %v", k, err)
	}
	for _, bad := range []string{"airm", "thompson", "rbf", ""} {
		if _, err := ParseKernel(bad); err == nil || !strings.Contains(err.Error(), "want stein or log-euclidean") {
			t.Errorf("ParseKernel(%q): %v", bad, err)
		}
	}
}
