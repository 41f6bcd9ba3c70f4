package spd

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// randOrthogonal returns a Haar-ish random orthogonal matrix (Q of a
// Gaussian matrix's QR factorisation).
func randOrthogonal(r *rand.Rand, d int) *mat.Dense {
	g := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			g.Set(i, j, r.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// withEigen returns Q diag(vals) Qᵀ.
func withEigen(q *mat.Dense, vals []float64) *mat.SymDense {
	d := len(vals)
	out := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			var s float64
			for k := range d {
				s += q.At(i, k) * vals[k] * q.At(j, k)
			}
			out.SetSym(i, j, s)
		}
	}
	return out
}

// randSPD returns a random SPD matrix whose eigenvalues are log-uniform in
// [e^-spread, e^spread].
func randSPD(r *rand.Rand, d int, spread float64) *mat.SymDense {
	vals := make([]float64, d)
	for i := range vals {
		vals[i] = math.Exp(spread * (2*r.Float64() - 1))
	}
	return withEigen(randOrthogonal(r, d), vals)
}

func randInvertible(r *rand.Rand, d int) *mat.Dense {
	for {
		a := mat.NewDense(d, d, nil)
		for i := range d {
			for j := range d {
				a.Set(i, j, r.NormFloat64())
			}
		}
		if mat.Cond(a, 2) < 1e3 {
			return a
		}
	}
}

// congr returns A X Aᵀ for a general A.
func congr(a *mat.Dense, x mat.Symmetric) *mat.SymDense {
	var t, u mat.Dense
	t.Mul(a, x)
	u.Mul(&t, a.T())
	return symPart(&u)
}

func diag(vals ...float64) *mat.SymDense {
	out := mat.NewSymDense(len(vals), nil)
	for i, v := range vals {
		out.SetSym(i, i, v)
	}
	return out
}

// eigenFunc applies f to the eigenvalues through gonum's own EigenSym: an
// independent route from the package's LAPACK workspace code.
func eigenFn(x mat.Symmetric, f func(float64) float64) *mat.SymDense {
	var e mat.EigenSym
	if !e.Factorize(x, true) {
		panic("eigen failed")
	}
	vals := e.Values(nil)
	var v mat.Dense
	e.VectorsTo(&v)
	for i := range vals {
		vals[i] = f(vals[i])
	}
	return withEigen(&v, vals)
}

func assertClose(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g (tol %g)", what, got, want, tol)
	}
}

func assertSymClose(t *testing.T, what string, got, want mat.Symmetric, tol float64) {
	t.Helper()
	n := got.SymmetricDim()
	if want.SymmetricDim() != n {
		t.Fatalf("%s: size %d, want %d", what, n, want.SymmetricDim())
	}
	scale := math.Max(1, mat.Norm(want, math.Inf(1)))
	for i := range n {
		for j := range n {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > tol*scale {
				t.Fatalf("%s[%d][%d] = %.15g, want %.15g (diff %.3g > %.3g)", what, i, j, got.At(i, j), want.At(i, j), d, tol*scale)
			}
		}
	}
}

// mustSet returns the Set of ms, failing t on an error.
func mustSet(t testing.TB, ms []*mat.SymDense) *Set {
	t.Helper()
	s, err := NewSet(ms)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
