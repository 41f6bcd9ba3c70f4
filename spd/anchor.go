package spd

import (
	"fmt"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// Anchor holds the Cholesky factor of a fixed SPD matrix X, so that many
// AIRM distances d_g(X, Y) (nearest-neighbour search, distance rows) cost
// one factorisation of Y, a triangular solve and one symmetric eigenvalue
// problem each (see Workspace.fastEigen), without refactorising X or
// revalidating matrices taken from a Set. An Anchor is not safe for
// concurrent use.
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

// Reset re-anchors at x, an SPD matrix of the anchor's size (for example
// a Set's View). It reports false, and leaves the anchor as it was, when
// the anchor is nil or zero, or x is nil, of another size or not SPD
// enough (a NaN or Inf entry included).
func (a *Anchor) Reset(x mat.Symmetric) bool {
	if a.ready() != nil {
		return false
	}
	d := a.w.d
	if n, c := dims(x); n != d || c != d {
		return false
	}
	loadUpperTo(a.w.c, d, x)
	if _, ok := dense.CholLogDet(a.w.c, d); !ok {
		return false
	}
	copy(a.u, a.w.c)
	return true
}

// ready reports an error wrapping ErrParameter for a nil Anchor or one not
// made by NewAnchor.
func (a *Anchor) ready() error {
	if a == nil || a.w.ready() != nil || len(a.u) != a.w.d*a.w.d {
		return fmt.Errorf("%w: nil or zero Anchor (use NewAnchor)", ErrParameter)
	}
	return nil
}

// AIRM returns d_g(X, Y) = sqrt(Σ_i log² λ_i(X⁻¹Y)) for the anchor X and an
// SPD matrix y of the same size (a Set's View). To stay cheap it does not
// make the SPD-enough test on y: it returns an error wrapping ErrNotSPD
// only when a generalised eigenvalue is not positive, so a singular y may
// give a large finite distance. It returns an error wrapping ErrParameter
// for a nil or zero anchor, ErrEmpty, ErrNotSquare or ErrDimension for a
// nil, inconsistent or mismatched y and ErrNotFinite for NaN or Inf
// entries.
func (a *Anchor) AIRM(y mat.Symmetric) (float64, error) {
	if err := a.ready(); err != nil {
		return 0, err
	}
	w := a.w
	d := w.d
	n, err := sizeOf("Y", y)
	if err != nil {
		return 0, err
	}
	if n != d {
		return 0, fmt.Errorf("%w: anchor is %d×%d, Y is %d×%d", ErrDimension, d, d, n, n)
	}
	if !finite(y) {
		return 0, fmt.Errorf("Y: %w", ErrNotFinite)
	}
	if err := w.whitenedEigen(a.u, y); err != nil {
		return 0, err
	}
	return w.sumLog2(), nil
}
