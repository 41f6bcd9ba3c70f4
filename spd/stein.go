package spd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Stein returns the symmetric Stein divergence (Jensen–Bregman LogDet
// divergence) of the paper's Eqn. 3 (Sra 2012):
//
//	S(X, Y) = log det((X+Y)/2) − ½ (log det X + log det Y).
//
// All three log-determinants come from Cholesky factorisations; det(XY) is
// never formed, so S stays accurate where determinants over- or underflow.
// S is symmetric, S(X, X) = 0, S >= 0 (round-off below 0 is clamped to 0),
// and S(AXAᵀ, AYAᵀ) = S(X, Y) for invertible A. It returns an error
// wrapping ErrNotSPD, ErrNotFinite or ErrDimension for bad input.
func (w *Workspace) Stein(x, y mat.Symmetric) (float64, error) {
	ldx, err := w.logDet("X", x)
	if err != nil {
		return 0, err
	}
	ldy, err := w.logDet("Y", y)
	if err != nil {
		return 0, err
	}
	loadUpperTo(w.b, w.d, x)
	loadUpperTo(w.c, w.d, y)
	s, ok := steinEntry(w.a, w.b, w.c, w.d, ldx, ldy)
	if !ok {
		return 0, fmt.Errorf("%w: Cholesky factorisation of (X+Y)/2 failed", ErrNotSPD)
	}
	return s, nil
}

// Stein returns the symmetric Stein divergence S(X, Y) of Eqn. 3; see
// Workspace.Stein.
func Stein(x, y mat.Symmetric) (float64, error) {
	d, err := sizeOf("X", x)
	if err != nil {
		return 0, err
	}
	return NewWorkspace(d).Stein(x, y)
}

// SteinKernel is the Stein kernel of the paper's Eqn. 5:
//
//	k(X, Y) = exp(−σ S(X, Y)) = 2^{dσ} (det X det Y)^{σ/2} / det(X+Y)^σ,
//
// with S the Stein divergence. By Theorem 1 (Sra 2012) its Gram matrices
// are positive definite for every set of d×d SPD matrices iff
// σ ∈ {1/2, 2/2, ..., (d−1)/2} or σ > (d−1)/2. Any other σ > 0 gives a
// pseudo-kernel, allowed only when Pseudo is set.
type SteinKernel struct {
	// Sigma is the kernel parameter σ > 0.
	Sigma float64
	// Pseudo allows a σ outside the set of Theorem 1. The Gram matrix may
	// then be indefinite and the kernel Lasso loses its convexity guarantee.
	Pseudo bool
}

// Check reports whether the kernel is valid on d×d matrices: σ must be
// finite and positive, and, unless Pseudo is set, in the set of Theorem 1.
// The error wraps ErrSigma and says which σ would be valid.
func (k SteinKernel) Check(d int) error {
	if d < 1 {
		return fmt.Errorf("%w: matrix size %d", ErrDimension, d)
	}
	s := k.Sigma
	if !(s > 0) || math.IsInf(s, 0) {
		return fmt.Errorf("%w: sigma = %v must be finite and > 0", ErrSigma, s)
	}
	if k.Pseudo || ValidSigma(s, d) {
		return nil
	}
	return fmt.Errorf("%w: sigma = %v does not give a positive definite kernel on %d×%d matrices (Theorem 1): use sigma in %s, or allow a pseudo-kernel",
		ErrSigma, s, d, d, ValidSigmas(d))
}

// ValidSigma reports whether σ is in the set of Theorem 1 for d×d matrices:
// σ ∈ {1/2, 2/2, ..., (d−1)/2} ∪ (½(d−1), ∞). Half-integers are matched to
// within 1e-12.
func ValidSigma(sigma float64, d int) bool {
	if !(sigma > 0) || math.IsInf(sigma, 0) || d < 1 {
		return false
	}
	if sigma > 0.5*float64(d-1) {
		return true
	}
	twice := 2 * sigma
	return math.Abs(twice-math.Round(twice)) <= 1e-12
}

// DefaultSigma is the Stein kernel's σ for d×d matrices when none is
// given: the least σ of Theorem 1's continuous range, (d−1)/2, or 0.5 (the
// least of its discrete set) for d <= 2. Every σ of that range gives a
// positive definite kernel; the least keeps exp(−σ S) furthest from 0.
func DefaultSigma(d int) float64 { return max(0.5, float64(d-1)/2) }

// ValidSigmas describes the set of Theorem 1 for d×d matrices, for error
// messages, e.g. "{0.5, 1} or sigma > 1" for d = 3.
func ValidSigmas(d int) string {
	if d <= 1 {
		return "sigma > 0"
	}
	top := 0.5 * float64(d-1)
	var b strings.Builder
	b.WriteString("{")
	for i := 1; i <= d-1; i++ {
		if d-1 > 6 && i == 4 {
			b.WriteString(", ...")
			i = d - 1
		}
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(0.5*float64(i), 'g', -1, 64))
	}
	b.WriteString("} or sigma > ")
	b.WriteString(strconv.FormatFloat(top, 'g', -1, 64))
	return b.String()
}

// Eval returns k(X, Y) = exp(−σ S(X, Y)). It returns an error wrapping
// ErrSigma for an invalid σ (see Check) and the errors of Stein for bad
// matrices.
func (k SteinKernel) Eval(x, y mat.Symmetric) (float64, error) {
	s, err := checkedQuantity(k.Check, Stein, x, y)
	if err != nil {
		return 0, err
	}
	return math.Exp(-k.Sigma * s), nil
}
