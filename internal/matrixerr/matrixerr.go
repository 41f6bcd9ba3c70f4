// Package matrixerr holds the sentinel errors for matrices that are not
// finite or not positive definite, shared by the packages that find such
// matrices at different stages: covariance, which makes descriptors, and
// spd, which computes with them. Each exports them under its own names
// (covariance.ErrNotSPD and spd.ErrNotSPD are the one value), so that a
// lower stage need not import a higher one to return them.
package matrixerr

import "errors"

var (
	// NotFinite: a matrix holding NaN or ±Inf, or a computation that
	// would overflow.
	NotFinite = errors.New("spd: matrix has a non-finite entry")
	// NotSPD: a symmetric matrix that is not positive definite (enough).
	NotSPD = errors.New("spd: matrix is not positive definite")
)
