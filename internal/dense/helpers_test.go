package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xde75e)) }

// spdOf returns Q diag(e^{spread·u_i}) Qᵀ, row-major with both triangles,
// for u_i uniform in [−1, 1] and Q the orthogonal factor of a Gaussian
// matrix: eigenvalues log-uniform in [e^−spread, e^spread].
func spdOf(r *rand.Rand, d int, spread float64) []float64 {
	g := make([]float64, d*d)
	for k := range g {
		g[k] = r.NormFloat64()
	}
	var f mat.QR
	f.Factorize(mat.NewDense(d, d, g))
	q := mat.NewDense(d, d, nil)
	f.QTo(q)
	lam := make([]float64, d)
	for k := range lam {
		lam[k] = math.Exp(spread * (2*r.Float64() - 1))
	}
	x := make([]float64, d*d)
	for i := range d {
		for j := i; j < d; j++ {
			var s float64
			for k, l := range lam {
				s += q.At(i, k) * l * q.At(j, k)
			}
			x[i*d+j], x[j*d+i] = s, s
		}
	}
	return x
}

// kinds are the kinds of test matrix that ofKind draws.
var kinds = []string{"random", "cond 1e10", "scaled 1e±150"}

// ofKind returns a random d×d SPD matrix (row-major, both triangles) of a
// kind of kinds: eigenvalues log-uniform in [e^-3, e^3], condition number
// 1e10, or the first kind scaled to D X D, D = diag(10^±150) at random,
// so that entries range from 1e-300 to 1e300.
func ofKind(r *rand.Rand, d int, kind string) []float64 {
	switch kind {
	case "random":
		return spdOf(r, d, 3)
	case "cond 1e10":
		return spdOf(r, d, 0.5*math.Log(1e10))
	}
	x := spdOf(r, d, 3)
	s := make([]float64, d)
	for i := range s {
		s[i] = 1e150
		if r.IntN(2) == 0 {
			s[i] = 1e-150
		}
	}
	for i := range d {
		for j := range d {
			x[i*d+j] *= s[i] * s[j]
		}
	}
	return x
}

// kindTol is the relative accuracy to which two factorisations of a
// matrix of the kind agree on its log-determinant: 1e-12, or d·ε·κ at
// condition κ = 1e10, to which the stored entries determine it.
func kindTol(d int, kind string) float64 {
	if kind == "cond 1e10" {
		return float64(d) * 0x1p-52 * 1e10
	}
	return 1e-12
}

// mean returns (X+Y)/2 entry by entry, as CholLower forms it.
func mean(x, y []float64) []float64 {
	m := make([]float64, len(x))
	for i := range m {
		m[i] = 0.5*x[i] + 0.5*y[i]
	}
	return m
}

// potrfLogDet is the reference log-determinant: lapack64.Potrf on a copy
// of the upper triangle of the row-major d×d x, with pivotsOK's
// SPD-enough test, summing 2·log U_ii.
func potrfLogDet(x []float64, d int) (float64, bool) {
	u := append([]float64(nil), x[:d*d]...)
	if _, ok := lapack64.Potrf(upper(u, d)); !ok || !pivotsOK(u, d) {
		return 0, false
	}
	var ld float64
	for i := range d {
		ld += 2 * math.Log(u[i*d+i])
	}
	return ld, true
}

// assertRel fails when got and want differ by more than tol relative to
// |want|, or absolutely below 1.
func assertRel(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
		t.Errorf("%s = %.17g, want %.17g (relative error %.3g > %g)", what, got, want, math.Abs(got-want)/math.Max(1, math.Abs(want)), tol)
	}
}
