package method

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// withSpectrum returns Q diag(vals) Qᵀ for a random orthogonal Q (the
// eigenvectors of a random symmetric matrix).
func withSpectrum(rng *rand.Rand, vals []float64) *mat.SymDense {
	n := len(vals)
	r := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			r.SetSym(i, j, rng.NormFloat64())
		}
	}
	var eig mat.EigenSym
	eig.Factorize(r, true)
	var q, qd, a mat.Dense
	eig.VectorsTo(&q)
	qd.Mul(&q, mat.NewDiagDense(n, vals))
	a.Mul(&qd, q.T())
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// TestLeadingEigen checks leadingEigen against mat.EigenSym (LAPACK's
// dsyev) on symmetric matrices with distinct, clustered, repeated and
// zero eigenvalues, a Wishart (Gram) matrix of deficient rank like the
// centred training sets of PCA, a diagonal matrix, whose tridiagonal form
// splits into blocks of one, and the zero matrix: the eigenvalues agree
// to 10⁻¹² of the norm, the vectors are orthonormal with residuals
// ‖Av − λv‖ of the same order, and each vector of an eigenvalue isolated
// from its neighbours (and each invariant subspace of a cluster taken
// whole) is the reference's.
func TestLeadingEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	spectrum := func(n int, f func(i int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	gram := func(n, rank int) *mat.SymDense {
		x := mat.NewDense(n, rank, nil)
		for i := range n {
			for j := range rank {
				x.Set(i, j, rng.NormFloat64()*float64(rank-j))
			}
		}
		s := mat.NewSymDense(n, nil)
		s.SymOuterK(1, x)
		return s
	}
	diag := mat.NewSymDense(30, nil)
	for i := range 30 {
		diag.SetSym(i, i, float64((i*7)%30)+1)
	}
	for _, tc := range []struct {
		name string
		a    *mat.SymDense
		k    int
	}{
		{"distinct", withSpectrum(rng, spectrum(60, func(i int) float64 { return math.Exp(-0.2 * float64(i)) })), 15},
		{"all", withSpectrum(rng, spectrum(25, func(i int) float64 { return float64(i) - 5 })), 25},
		{"more than n", withSpectrum(rng, spectrum(7, func(i int) float64 { return float64(i) })), 12},
		{"one", mat.NewSymDense(1, []float64{3}), 1},
		{"clusters", withSpectrum(rng, spectrum(50, func(i int) float64 { return float64(10-i/5) + 1e-9*float64(i%5) })), 20},
		{"repeated", withSpectrum(rng, spectrum(40, func(i int) float64 { return float64(4 - min(i, 12)/4) })), 12},
		{"gram of rank 8", gram(40, 8), 12},
		{"gram of full rank", gram(80, 100), 30},
		{"diagonal", diag, 10},
		{"zero", mat.NewSymDense(5, nil), 3},
	} {
		n := tc.a.SymmetricDim()
		k := min(tc.k, n)
		var ref mat.EigenSym
		if !ref.Factorize(tc.a, true) {
			t.Fatalf("%s: reference failed", tc.name)
		}
		refVals := ref.Values(nil) // ascending
		var refVecs mat.Dense
		ref.VectorsTo(&refVecs)
		norm := math.Max(math.Abs(refVals[0]), math.Abs(refVals[n-1]))

		lower := make([]float64, n*n)
		for i := range n {
			for j := range i + 1 {
				lower[i*n+j] = tc.a.At(i, j)
			}
			for j := i + 1; j < n; j++ {
				lower[i*n+j] = math.NaN() // the upper triangle is not read
			}
		}
		vals, vecs, ok := leadingEigen(lower, n, tc.k)
		if !ok {
			t.Errorf("%s: did not converge", tc.name)
			continue
		}
		if len(vals) != k || len(vecs) != n*k {
			t.Errorf("%s: %d values, %d vector entries, want %d and %d", tc.name, len(vals), len(vecs), k, n*k)
			continue
		}
		v := mat.NewDense(n, k, vecs)
		for c := range k {
			if d := math.Abs(vals[c] - refVals[n-1-c]); d > 1e-12*norm {
				t.Errorf("%s: λ_%d = %v, dsyev %v", tc.name, c, vals[c], refVals[n-1-c])
			}
			var av mat.VecDense
			av.MulVec(tc.a, v.ColView(c))
			av.AddScaledVec(&av, -vals[c], v.ColView(c))
			if r := av.Norm(2); r > 1e-12*norm*float64(n) {
				t.Errorf("%s: ‖Av − λv‖ = %v for λ_%d", tc.name, r, c)
			}
		}
		var vtv mat.Dense
		vtv.Mul(v.T(), v)
		for i := range k {
			for j := range k {
				want := 0.0
				if i == j {
					want = 1
				}
				if d := math.Abs(vtv.At(i, j) - want); d > 1e-12*float64(n) {
					t.Errorf("%s: (VᵀV)[%d,%d] = %v", tc.name, i, j, vtv.At(i, j))
				}
			}
		}
		// Groups of eigenvalues closer than 1e-6·‖A‖, each compared whole
		// (its projector) when it lies within the k kept.
		for c := 0; c < k; {
			e := c + 1
			for e < n && refVals[n-1-(e-1)]-refVals[n-1-e] <= 1e-6*norm {
				e++
			}
			if e > k {
				break
			}
			var p, pref mat.Dense
			p.Mul(v.Slice(0, n, c, e), v.Slice(0, n, c, e).T())
			rv := mat.NewDense(n, e-c, nil)
			for j := c; j < e; j++ {
				rv.SetCol(j-c, mat.Col(nil, n-1-j, &refVecs))
			}
			pref.Mul(rv, rv.T())
			var diff mat.Dense
			diff.Sub(&p, &pref)
			if d := mat.Norm(&diff, math.Inf(1)); d > 1e-8 {
				t.Errorf("%s: the invariant subspace of λ_%d..λ_%d differs from dsyev's by %v", tc.name, c, e-1, d)
			}
			c = e
		}
	}
}

// BenchmarkGramEigen compares leadingEigen's 100 leading eigenpairs with
// the full mat.EigenSym on the Gram matrix of 600 centred vectors of 2560
// values (FERET's final PCA fit in gsr).
func BenchmarkGramEigen(b *testing.B) {
	const n, m, k = 600, 2560, 100
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(n, m, nil)
	for i := range n {
		for j := range m {
			x.Set(i, j, rng.NormFloat64()*math.Exp(-float64(j)/300))
		}
	}
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, x)
	full := make([]float64, n*n)
	buf := make([]float64, n*n)
	for i := range n {
		for j := range n {
			full[i*n+j] = g.At(i, j)
		}
	}
	b.Run("leading", func(b *testing.B) {
		for b.Loop() {
			copy(buf, full)
			if _, _, ok := leadingEigen(buf, n, k); !ok {
				b.Fatal("no convergence")
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			var eig mat.EigenSym
			if !eig.Factorize(g, true) {
				b.Fatal("no convergence")
			}
		}
	})
}
