package spd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Matrix functions f(X) = V diag(f(λ)) Vᵀ through the symmetric
// eigendecomposition X = V diag(λ) Vᵀ.
//
// The functions defined on SPD matrices only (Log, Sqrt, InvSqrt, Pow)
// first require X to be SPD enough (see the package documentation), the
// test Validate and LogDet make. The matrix is scaled by a power of two
// (exactly) so that its largest entry is about 1 before it is
// diagonalised, so entries near math.MaxFloat64 or in the subnormal range
// neither overflow nor underflow inside the eigensolver. Eigenvalues that
// the solver returns <= 0 are round-off and are replaced by λ_max·d·ε (ε
// the float64 machine epsilon), the size of the solver's error; positive
// ones are kept as computed (clampEigen). A result that is not finite
// (exp or a power overflowing) is an error wrapping ErrNotFinite.

type eigenFunc int

const (
	fnLog eigenFunc = iota
	fnExp
	fnSqrt
	fnInvSqrt
	fnPow
)

// apply computes dst = f(x) for the function fn (with power p for fnPow).
func (w *Workspace) apply(name string, dst *mat.SymDense, x mat.Symmetric, fn eigenFunc, p float64) error {
	if fn == fnPow && (math.IsNaN(p) || math.IsInf(p, 0)) {
		return fmt.Errorf("%w: power %v", ErrParameter, p)
	}
	if err := w.check(name, x); err != nil {
		return err
	}
	if err := w.checkDst(dst); err != nil {
		return err
	}
	if err := w.eigen(name, x, fn, p); err != nil {
		return err
	}
	w.rebuild(dst)
	return nil
}

// eigen diagonalises the d×d matrix x, which the caller has checked for
// size, into eigenvectors w.a and eigenvalues 2^w.scale·w.vals, and puts
// f(λ) into w.fv. For functions other than exp it first checks that x is
// SPD enough.
func (w *Workspace) eigen(name string, x mat.Symmetric, fn eigenFunc, p float64) error {
	if fn != fnExp {
		if _, err := w.logDet(name, x); err != nil {
			return err
		}
	}
	loadUpperTo(w.a, w.d, x)
	d := w.d
	var big float64
	for i := range d {
		for _, v := range w.a[i*d+i : i*d+d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: %w", name, ErrNotFinite)
			}
			big = math.Max(big, math.Abs(v))
		}
	}
	w.scale = 0
	if big > 0 {
		_, w.scale = math.Frexp(big)
		for i := range d {
			row := w.a[i*d+i : i*d+d]
			for j, v := range row {
				row[j] = math.Ldexp(v, -w.scale)
			}
		}
	}
	if !lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: d, Stride: d, Data: w.a, Uplo: blas.Upper}, w.vals, w.work, len(w.work)) {
		return fmt.Errorf("%s: %w: eigendecomposition did not converge", name, ErrNotFinite)
	}
	if fn != fnExp {
		if err := w.clampEigen(name); err != nil {
			return err
		}
	}
	for i, l := range w.vals {
		w.fv[i] = w.f(fn, l, p)
		if math.IsInf(w.fv[i], 0) || math.IsNaN(w.fv[i]) {
			return fmt.Errorf("%s: %w: f(λ=%g) = %v overflows", name, ErrNotFinite, math.Ldexp(l, w.scale), w.fv[i])
		}
	}
	return nil
}

// f returns fn(λ) for the eigenvalue λ = 2^w.scale·l without forming λ
// where that could overflow or underflow.
func (w *Workspace) f(fn eigenFunc, l, p float64) float64 {
	e := w.scale
	switch fn {
	case fnLog:
		return math.Log(l) + float64(e)*math.Ln2
	case fnExp:
		return math.Exp(math.Ldexp(l, e))
	case fnSqrt, fnInvSqrt:
		if e%2 != 0 { // make e even: λ = 2^(e−1)·(2l)
			l, e = 2*l, e-1
		}
		if fn == fnSqrt {
			return math.Ldexp(math.Sqrt(l), e/2)
		}
		return math.Ldexp(1/math.Sqrt(l), -e/2)
	default: // fnPow
		if lam := math.Ldexp(l, e); lam > 0 && !math.IsInf(lam, 0) && lam >= 0x1p-1022 {
			return math.Pow(lam, p)
		}
		return math.Exp(p * (math.Log(l) + float64(e)*math.Ln2))
	}
}

// clampEigen replaces the eigenvalues that are not positive by the floor
// λ_max·d·ε, or reports an indefinite matrix (λ_max <= 0). The caller has
// checked that the matrix is SPD enough, so all its eigenvalues are
// positive: one the solver returns <= 0 is round-off, within the solver's
// absolute error (of order d·ε·λ_max) of zero, and the floor, that
// error's size, stands for it, so that log and the negative powers stay
// finite. A positive eigenvalue is kept as computed, however far below
// the floor: the error bound is a worst case, and where the matrix is
// graded or structured (a whitened pair that nearly commutes, diagonal
// blocks) the solver resolves eigenvalues many orders below it, which a
// floor would replace by up to λ_max·d·ε/λ times their value.
func (w *Workspace) clampEigen(name string) error {
	lmax := w.vals[w.d-1]
	if !(lmax > 0) {
		return fmt.Errorf("%s: %w: largest eigenvalue %g <= 0", name, ErrNotSPD, math.Ldexp(lmax, w.scale))
	}
	floor := lmax * float64(w.d) * 0x1p-52
	for i, l := range w.vals {
		if l > 0 {
			break
		}
		w.vals[i] = floor
	}
	return nil
}

// rebuild writes V diag(fv) Vᵀ into dst, with V the eigenvectors in the
// columns of w.a.
func (w *Workspace) rebuild(dst *mat.SymDense) {
	w.outer(0)
	d := w.d
	for i := range d {
		for j := i; j < d; j++ {
			dst.SetSym(i, j, 0.5*(w.c[i*d+j]+w.c[j*d+i]))
		}
	}
}

// outer sets w.c ← V diag(fv) Vᵀ + beta·w.c (full d×d), with V the
// eigenvectors in the columns of w.a. beta = −1 subtracts a previous result
// without a further buffer.
func (w *Workspace) outer(beta float64) {
	d := w.d
	for i := range d {
		for k := range d {
			w.b[i*d+k] = w.a[i*d+k] * w.fv[k]
		}
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: d, Cols: d, Stride: d, Data: w.b},
		blas64.General{Rows: d, Cols: d, Stride: d, Data: w.a},
		beta, blas64.General{Rows: d, Cols: d, Stride: d, Data: w.c})
}

// checkDst prepares dst to receive a d×d result: an empty dst is sized.
func (w *Workspace) checkDst(dst *mat.SymDense) error {
	if dst == nil {
		return fmt.Errorf("%w: nil destination", ErrParameter)
	}
	if dst.IsEmpty() {
		dst.ReuseAsSym(w.d)
		return nil
	}
	if n := dst.SymmetricDim(); n != w.d {
		return fmt.Errorf("%w: destination is %d×%d, want %d×%d", ErrDimension, n, n, w.d, w.d)
	}
	return nil
}

// LogTo writes the principal matrix logarithm log X of the SPD matrix X into
// dst (an empty dst is sized). It returns an error wrapping ErrNotSPD when X
// is not SPD enough (see the package documentation), ErrNotFinite for NaN
// or Inf entries, ErrDimension for a size other than the workspace's or
// dst's, ErrParameter for a nil dst.
func (w *Workspace) LogTo(dst *mat.SymDense, x mat.Symmetric) error {
	return w.apply("X", dst, x, fnLog, 0)
}

// ExpTo writes the matrix exponential exp(X) of the symmetric matrix X into
// dst. exp maps symmetric matrices (tangent vectors) onto SPD matrices. It
// returns an error wrapping ErrNotFinite when an eigenvalue overflows.
func (w *Workspace) ExpTo(dst *mat.SymDense, x mat.Symmetric) error {
	return w.apply("X", dst, x, fnExp, 0)
}

// SqrtTo writes the SPD square root X^{1/2} into dst. It returns the errors
// of LogTo.
func (w *Workspace) SqrtTo(dst *mat.SymDense, x mat.Symmetric) error {
	return w.apply("X", dst, x, fnSqrt, 0)
}

// InvSqrtTo writes the inverse SPD square root X^{−1/2} into dst. It
// returns the errors of LogTo.
func (w *Workspace) InvSqrtTo(dst *mat.SymDense, x mat.Symmetric) error {
	return w.apply("X", dst, x, fnInvSqrt, 0)
}

// PowTo writes the real power X^p of the SPD matrix X into dst. It returns
// the errors of LogTo, ErrParameter for a p that is not finite and
// ErrNotFinite when an eigenvalue's power overflows.
func (w *Workspace) PowTo(dst *mat.SymDense, x mat.Symmetric, p float64) error {
	return w.apply("X", dst, x, fnPow, p)
}

func allocApply(x mat.Symmetric, fn eigenFunc, p float64) (*mat.SymDense, error) {
	d, err := sizeOf("X", x)
	if err != nil {
		return nil, err
	}
	dst := mat.NewSymDense(d, nil)
	if err := NewWorkspace(d).apply("X", dst, x, fn, p); err != nil {
		return nil, err
	}
	return dst, nil
}

// Log returns the principal matrix logarithm of the SPD matrix X; see
// Workspace.LogTo.
func Log(x mat.Symmetric) (*mat.SymDense, error) { return allocApply(x, fnLog, 0) }

// Exp returns the matrix exponential of the symmetric matrix X; see
// Workspace.ExpTo.
func Exp(x mat.Symmetric) (*mat.SymDense, error) { return allocApply(x, fnExp, 0) }

// Sqrt returns the SPD square root X^{1/2}; see Workspace.SqrtTo.
func Sqrt(x mat.Symmetric) (*mat.SymDense, error) { return allocApply(x, fnSqrt, 0) }

// InvSqrt returns the inverse SPD square root X^{−1/2}; see
// Workspace.InvSqrtTo.
func InvSqrt(x mat.Symmetric) (*mat.SymDense, error) { return allocApply(x, fnInvSqrt, 0) }

// Pow returns the real power X^p of the SPD matrix X; see Workspace.PowTo.
func Pow(x mat.Symmetric, p float64) (*mat.SymDense, error) { return allocApply(x, fnPow, p) }
