package spd

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLogEuclideanMeanClosedForms checks the mean against the geometric
// mean of eigenvalues, for matrices that share their eigenvectors (diagonal
// ones, and a common rotation of them), with weights made by repeated
// indices.
func TestLogEuclideanMeanClosedForms(t *testing.T) {
	q := randOrthogonal(newRand(3), 3)
	vals := [][]float64{{1, 4, 0.5}, {9, 1, 2}, {0.25, 16, 8}}
	rotated := func(v []float64) *mat.SymDense { return withEigen(q, v) }
	diagonal := func(v []float64) *mat.SymDense { return diag(v...) }
	for _, tc := range []struct {
		name string
		make func([]float64) *mat.SymDense
		idx  []int
	}{
		{"diagonal, all", diagonal, nil},
		{"diagonal, subset", diagonal, []int{2, 0}},
		{"diagonal, weighted by repeats", diagonal, []int{0, 0, 1}},
		{"common eigenvectors", rotated, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ms []*mat.SymDense
			for _, v := range vals {
				ms = append(ms, tc.make(v))
			}
			idx := tc.idx
			if idx == nil {
				idx = []int{0, 1, 2}
			}
			want := make([]float64, 3)
			for k := range want {
				var s float64
				for _, i := range idx {
					s += math.Log(vals[i][k])
				}
				want[k] = math.Exp(s / float64(len(idx)))
			}
			got, err := LogEuclideanMean(mustSet(t, ms), tc.idx)
			if err != nil {
				t.Fatal(err)
			}
			assertSymClose(t, "mean", got, tc.make(want), 1e-12)
		})
	}
}

// TestLogEuclideanMeanMinimises checks the mean's defining property on
// matrices that do not commute: moving it along any symmetric direction in
// the log domain raises Σ_i d_LE²(M, X_i), computed by Distance.
func TestLogEuclideanMeanMinimises(t *testing.T) {
	r := newRand(7)
	var ms []*mat.SymDense
	for range 5 {
		ms = append(ms, randSPD(r, 4, 1.5))
	}
	m, err := LogEuclideanMean(mustSet(t, ms), nil)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(x mat.Symmetric) float64 {
		var s float64
		for _, xi := range ms {
			d, err := Distance(LogEuclideanMetric, x, xi)
			if err != nil {
				t.Fatal(err)
			}
			s += d * d
		}
		return s
	}
	base := cost(m)
	logm := eigenFn(m, math.Log)
	for k := range 6 {
		dir := randSPD(r, 4, 1)
		for _, step := range []float64{1e-3, -1e-3} {
			var moved, delta mat.SymDense
			delta.ScaleSym(step, dir)
			moved.AddSym(logm, &delta)
			if c := cost(eigenFn(&moved, math.Exp)); c <= base {
				t.Errorf("direction %d, step %g: cost %.17g <= the mean's %.17g", k, step, c, base)
			}
		}
	}
}
