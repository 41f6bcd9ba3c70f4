package spd

import (
	"fmt"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Workspace holds reusable buffers for computations on d×d matrices, so that
// hot loops (Gram matrices, nearest-neighbour search, Karcher iterations)
// allocate nothing per item. A Workspace is not safe for concurrent use:
// give each goroutine its own.
type Workspace struct {
	d     int
	a     []float64 // Cholesky factor / eigenvectors, row-major d×d
	b     []float64 // second operand / scratch, row-major d×d
	c     []float64 // third operand / product scratch, row-major d×d
	vals  []float64 // eigenvalues, ascending, of 2^−scale·X
	scale int       // binary exponent that vals are scaled by
	// logShift is log of the factor that whitenedEigen's generalised
	// eigenvalues in vals are to be multiplied by.
	logShift float64
	fv       []float64 // function of the eigenvalues
	work     []float64 // LAPACK workspace
	svdWork  []float64 // Gesvd's workspace, made when first needed
}

// NewWorkspace returns a workspace for d×d matrices. It panics if d is
// out of range [1, 46340] (d·d must not overflow a 32-bit int), which is a
// programming error rather than bad data.
func NewWorkspace(d int) *Workspace {
	if d < 1 || d > maxSetDim {
		panic(fmt.Sprintf("spd: NewWorkspace(%d): dimension out of range [1, %d]", d, maxSetDim))
	}
	w := &Workspace{
		d:    d,
		a:    make([]float64, d*d),
		b:    make([]float64, d*d),
		c:    make([]float64, d*d),
		vals: make([]float64, d),
		fv:   make([]float64, d),
	}
	var q [1]float64
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: d, Stride: d, Data: w.a, Uplo: blas.Upper}, w.vals, q[:], -1)
	w.work = make([]float64, max(int(q[0]), 3*d)) // fastEigen needs 3d
	return w
}

// Dim returns the matrix size d the workspace was made for, 0 for a nil or
// zero Workspace.
func (w *Workspace) Dim() int {
	if w == nil {
		return 0
	}
	return w.d
}

// ready reports an error wrapping ErrParameter for a nil Workspace or one
// not made by NewWorkspace.
func (w *Workspace) ready() error {
	if w == nil || w.d < 1 || len(w.work) == 0 {
		return fmt.Errorf("%w: nil or zero Workspace (use NewWorkspace)", ErrParameter)
	}
	return nil
}

// check verifies that x is a non-empty d×d matrix for this workspace.
func (w *Workspace) check(name string, x mat.Matrix) error {
	if err := w.ready(); err != nil {
		return err
	}
	r, c := dims(x)
	switch {
	case r == 0 || c == 0:
		return fmt.Errorf("%s: %w", name, ErrEmpty)
	case r != c:
		return fmt.Errorf("%s: %w: %d×%d", name, ErrNotSquare, r, c)
	case r != w.d:
		return fmt.Errorf("%s: %w: %d×%d matrix, workspace for %d×%d", name, ErrDimension, r, r, w.d, w.d)
	}
	return nil
}

// loadUpperTo copies the upper triangle of the d×d matrix x into dst
// (row-major). Only the upper triangle is read by Potrf and Syev with
// blas.Upper.
func loadUpperTo(dst []float64, d int, x mat.Matrix) {
	if rs, ok := x.(mat.RawSymmetricer); ok {
		raw := rs.RawSymmetric()
		if raw.Uplo == blas.Upper {
			for i := range d {
				copy(dst[i*d+i:i*d+d], raw.Data[i*raw.Stride+i:i*raw.Stride+d])
			}
			return
		}
	}
	for i := range d {
		for j := i; j < d; j++ {
			dst[i*d+j] = x.At(i, j)
		}
	}
}

// loadFull copies the symmetric matrix x into dst (row-major d×d): its
// upper triangle, mirrored.
func loadFull(dst []float64, d int, x mat.Matrix) {
	if rs, ok := x.(mat.RawSymmetricer); ok {
		raw := rs.RawSymmetric()
		if raw.Uplo == blas.Upper {
			for i := range d {
				row := raw.Data[i*raw.Stride : i*raw.Stride+d]
				for j := i; j < d; j++ {
					dst[i*d+j] = row[j]
					dst[j*d+i] = row[j]
				}
			}
			return
		}
	}
	for i := range d {
		for j := i; j < d; j++ {
			v := x.At(i, j)
			dst[i*d+j] = v
			dst[j*d+i] = v
		}
	}
}

// LogDet returns log det X computed from the Cholesky factor X = UᵀU as
// 2 Σ log U_ii, which neither overflows nor underflows where det X would.
// It returns an error wrapping ErrNotSPD when X is not SPD enough (see the
// package documentation) and ErrNotFinite when X holds NaN or Inf.
func (w *Workspace) LogDet(x mat.Symmetric) (float64, error) {
	return w.logDet("X", x)
}

// logDet is LogDet with errors naming the argument.
func (w *Workspace) logDet(name string, x mat.Symmetric) (float64, error) {
	if err := w.check(name, x); err != nil {
		return 0, err
	}
	loadUpperTo(w.a, w.d, x)
	ld, ok := dense.CholLogDet(w.a, w.d)
	if !ok {
		if !finite(x) {
			return 0, fmt.Errorf("%s: %w", name, ErrNotFinite)
		}
		return 0, fmt.Errorf("%s: %w: %s", name, ErrNotSPD, notSPDEnough(w.d))
	}
	return ld, nil
}

// notSPDEnough describes the failed test of the package documentation's
// definition, for error messages.
func notSPDEnough(d int) string {
	return fmt.Sprintf("Cholesky factorisation X = UᵀU of the %d×%d matrix failed or has a pivot U_jj² < %.3g·X_jj (singular or too ill-conditioned)", d, d, dense.PivotTol(d))
}

// LogDet returns log det X by Cholesky factorisation; see Workspace.LogDet.
func LogDet(x mat.Symmetric) (float64, error) {
	d, err := sizeOf("X", x)
	if err != nil {
		return 0, err
	}
	return NewWorkspace(d).LogDet(x)
}
