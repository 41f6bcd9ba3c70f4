package spd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CheckSigma returns an error wrapping ErrParameter unless σ is finite and
// positive: the condition on the parameter of every kernel
// k(X, Y) = exp(−σ q(X, Y)) on SPD matrices, whatever their size, so
// that a configuration can be checked before the size is known.
// SteinKernel.Check adds the condition of Theorem 1 on d×d matrices.
func CheckSigma(sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("%w: sigma = %v must be finite and > 0", ErrParameter, sigma)
	}
	return nil
}

// LogEuclideanKernel is the log-Euclidean Gaussian kernel
//
//	k(X, Y) = exp(−σ ‖log X − log Y‖²_F) = exp(−σ d_LE²(X, Y)),
//
// a Gaussian kernel on the log-vectors of the matrices (Li, Wang, Zuo and
// Zhang, ICCV 2013; Jayasumana et al., CVPR 2013): positive definite on
// d×d SPD matrices for every σ > 0 and every d, unlike the Stein kernel
// (Theorem 1).
type LogEuclideanKernel struct {
	// Sigma is the kernel parameter σ > 0.
	Sigma float64
}

// Check reports whether the kernel is valid on d×d matrices: σ finite and
// positive (CheckSigma) and d >= 1. The error wraps ErrParameter or
// ErrDimension.
func (k LogEuclideanKernel) Check(d int) error {
	if d < 1 {
		return fmt.Errorf("%w: matrix size %d", ErrDimension, d)
	}
	return CheckSigma(k.Sigma)
}

// Eval returns k(X, Y) = exp(−σ d_LE²(X, Y)). It returns an error wrapping
// ErrParameter for an invalid σ (see Check) and the errors of
// LogEuclidean for bad matrices.
func (k LogEuclideanKernel) Eval(x, y mat.Symmetric) (float64, error) {
	dist, err := checkedQuantity(k.Check, LogEuclidean, x, y)
	if err != nil {
		return 0, err
	}
	return math.Exp(-k.Sigma * dist * dist), nil
}

// checkedQuantity returns q(X, Y), the quantity of a kernel's exponent,
// once check (the kernel's Check) has accepted the kernel on X's size:
// a kernel's Eval but for the exponential.
func checkedQuantity(check func(d int) error, q func(x, y mat.Symmetric) (float64, error), x, y mat.Symmetric) (float64, error) {
	d, err := sizeOf("X", x)
	if err != nil {
		return 0, err
	}
	if err := check(d); err != nil {
		return 0, err
	}
	return q(x, y)
}
