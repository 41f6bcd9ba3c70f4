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

// Anchor holds the Cholesky factor of a fixed SPD matrix X, so that many
// AIRM distances d_g(X, Y) (nearest-neighbour search, distance rows) cost
// one congruence U⁻ᵀ Y U⁻¹ and one symmetric eigenvalue problem each,
// without refactorising X or revalidating matrices taken from a Set. An
// Anchor is not safe for concurrent use.
type Anchor struct {
	w *Workspace
	u []float64 // X = UᵀU, upper triangle
}

// NewAnchor validates x (see Validate) and factorises it.
func NewAnchor(x mat.Symmetric) (*Anchor, error) {
	if err := checkSPD("X", x); err != nil {
		return nil, err
	}
	d, _ := x.Dims()
	a := &Anchor{w: NewWorkspace(d), u: make([]float64, d*d)}
	a.Reset(x)
	return a, nil
}

// Reset re-anchors at x, which must be an SPD matrix of the same size that
// the caller has validated (for example a Set's View); it reports false
// when the factorisation fails.
func (a *Anchor) Reset(x mat.Symmetric) bool {
	loadUpperTo(a.u, a.w.d, x)
	_, ok := cholLogDet(a.u, a.w.d)
	return ok
}

// AIRM returns d_g(X, Y) = sqrt(Σ_i log² λ_i(X⁻¹Y)) for the anchor X and an
// SPD matrix y of the same size validated by the caller (a Set's View).
// It returns an error wrapping ErrDimension for a size mismatch and
// ErrNotSPD when a generalised eigenvalue is not positive.
func (a *Anchor) AIRM(y mat.Symmetric) (float64, error) {
	w := a.w
	d := w.d
	if n, _ := dims(y); n != d {
		return 0, fmt.Errorf("%w: anchor is %d×%d, Y is %d×%d", ErrDimension, d, d, n, n)
	}
	loadFull(w.b, d, y)
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: a.u}
	b := blas64.General{Rows: d, Cols: d, Stride: d, Data: w.b}
	blas64.Trsm(blas.Left, blas.Trans, 1, u, b)
	blas64.Trsm(blas.Right, blas.NoTrans, 1, u, b)
	for i := range d {
		for j := i + 1; j < d; j++ {
			w.b[i*d+j] = 0.5 * (w.b[i*d+j] + w.b[j*d+i])
		}
	}
	if !lapack64.Syev(lapack.EVNone, blas64.Symmetric{N: d, Stride: d, Data: w.b, Uplo: blas.Upper}, w.vals, w.work, len(w.work)) {
		return 0, fmt.Errorf("%w: generalised eigenvalues did not converge", ErrNotFinite)
	}
	if !(w.vals[0] > 0) {
		return 0, fmt.Errorf("Y: %w: generalised eigenvalue %g <= 0", ErrNotSPD, w.vals[0])
	}
	var s float64
	for _, l := range w.vals {
		v := math.Log(l)
		s += v * v
	}
	return math.Sqrt(s), nil
}
