package spd

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/covpipe/covpipe/internal/matrixerr"
)

// Sentinel errors, matched with errors.Is. Returned errors wrap them with
// the details of the failed check.
var (
	// ErrEmpty: a matrix with no rows or columns, or an empty set.
	ErrEmpty = errors.New("spd: empty matrix")
	// ErrNotSquare: a matrix that is not square.
	ErrNotSquare = errors.New("spd: matrix is not square")
	// ErrNotFinite: a matrix holding NaN or ±Inf. It is
	// covariance.ErrNotFinite too.
	ErrNotFinite = matrixerr.NotFinite
	// ErrNotSymmetric: a matrix whose asymmetry exceeds the tolerance.
	ErrNotSymmetric = errors.New("spd: matrix is not symmetric")
	// ErrNotSPD: a symmetric matrix that is not SPD enough in the sense of
	// the package documentation: its Cholesky factorisation fails or has a
	// relative pivot below d·ε. It is covariance.ErrNotSPD too.
	ErrNotSPD = matrixerr.NotSPD
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
// U_jj² >= d·ε·X_jj). A mat.Symmetric is read, like everywhere in the
// package, as its upper triangle, with no symmetry test. The error names
// the check that failed and the offending entry, and wraps ErrEmpty,
// ErrNotSquare, ErrNotFinite, ErrNotSymmetric, ErrNotSPD, or ErrDimension
// for a size above 46340.
func Validate(a mat.Matrix) error {
	return ValidateTol(a, DefaultSymmetryTol)
}

// ValidateTol is Validate with a caller-chosen relative symmetry tolerance
// (+Inf disables the symmetry test). It returns an error wrapping
// ErrParameter when tol is negative or NaN.
func ValidateTol(a mat.Matrix, tol float64) error {
	if !(tol >= 0) {
		return fmt.Errorf("%w: symmetry tolerance %v must be >= 0", ErrParameter, tol)
	}
	r, err := sizeOf("", a)
	if err != nil {
		return err
	}
	_, sym := a.(mat.Symmetric)
	var scale float64
	for i := range r {
		j0 := 0
		if sym {
			j0 = i // a mat.Symmetric is its upper triangle
		}
		for j := j0; j < r; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: a[%d][%d] = %v", ErrNotFinite, i, j, v)
			}
			scale = math.Max(scale, math.Abs(v))
		}
	}
	if !sym {
		for i := range r {
			for j := i + 1; j < r; j++ {
				u, v := a.At(i, j), a.At(j, i)
				if math.Abs(u-v) > tol*scale {
					return fmt.Errorf("%w: a[%d][%d] = %v but a[%d][%d] = %v (difference %.3g exceeds %.3g × max|a| = %.3g)",
						ErrNotSymmetric, i, j, u, j, i, v, math.Abs(u-v), tol, tol*scale)
				}
			}
		}
	}
	// Factorise the symmetric part (A + Aᵀ)/2 (for a mat.Symmetric, its
	// upper triangle), the matrix FromMatrix returns, so that what
	// Validate accepts every consumer accepts.
	u := make([]float64, r*r)
	for i := range r {
		for j := i; j < r; j++ {
			u[i*r+j] = symEntry(a, sym, i, j)
		}
	}
	if _, ok := dense.CholLogDet(u, r); !ok {
		return fmt.Errorf("%w: %s", ErrNotSPD, notSPDEnough(r))
	}
	return nil
}

// symEntry returns entry (i, j), i <= j, of the symmetric matrix that a
// stands for: a.At(i, j) for a mat.Symmetric (sym), whose upper triangle
// is all that the package reads, else the symmetric part (a_ij + a_ji)/2.
func symEntry(a mat.Matrix, sym bool, i, j int) float64 {
	if sym {
		return a.At(i, j)
	}
	return mean2(a.At(i, j), a.At(j, i))
}

// sizeOf returns the size d of the non-empty square matrix x, or an error
// naming it (name, unless empty) and wrapping ErrEmpty, ErrNotSquare, or
// ErrDimension for a size above maxSetDim.
func sizeOf(name string, x mat.Matrix) (int, error) {
	wrap := func(err error) error {
		if name == "" {
			return err
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	r, c := dims(x)
	switch {
	case r == 0 || c == 0:
		return 0, wrap(ErrEmpty)
	case r != c:
		return 0, wrap(fmt.Errorf("%w: %d×%d", ErrNotSquare, r, c))
	case r > maxSetDim:
		return 0, wrap(fmt.Errorf("%w: %d×%d exceeds the largest size %d×%d", ErrDimension, r, r, maxSetDim, maxSetDim))
	}
	return r, nil
}

// mean2 returns (u + v)/2 without overflow.
func mean2(u, v float64) float64 { return 0.5*u + 0.5*v }

// FromMatrix validates a (see Validate) and returns it as a new
// *mat.SymDense, symmetrised as (a + aᵀ)/2 so that round-off asymmetry does
// not leak into later computations (a mat.Symmetric: its upper triangle).
func FromMatrix(a mat.Matrix) (*mat.SymDense, error) {
	if err := Validate(a); err != nil {
		return nil, err
	}
	return symPart(a), nil
}

// AddRidge adds eps·I to x in place: x ← x + eps·I. It returns an error
// wrapping ErrParameter when eps is negative or not finite, ErrEmpty when
// x is nil or empty, and ErrNotFinite, leaving x unchanged, when x holds
// NaN or ±Inf or a diagonal entry would overflow.
func AddRidge(x *mat.SymDense, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("%w: ridge %v must be finite and >= 0", ErrParameter, eps)
	}
	return addDiag(x, func(v float64) float64 { return v + eps })
}

// addDiag sets x_ii ← f(x_ii) for every i, after checking that x is
// non-empty and finite and that no f(x_ii) overflows.
func addDiag(x *mat.SymDense, f func(float64) float64) error {
	n, err := sizeOf("", x)
	if err != nil {
		return err
	}
	if !finite(x) {
		return fmt.Errorf("%w: x has a NaN or infinite entry", ErrNotFinite)
	}
	for i := range n {
		if v := f(x.At(i, i)); math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("%w: diagonal entry %d overflows: %v", ErrNotFinite, i, v)
		}
	}
	for i := range n {
		x.SetSym(i, i, f(x.At(i, i)))
	}
	return nil
}

// AddTraceRidge adds a ridge scaled to the matrix in place:
// x ← x + eps·(|tr(x)|/d)·I. Scaling by the mean eigenvalue tr(x)/d makes
// the regularisation independent of the units of the underlying features.
// It returns the errors of AddRidge.
func AddTraceRidge(x *mat.SymDense, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("%w: trace ridge %v must be finite and >= 0", ErrParameter, eps)
	}
	n, err := sizeOf("", x)
	if err != nil {
		return err
	}
	if !finite(x) {
		return fmt.Errorf("%w: x has a NaN or infinite entry", ErrNotFinite)
	}
	ridge := eps * math.Abs(mat.Trace(x)) / float64(n)
	if math.IsInf(ridge, 0) { // the trace or eps·trace overflowed
		var mean float64
		for i := range n {
			mean += x.At(i, i) / float64(n)
		}
		ridge = eps * math.Abs(mean)
	}
	return addDiag(x, func(v float64) float64 { return v + ridge })
}

// AddDiagRidge scales the diagonal of x in place: x_ii ← (1 + eps)·x_ii,
// that is x ← x + eps·diag(x). For a covariance it is R + eps·I in terms of
// the correlation matrix R, and it is equivariant to rescaling variables
// (A(x + eps·diag x)A = Ax A + eps·diag(Ax A) for diagonal A), so variables
// in large units cannot swamp small ones as with AddTraceRidge. It returns
// the errors of AddRidge.
func AddDiagRidge(x *mat.SymDense, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("%w: diagonal ridge %v must be finite and >= 0", ErrParameter, eps)
	}
	return addDiag(x, func(v float64) float64 { return (1 + eps) * v })
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

// finite reports whether every entry of x is finite; of a mat.Symmetric
// only the upper triangle is read.
func finite(x mat.Matrix) bool {
	if rs, ok := x.(mat.RawSymmetricer); ok {
		if raw := rs.RawSymmetric(); raw.Uplo == blas.Upper {
			for i := range raw.N {
				for _, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+raw.N] {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return false
					}
				}
			}
			return true
		}
	}
	r, c := x.Dims()
	_, sym := x.(mat.Symmetric)
	for i := range r {
		j0 := 0
		if sym {
			j0 = i
		}
		for j := j0; j < c; j++ {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// checkSPD validates x, wrapping the error with a name for the argument.
func checkSPD(name string, x mat.Matrix) error {
	if err := Validate(x); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
