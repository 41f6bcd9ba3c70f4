package spd

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"gonum.org/v1/gonum/mat"
)

// Sentinel errors, matched with errors.Is. Returned errors wrap them with
// the details of the failed check.
var (
	// ErrEmpty: a matrix with no rows or columns, or an empty set.
	ErrEmpty = errors.New("spd: empty matrix")
	// ErrNotSquare: a matrix that is not square.
	ErrNotSquare = errors.New("spd: matrix is not square")
	// ErrNotFinite: a matrix holding NaN or ±Inf.
	ErrNotFinite = errors.New("spd: matrix has a non-finite entry")
	// ErrNotSymmetric: a matrix whose asymmetry exceeds the tolerance.
	ErrNotSymmetric = errors.New("spd: matrix is not symmetric")
	// ErrNotSPD: a symmetric matrix that is not SPD enough in the sense of
	// the package documentation: its Cholesky factorisation fails or has a
	// relative pivot below d·ε.
	ErrNotSPD = errors.New("spd: matrix is not positive definite")
	// ErrDimension: matrices whose sizes do not match.
	ErrDimension = errors.New("spd: dimension mismatch")
	// ErrSigma: a Stein kernel parameter outside the set of Theorem 1.
	ErrSigma = errors.New("spd: invalid Stein kernel sigma")
	// ErrParameter: an invalid numeric parameter (negative ridge, NaN, ...).
	ErrParameter = errors.New("spd: invalid parameter")
)

// DefaultSymmetryTol is the relative tolerance of Validate:
// |a_ij - a_ji| <= DefaultSymmetryTol * max_kl |a_kl|.
const DefaultSymmetryTol = 1e-10

// Validate checks that a is an SPD matrix: non-empty, square, all entries
// finite, symmetric within DefaultSymmetryTol relative to its largest entry,
// and with a symmetric part (A + Aᵀ)/2 that is SPD enough in the sense of
// the package documentation (Cholesky succeeds with every pivot
// U_jj² >= d·ε·X_jj). The error names the check
// that failed and the offending entry, and wraps ErrEmpty, ErrNotSquare,
// ErrNotFinite, ErrNotSymmetric or ErrNotSPD.
func Validate(a mat.Matrix) error {
	return ValidateTol(a, DefaultSymmetryTol)
}

// ValidateTol is Validate with a caller-chosen relative symmetry tolerance.
func ValidateTol(a mat.Matrix, tol float64) error {
	if !(tol >= 0) {
		return fmt.Errorf("%w: symmetry tolerance %v must be >= 0", ErrParameter, tol)
	}
	r, c := dims(a)
	if r == 0 || c == 0 {
		return ErrEmpty
	}
	if r != c {
		return fmt.Errorf("%w: %d×%d", ErrNotSquare, r, c)
	}
	var scale float64
	for i := range r {
		for j := range c {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: a[%d][%d] = %v", ErrNotFinite, i, j, v)
			}
			scale = math.Max(scale, math.Abs(v))
		}
	}
	if _, ok := a.(mat.Symmetric); !ok {
		for i := range r {
			for j := i + 1; j < c; j++ {
				u, v := a.At(i, j), a.At(j, i)
				if math.Abs(u-v) > tol*scale {
					return fmt.Errorf("%w: a[%d][%d] = %v but a[%d][%d] = %v (difference %.3g exceeds %.3g × max|a| = %.3g)",
						ErrNotSymmetric, i, j, u, j, i, v, math.Abs(u-v), tol, tol*scale)
				}
			}
		}
	}
	// Factorise the symmetric part (A + Aᵀ)/2, the matrix FromMatrix
	// returns, so that what Validate accepts every consumer accepts.
	u := make([]float64, r*r)
	for i := range r {
		for j := i; j < r; j++ {
			u[i*r+j] = mean2(a.At(i, j), a.At(j, i))
		}
	}
	if _, ok := cholLogDet(u, r); !ok {
		return fmt.Errorf("%w: %s", ErrNotSPD, notSPDEnough(r))
	}
	return nil
}

// mean2 returns (u + v)/2 without overflow.
func mean2(u, v float64) float64 { return 0.5*u + 0.5*v }

// FromMatrix validates a (see Validate) and returns it as a new
// *mat.SymDense, symmetrised as (a + aᵀ)/2 so that round-off asymmetry does
// not leak into later computations.
func FromMatrix(a mat.Matrix) (*mat.SymDense, error) {
	if err := Validate(a); err != nil {
		return nil, err
	}
	return symPart(a), nil
}

// AddRidge adds eps·I to x in place: x ← x + eps·I. It returns an error
// wrapping ErrParameter when eps is negative or not finite, and ErrEmpty
// when x is nil or empty.
func AddRidge(x *mat.SymDense, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("%w: ridge %v must be finite and >= 0", ErrParameter, eps)
	}
	n, _ := dims(x)
	if n == 0 {
		return ErrEmpty
	}
	for i := range n {
		x.SetSym(i, i, x.At(i, i)+eps)
	}
	return nil
}

// AddTraceRidge adds a ridge scaled to the matrix in place:
// x ← x + eps·(tr(x)/d)·I. Scaling by the mean eigenvalue tr(x)/d makes the
// regularisation independent of the units of the underlying features. It
// returns an error wrapping ErrParameter when eps is negative or not finite,
// ErrEmpty when x is nil or empty, and ErrNotFinite when the trace is not
// finite.
func AddTraceRidge(x *mat.SymDense, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("%w: trace ridge %v must be finite and >= 0", ErrParameter, eps)
	}
	n, _ := dims(x)
	if n == 0 {
		return ErrEmpty
	}
	tr := mat.Trace(x)
	if math.IsNaN(tr) || math.IsInf(tr, 0) {
		return fmt.Errorf("%w: trace = %v", ErrNotFinite, tr)
	}
	return AddRidge(x, eps*math.Abs(tr)/float64(n))
}

// AddDiagRidge scales the diagonal of x in place: x_ii ← (1 + eps)·x_ii,
// that is x ← x + eps·diag(x). For a covariance it is R + eps·I in terms of
// the correlation matrix R, and it is equivariant to rescaling variables
// (A(x + eps·diag x)A = Ax A + eps·diag(Ax A) for diagonal A), so variables
// in large units cannot swamp small ones as with AddTraceRidge. It returns
// an error wrapping ErrParameter when eps is negative or not finite, and
// ErrEmpty when x is nil or empty.
func AddDiagRidge(x *mat.SymDense, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("%w: diagonal ridge %v must be finite and >= 0", ErrParameter, eps)
	}
	n, _ := dims(x)
	if n == 0 {
		return ErrEmpty
	}
	for i := range n {
		x.SetSym(i, i, (1+eps)*x.At(i, i))
	}
	return nil
}

// dims reports the dimensions of a, treating a nil matrix (also a typed nil
// pointer) or a zero-value gonum matrix (whose Dims panics on some types)
// as empty, and a mat.Symmetric whose SymmetricDim differs from its Dims as
// having c = -1 columns, that is not square.
func dims(a mat.Matrix) (r, c int) {
	if a == nil {
		return 0, 0
	}
	if v := reflect.ValueOf(a); v.Kind() == reflect.Pointer && v.IsNil() {
		return 0, 0
	}
	if z, ok := a.(interface{ IsEmpty() bool }); ok && z.IsEmpty() {
		return 0, 0
	}
	r, c = a.Dims()
	if s, ok := a.(mat.Symmetric); ok && r == c && s.SymmetricDim() != r {
		// An inconsistent mat.Symmetric: report it as not square rather
		// than index past the smaller of its two sizes.
		return r, -1
	}
	return r, c
}

// checkSPD validates x, wrapping the error with a name for the argument.
func checkSPD(name string, x mat.Matrix) error {
	if err := Validate(x); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
