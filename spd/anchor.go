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
	w     *Workspace
	u     []float64  // X = UᵀU, upper triangle
	batch *airmLanes // AIRMTargets' buffers, made when first needed
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

// Target holds an SPD matrix Y with the factor Y = MMᵀ that the AIRM
// distance takes of its second argument, so that the distances from
// many anchors to a few fixed matrices (an MDM's class means) factorise
// each of them once. A Target is read only by Anchor.AIRMTarget and may
// be shared between goroutines.
type Target struct {
	y mat.Symmetric
	m []float64 // M's buffer as Workspace.AIRM leaves it, d×d
}

// NewTarget factorises y as Workspace.AIRM factorises its Y. It returns
// the errors Workspace.AIRM returns for such a Y: ErrEmpty or
// ErrNotSquare for a nil or non-square y, ErrNotFinite for NaN or Inf
// entries and ErrNotSPD when y is not SPD enough.
func NewTarget(y mat.Symmetric) (*Target, error) {
	d, err := sizeOf("Y", y)
	if err != nil {
		return nil, err
	}
	m := make([]float64, d*d)
	loadUpperTo(m, d, y)
	var ok bool
	if d <= dense.PlainMaxD {
		_, ok = dense.CholLower(m, m, nil, d)
	} else {
		_, ok = dense.CholLogDet(m, d)
	}
	if !ok {
		if !finite(y) {
			return nil, fmt.Errorf("Y: %w", ErrNotFinite)
		}
		return nil, fmt.Errorf("Y: %w: %s", ErrNotSPD, notSPDEnough(d))
	}
	return &Target{y: y, m: m}, nil
}

// AIRMTarget returns d_g(X, Y) for the anchor X and the target's Y, bit
// for bit Workspace.AIRM(X, Y) and Anchor.AIRM(Y), without factorising
// Y again. It returns an error wrapping ErrParameter for a nil or zero
// anchor or target, ErrDimension when their sizes differ, and the errors
// of Anchor.AIRM.
func (a *Anchor) AIRMTarget(t *Target) (float64, error) {
	if err := a.ready(); err != nil {
		return 0, err
	}
	if t == nil || len(t.m) == 0 {
		return 0, fmt.Errorf("%w: nil or zero Target (use NewTarget)", ErrParameter)
	}
	w := a.w
	d := w.d
	if len(t.m) != d*d {
		return 0, fmt.Errorf("%w: anchor is %d×%d, target is %d×%d", ErrDimension, d, d, t.y.SymmetricDim(), t.y.SymmetricDim())
	}
	// Workspace.AIRM's route: the fast one on Y's factor, else the
	// general one, which factorises again.
	if d <= dense.PlainMaxD {
		copy(w.b, t.m)
		if w.fastEigen(a.u, t.y, true) {
			return w.sumLog2(), nil
		}
	}
	if err := w.whitenedEigen(a.u, t.y); err != nil {
		return 0, err
	}
	return w.sumLog2(), nil
}
