package dense

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// PlainMaxD is the largest size factorised by CholLower; above it
// lapack64.Potrf's blocked kernels, which stay in cache, take over.
const PlainMaxD = 128

// CholLogDet factorises the SPD matrix X held in the upper triangle of
// the row-major d×d a in place, a = U with X = UᵀU, and returns log det X,
// or false when X is not SPD enough (see CholLower). Up to PlainMaxD it
// uses CholLower, leaving L = Uᵀ in the lower triangle as well; above,
// lapack64.Potrf, with the pivot test of pivotsOK, and the lower triangle
// untouched.
//
// Up to TinyMaxD the log-determinant is CholTiny(x, x, d)'s, the routine
// that factorises (X+Y)/2 at those sizes: a Stein divergence
// S(X, X) = log det X − ½(log det X + log det X) is then exactly 0,
// which needs all three log-determinants from the same arithmetic.
func CholLogDet(a []float64, d int) (float64, bool) {
	if d <= PlainMaxD {
		tiny, okTiny := 0.0, true
		if d <= TinyMaxD {
			tiny, okTiny = CholTiny(a, a, d)
		}
		ld, ok := CholLower(a, a, nil, d)
		if !ok || !okTiny {
			return 0, false
		}
		for i := range d {
			for j := i + 1; j < d; j++ {
				a[i*d+j] = a[j*d+i]
			}
		}
		if d <= TinyMaxD {
			ld = tiny
		}
		return ld, true
	}
	if !CholUpper(a, d) {
		return 0, false
	}
	ld := logProd{m: 1}
	for i := 0; i < d; i++ {
		u := a[i*d+i]
		p := u * u
		if !(u > 0) || !(p <= math.MaxFloat64) {
			return 0, false
		}
		ld.mul(p)
	}
	if !pivotsOK(a, d) {
		return 0, false
	}
	return ld.log(), true
}

// pivotsOK reports whether the upper Cholesky factor U (row-major d×d) of
// X = UᵀU has U_jj² >= δ·X_jj for every j, δ = PivotTol(d). X_jj is
// Σ_{k<=j} U_kj², so with s_j = Σ_{k<j} (U_kj/U_jj)² the test is
// 1 + s_j <= 1/δ; it needs no copy of X's diagonal and cannot overflow
// where X does not.
func pivotsOK(u []float64, d int) bool {
	limit := 1/PivotTol(d) - 1
	for j := 1; j < d; j++ {
		inv := 1 / u[j*d+j]
		var s float64
		for k := range j {
			r := u[k*d+j] * inv
			s += r * r
		}
		if !(s <= limit) {
			return false
		}
	}
	return true
}

// CholSmall is the right-looking (outer product) upper Cholesky
// factorisation a = UᵀU of a small row-major matrix (Golub and Van Loan,
// §4.2), reading and writing the upper triangle only, like Potrf, without
// the SPD-enough test. It reports false when a pivot is not positive (or
// NaN).
func CholSmall(a []float64, d int) bool {
	for j := range d {
		rj := a[j*d : j*d+d]
		p := rj[j]
		if !(p > 0) {
			return false
		}
		p = math.Sqrt(p)
		rj[j] = p
		inv := 1 / p
		for k := j + 1; k < d; k++ {
			rj[k] *= inv
		}
		for k := j + 1; k < d; k++ {
			u := rj[k]
			rk := a[k*d+k : k*d+d]
			src := rj[k:d]
			src = src[:len(rk)] // lets the compiler drop bounds checks
			for i, x := range src {
				rk[i] -= u * x
			}
		}
	}
	return true
}

// upper returns the row-major n×n a as a blas64.Symmetric with its upper
// triangle in use.
func upper(a []float64, n int) blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a}
}

// CholUpper factorises the SPD matrix held in the upper triangle of the
// row-major n×n a in place, a = U with A = UᵀU, by lapack64.Potrf, and
// reports whether every pivot was positive. The lower triangle is not
// touched.
func CholUpper(a []float64, n int) bool {
	_, ok := lapack64.Potrf(upper(a, n))
	return ok
}

// InverseFromUpper replaces the upper Cholesky factor U in the upper
// triangle of the row-major n×n u by the upper triangle of
// A⁻¹ = U⁻¹U⁻ᵀ, by lapack64.Potri, and reports whether U was invertible.
func InverseFromUpper(u []float64, n int) bool {
	_, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: u})
	return ok
}

// InvertSPD replaces the upper triangle of the SPD matrix in the
// row-major n×n a by that of its inverse, through the Cholesky
// factorisation (CholUpper, then InverseFromUpper), and reports whether
// both succeeded.
func InvertSPD(a []float64, n int) bool {
	return CholUpper(a, n) && InverseFromUpper(a, n)
}

// SolveSPD overwrites b (length n) with A⁻¹b for the SPD matrix held in
// the upper triangle of the row-major n×n a, through its Cholesky
// factorisation (lapack64.Potrf, then Potrs), which a holds on return. It
// reports false, leaving b as it was, when the factorisation fails.
func SolveSPD(a []float64, n int, b []float64) bool {
	f, ok := lapack64.Potrf(upper(a, n))
	if !ok {
		return false
	}
	lapack64.Potrs(f, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: b})
	return true
}
