package rsr_test

import (
	"strconv"
	"testing"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkLassoSolve600 measures one kernel Lasso solve against a
// dictionary of N = 600 Stein-kernel atoms (10 synthetic classes on Sym+^5)
// at λ giving sparse codes (0.1, 0.02) and a dense one (0.002, the regime of
// near-duplicate atoms where Newton steps dominate); it reports the
// non-zeros and sweeps.
func BenchmarkLassoSolve600(b *testing.B) {
	o := synth.Options{Classes: 10, Dim: 5, Samples: 1200, Train: 0.5, Spread: 1, Variance: 0.5}
	train, test := synthetic(b, o, 1)
	K, Kx := steinGrams(b, spd.SteinKernel{Sigma: 2}, train.X, test.X[:64])
	for _, lambda := range []float64{0.002, 0.02, 0.1} {
		b.Run("lambda="+strconv.FormatFloat(lambda, 'g', -1, 64), func(b *testing.B) {
			benchSolve(b, K, Kx, lambda)
		})
	}
}

// BenchmarkLassoDense measures one solve of the dense-code regime of
// video re-identification (denseProblem: 320 atoms in clusters of
// near-identical frames with an exact duplicate, λ = 1e-3, about 130
// non-zeros), where coordinate descent alone crawls for thousands of
// sweeps.
func BenchmarkLassoDense(b *testing.B) {
	K, Kx := denseProblem(b)
	benchSolve(b, K, Kx, 1e-3)
}

// benchSolve measures cold-start solves against the Gram matrix K for the
// queries of Kx in turn (k(X, X) = 1), reporting the mean non-zeros and
// sweeps per solve.
func benchSolve(b *testing.B, K mat.Matrix, Kx *mat.Dense, lambda float64) {
	l, err := rsr.NewLasso(K, rsr.LassoOptions{Lambda: lambda})
	if err != nil {
		b.Fatal(err)
	}
	q := Kx.RawMatrix().Rows
	ws := l.NewWorkspace()
	v := make([]float64, l.Len())
	var nnz, sweeps, n int
	for b.Loop() {
		clear(v)
		c, err := l.SolveTo(v, Kx.RawRowView(n%q), 1, ws)
		if err != nil {
			b.Fatal(err)
		}
		nnz += c.NonZeros
		sweeps += c.Sweeps
		n++
	}
	b.ReportMetric(float64(nnz)/float64(n), "nonzeros/op")
	b.ReportMetric(float64(sweeps)/float64(n), "sweeps/op")
}

// BenchmarkLassoSynthetic measures the codes of the synthetic protocol
// (configs/synthetic.yaml, task "hard": 4 classes on Sym+^3, 256 atoms,
// λ = 0.05): "rsr" against the Stein-kernel Gram (σ = 1), "logE" against
// the rank-6 Gram of unit-normalised log-vectors (logE-SR).
func BenchmarkLassoSynthetic(b *testing.B) {
	o := synth.Options{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Spread: 1, Variance: 2}
	train, test := synthetic(b, o, 2)
	b.Run("rsr", func(b *testing.B) {
		K, Kx := steinGrams(b, spd.SteinKernel{Sigma: 1}, train.X, test.X)
		benchSolve(b, K, Kx, 0.05)
	})
	b.Run("logE", func(b *testing.B) {
		K, Kx := cosineGrams(b, train.X, test.X)
		benchSolve(b, K, Kx, 0.05)
	})
}

// cosineGrams returns the Gram matrices of the unit-normalised vectorised
// logarithms of atoms and queries, as logE-SR codes them.
func cosineGrams(tb testing.TB, atoms, queries []*mat.SymDense) (K *mat.SymDense, Kx *mat.Dense) {
	vec := func(xs []*mat.SymDense) *mat.Dense {
		d := xs[0].SymmetricDim()
		m := mat.NewDense(len(xs), spd.VecLen(d), nil)
		for i, x := range xs {
			lx, err := spd.Log(x)
			if err != nil {
				tb.Fatal(err)
			}
			row := m.RawRowView(i)
			if err := spd.VecTo(row, lx); err != nil {
				tb.Fatal(err)
			}
			nrm := floats.Norm(row, 2)
			floats.Scale(1/nrm, row)
		}
		return m
	}
	a, q := vec(atoms), vec(queries)
	K = mat.NewSymDense(len(atoms), nil)
	K.SymOuterK(1, a)
	Kx = mat.NewDense(len(queries), len(atoms), nil)
	Kx.Mul(q, a.T())
	return K, Kx
}
