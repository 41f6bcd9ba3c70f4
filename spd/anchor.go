package spd

import (
	"fmt"

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
	if err := w.whitenedEigen(a.u, y); err != nil {
		return 0, err
	}
	return w.sumLog2(), nil
}
