package rsr_test

import (
	"testing"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// TestLassoLogEuclideanSynthetic is the log-Euclidean baseline of the
// synthetic protocol: 256 atoms, vectorised logarithms of 3×3 matrices, so
// the linear Gram has rank 6 and every active block of more than 6 atoms is
// singular. Every code must converge well inside the sweep cap.
func TestLassoLogEuclideanSynthetic(t *testing.T) {
	o := synth.Options{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Spread: 1, Variance: 2}
	for seed := uint64(32); seed < 40; seed++ { // seed 35 once caught an accepted blow-up
		train, test := synthetic(t, o, seed)
		vec := func(xs []*mat.SymDense) *mat.Dense {
			m := mat.NewDense(len(xs), spd.VecLen(3), nil)
			for i, x := range xs {
				lx, err := spd.Log(x)
				if err != nil {
					t.Fatal(err)
				}
				if err := spd.VecTo(m.RawRowView(i), lx); err != nil {
					t.Fatal(err)
				}
			}
			return m
		}
		a, q := vec(train.X), vec(test.X)
		var K mat.SymDense
		K.SymOuterK(1, a)
		var kx mat.Dense
		kx.Mul(q, a.T())
		l, err := rsr.NewLasso(&K, rsr.LassoOptions{Lambda: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		for i := range q.RawMatrix().Rows {
			row := q.RawRowView(i)
			_, cert, err := l.Solve(kx.RawRowView(i), mat.Dot(mat.NewVecDense(len(row), row), mat.NewVecDense(len(row), row)))
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			if cert.Sweeps > 2000 {
				t.Errorf("seed %d query %d: %d sweeps", seed, i, cert.Sweeps)
			}
		}
	}
}
