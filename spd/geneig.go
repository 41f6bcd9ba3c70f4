package spd

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The generalised eigenvalues λ_i(X⁻¹Y) of two SPD matrices, behind the
// AIRM and Thompson metrics and AIRM k-means: the fast route of plain
// loops (fastEigen) where it applies, the LAPACK route otherwise.

// genEigen puts into w.vals the eigenvalues of X^{−1/2} Y X^{−1/2}, which
// are those of X⁻¹Y (up to the factor e^w.logShift): see whitenedEigen.
func (w *Workspace) genEigen(x, y mat.Symmetric) error {
	if err := w.check("X", x); err != nil {
		return err
	}
	if err := w.check("Y", y); err != nil {
		return err
	}
	// Validate Y first, keeping its factor M (Y = MMᵀ) in w.b's lower
	// triangle for fastEigen (dense.CholLower, without dense.CholLogDet's
	// copy into the upper triangle, up to dense.PlainMaxD, beyond which
	// fastEigen is not used).
	loadUpperTo(w.b, w.d, y)
	var ok bool
	if w.d <= dense.PlainMaxD {
		_, ok = dense.CholLower(w.b, w.b, nil, w.d)
	} else {
		_, ok = dense.CholLogDet(w.b, w.d)
	}
	if !ok {
		if !finite(y) {
			return fmt.Errorf("Y: %w", ErrNotFinite)
		}
		return fmt.Errorf("Y: %w: %s", ErrNotSPD, notSPDEnough(w.d))
	}
	if _, err := w.logDet("X", x); err != nil {
		return err
	}
	// w.a now holds X's factor as dense.CholLogDet leaves it.
	if w.fastEigen(w.a, y, true) {
		return nil
	}
	return w.whitenedEigen(w.a, y)
}

// whitenedEigen puts into w.vals the eigenvalues of U⁻ᵀ Y U⁻¹ for the
// Cholesky factor u (row-major d×d, as dense.CholLogDet leaves it) of
// X = UᵀU: those of X⁻¹Y, divided by e^w.logShift. It returns an error
// when they do not converge, overflow or are not all positive.
//
// It takes fastEigen's route when it can. Otherwise it diagonalises the
// congruence U⁻ᵀ Y U⁻¹ (whiten); when X⁻¹Y overflows or underflows there
// (X and Y at far apart scales, such as 1e-300·I and 1e300·I), it retries
// with X and Y scaled exactly by powers of two to a largest entry of about
// 1, and w.logShift the log of the factor.
func (w *Workspace) whitenedEigen(u []float64, y mat.Symmetric) error {
	if w.fastEigen(u, y, false) {
		return nil
	}
	w.logShift = 0
	err := w.whiten(u, y, 0, 0)
	if err == nil {
		return nil
	}
	d := w.d
	eu, ey := math.MinInt, math.MinInt // binary exponents of the largest entries
	for i := range d {
		for j := i; j < d; j++ {
			if v := u[i*d+j]; v != 0 {
				_, e := math.Frexp(v)
				eu = max(eu, e)
			}
			if v := y.At(i, j); v != 0 {
				_, e := math.Frexp(v)
				ey = max(ey, e)
			}
		}
	}
	if eu == math.MinInt || ey == math.MinInt || (eu == 0 && ey == 0) {
		return err
	}
	if err := w.whiten(u, y, eu, ey); err != nil {
		return err
	}
	// X = 2^(2eu)·X', Y = 2^ey·Y', so λ(X⁻¹Y) = 2^(ey−2eu)·λ(X'⁻¹Y').
	w.logShift = float64(ey-2*eu) * math.Ln2
	return nil
}

// whiten puts into w.vals the eigenvalues of U'⁻ᵀ Y' U'⁻¹ for
// U' = 2^−eu·U and Y' = 2^−ey·Y (w.c holds U' when eu != 0).
func (w *Workspace) whiten(u []float64, y mat.Symmetric, eu, ey int) error {
	d := w.d
	loadFull(w.b, d, y)
	if ey != 0 {
		for i, v := range w.b {
			w.b[i] = math.Ldexp(v, -ey)
		}
	}
	if eu != 0 {
		for i, v := range u {
			w.c[i] = math.Ldexp(v, -eu)
		}
		u = w.c
	}
	t := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: u}
	b := blas64.General{Rows: d, Cols: d, Stride: d, Data: w.b}
	blas64.Trsm(blas.Left, blas.Trans, 1, t, b)
	blas64.Trsm(blas.Right, blas.NoTrans, 1, t, b)
	for i := range d {
		for j := i; j < d; j++ {
			v := 0.5 * (w.b[i*d+j] + w.b[j*d+i])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: the generalised eigenvalues of X and Y overflow", ErrNotFinite)
			}
			w.b[i*d+j] = v
		}
	}
	if !lapack64.Syev(lapack.EVNone, blas64.Symmetric{N: d, Stride: d, Data: w.b, Uplo: blas.Upper}, w.vals, w.work, len(w.work)) {
		return fmt.Errorf("%w: generalised eigenvalues did not converge", ErrNotFinite)
	}
	if !(w.vals[0] > 0) {
		// Forming U⁻ᵀYU⁻¹ loses its small eigenvalues to round-off of
		// order ε·cond(X), which an SPD-enough X with badly scaled rows
		// exceeds (AIRM(X, X) then finds negative ones). The singular
		// values of V U⁻¹, Y = VᵀV, give them as squares, which cannot be
		// negative, with errors of order ε·√cond instead.
		if w.whitenSVD(u, y, ey) {
			return nil
		}
		return fmt.Errorf("Y: %w: generalised eigenvalue %g <= 0", ErrNotSPD, w.vals[0])
	}
	return nil
}

// whitenSVD puts into w.vals, ascending, the squared singular values of
// V U⁻¹ for the upper Cholesky factors U = u of X and V of
// Y' = 2^−ey·Y: the eigenvalues of U⁻ᵀY'U⁻¹. It reports false when Y' is
// not SPD enough or a value is not positive.
func (w *Workspace) whitenSVD(u []float64, y mat.Symmetric, ey int) bool {
	d := w.d
	loadFull(w.b, d, y)
	if ey != 0 {
		for i, v := range w.b {
			w.b[i] = math.Ldexp(v, -ey)
		}
	}
	if _, ok := dense.CholLogDet(w.b, d); !ok {
		return false
	}
	for i := range d {
		for j := range i {
			w.b[i*d+j] = 0
		}
	}
	t := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: u}
	b := blas64.General{Rows: d, Cols: d, Stride: d, Data: w.b}
	blas64.Trsm(blas.Right, blas.NoTrans, 1, t, b)
	none := blas64.General{Stride: 1}
	if len(w.svdWork) == 0 {
		var q [1]float64
		lapack64.Gesvd(lapack.SVDNone, lapack.SVDNone, b, none, none, w.fv, q[:], -1)
		w.svdWork = make([]float64, int(q[0]))
	}
	if !lapack64.Gesvd(lapack.SVDNone, lapack.SVDNone, b, none, none, w.fv, w.svdWork, len(w.svdWork)) {
		return false
	}
	for i, s := range w.fv { // descending
		w.vals[d-1-i] = s * s
	}
	return w.vals[0] > 0 && !math.IsInf(w.vals[d-1], 1)
}

// genLog returns log λ for an eigenvalue l of w.vals left by
// whitenedEigen.
func (w *Workspace) genLog(l float64) float64 { return math.Log(l) + w.logShift }

// sumLog2 returns sqrt(Σ log² λ) over the generalised eigenvalues.
func (w *Workspace) sumLog2() float64 {
	var s float64
	for _, l := range w.vals {
		v := w.genLog(l)
		s += v * v
	}
	return math.Sqrt(s)
}

// fastEigen puts into w.vals the generalised eigenvalues of X and Y, up
// to the factor e^w.logShift, in plain loops without the per-call
// overhead of the BLAS and LAPACK routines of whiten, which dominates at
// the package's sizes: with X = LLᵀ and Y = MMᵀ,
//
//	U⁻ᵀ Y U⁻¹ = L⁻¹ M Mᵀ L⁻ᵀ = Z Zᵀ,  Z = L⁻¹ M (lower triangular),
//
// whose eigenvalues are those of G = ZᵀZ. Z takes a triangular solve with
// a triangular right-hand side (dense.SolveLowerT, d³/3 flops, against
// 2d³ for whiten's two full solves), G as much again for its triangle
// (dense.GramUpperT), and G, scaled by a power of two to a largest entry
// near 1, is reduced to tridiagonal form (dense.Tridiagonalize, 4d³/3)
// whose eigenvalues dense.TridiagEigen finds. The Gram
// form also keeps G positive semi-definite where the congruence U⁻ᵀYU⁻¹
// may lose it to round-off.
//
// u holds X's factor as dense.CholLogDet leaves it for d <=
// dense.PlainMaxD: L = Uᵀ in its lower triangle. When haveM is set, w.b's
// lower triangle already holds M; otherwise Y is loaded and factorised
// here. fastEigen reports false, and the caller takes the general route,
// when Y is not SPD enough, a value overflows, the iteration does not
// converge or an eigenvalue is not positive: the cases that route handles
// and reports.
func (w *Workspace) fastEigen(u []float64, y mat.Symmetric, haveM bool) bool {
	d := w.d
	if d > dense.PlainMaxD {
		return false
	}
	if !haveM {
		loadUpperTo(w.b, d, y)
		if _, ok := dense.CholLower(w.b, w.b, nil, d); !ok {
			return false
		}
	}
	s, ok := whitenedGram(w.b, u, w.b, w.c, w.work[:d], d)
	if !ok {
		return false
	}
	diag, off := w.vals, w.fv
	dense.Tridiagonalize(w.b, d, diag, off, w.work[:d], w.work[d:2*d])
	return w.tridiagEigen(diag, off, s)
}

// whitenedGram puts into g (row-major d×d, upper triangle) the Gram
// matrix G' = Z'ᵀZ' of fastEigen for X's factor in u (L = Uᵀ in its lower
// triangle) and Y's factor M in m's lower triangle: Z = L⁻¹M, scaled to
// Z' = 2^−s·Z, exactly, so that G's entries are at most d: no overflow in
// G or in the Householder norms, and λ = 2^2s·λ(G'). z is scratch of
// d×d apart from m (g may be m), work of d. It reports false when an
// entry of Z is not finite or s is out of range.
func whitenedGram(g, u, m, z, work []float64, d int) (s int, ok bool) {
	dense.SolveLowerT(z, u, m, work, d)
	// Z's largest entry, over Zᵀ's upper triangle (the rest is zero); the
	// scan also rejects entries that are not finite.
	zmax, ok := dense.MaxAbsUpper(z, d)
	if !ok {
		return 0, false
	}
	_, s = math.Frexp(zmax) // zmax in [2^(s−1), 2^s)
	if s < -1000 || s > 1000 {
		return 0, false
	}
	if s != 0 {
		dense.ScaleUpper(z, d, math.Ldexp(1, -s))
	}
	dense.GramUpperT(g, z, d)
	return s, true
}

// tridiagEigen finishes fastEigen from G's tridiagonal form diag, off
// (diag is w.vals) and the scaling exponent s of
// whitenedGram: the eigenvalues into w.vals, w.logShift set; false when
// the iteration does not converge or an eigenvalue is not positive or
// overflows.
func (w *Workspace) tridiagEigen(diag, off []float64, s int) bool {
	return dense.TridiagEigen(diag, off[:w.d-1], w.work[w.d:]) && w.positiveEigen(s)
}

// positiveEigen finishes fastEigen from the eigenvalues in w.vals of G
// scaled by 2^−2s: it sets w.logShift, or reports false when an
// eigenvalue is not positive or overflows.
func (w *Workspace) positiveEigen(s int) bool {
	if !(w.vals[0] > 0) || math.IsInf(w.vals[w.d-1], 1) {
		return false
	}
	w.logShift = float64(2*s) * math.Ln2
	return true
}
