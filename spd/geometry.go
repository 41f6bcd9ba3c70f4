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
	// triangle for fastEigen (cholLower, without cholLogDet's copy into the
	// upper triangle, up to plainMaxD, beyond which fastEigen is not used).
	loadUpperTo(w.b, w.d, y)
	var ok bool
	if w.d <= plainMaxD {
		_, ok = cholLower(w.b, w.b, nil, w.d)
	} else {
		_, ok = cholLogDet(w.b, w.d)
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
	// w.a now holds X's factor as cholLogDet leaves it.
	if w.fastEigen(w.a, y, true) {
		return nil
	}
	return w.whitenedEigen(w.a, y)
}

// whitenedEigen puts into w.vals the eigenvalues of U⁻ᵀ Y U⁻¹ for the
// Cholesky factor u (row-major d×d, as cholLogDet leaves it) of X = UᵀU:
// those of X⁻¹Y, divided by e^w.logShift. It returns an error when they do
// not converge, overflow or are not all positive.
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
	if _, ok := cholLogDet(w.b, d); !ok {
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

// AIRM returns the geodesic distance of the affine-invariant Riemannian
// metric (Pennec et al. 2006; the paper's Section 2.1):
//
//	d_g(X, Y) = ‖log(X^{−1/2} Y X^{−1/2})‖_F = sqrt(Σ_i log² λ_i(X⁻¹Y)).
//
// It is invariant to congruence, d_g(AXAᵀ, AYAᵀ) = d_g(X, Y), and to
// inversion. It returns an error wrapping ErrNotSPD, ErrNotFinite or
// ErrDimension for bad input.
func (w *Workspace) AIRM(x, y mat.Symmetric) (float64, error) {
	if err := w.genEigen(x, y); err != nil {
		return 0, err
	}
	return w.sumLog2(), nil
}

// Thompson returns the Thompson metric of Property 1 (Thompson 1963):
//
//	δ_T(X, Y) = max_i |log λ_i(X Y⁻¹)|,
//
// the largest absolute log generalised eigenvalue. It returns the errors of
// AIRM.
func (w *Workspace) Thompson(x, y mat.Symmetric) (float64, error) {
	if err := w.genEigen(x, y); err != nil {
		return 0, err
	}
	return math.Max(math.Abs(w.genLog(w.vals[0])), math.Abs(w.genLog(w.vals[w.d-1]))), nil
}

// AIRM returns the affine-invariant Riemannian distance; see Workspace.AIRM.
func AIRM(x, y mat.Symmetric) (float64, error) {
	w, err := pairWorkspace(x, y)
	if err != nil {
		return 0, err
	}
	return w.AIRM(x, y)
}

// Thompson returns the Thompson metric; see Workspace.Thompson.
func Thompson(x, y mat.Symmetric) (float64, error) {
	w, err := pairWorkspace(x, y)
	if err != nil {
		return 0, err
	}
	return w.Thompson(x, y)
}

func pairWorkspace(x, y mat.Symmetric) (*Workspace, error) {
	dx, err := sizeOf("X", x)
	if err != nil {
		return nil, err
	}
	dy, err := sizeOf("Y", y)
	if err != nil {
		return nil, err
	}
	if dx != dy {
		return nil, fmt.Errorf("%w: X is %d×%d, Y is %d×%d", ErrDimension, dx, dx, dy, dy)
	}
	return NewWorkspace(dx), nil
}

// VecLen returns the length d(d+1)/2 of the vectorisation of a d×d
// symmetric matrix, and 0 for a d outside [1, 46340], the sizes of the
// package's matrices.
func VecLen(d int) int {
	if d < 1 || d > maxSetDim {
		return 0
	}
	return d * (d + 1) / 2
}

// VecTo writes the isometric half-vectorisation of the symmetric matrix X
// into dst: the upper triangle row by row, diagonal entries as they are and
// off-diagonal entries times √2, so that ‖vec(X) − vec(Y)‖₂ = ‖X − Y‖_F.
// dst must have length VecLen(d). X need not be positive definite, but
// its entries must be finite. Only the upper triangle of X is read.
func VecTo(dst []float64, x mat.Symmetric) error {
	d, err := sizeOf("X", x)
	if err != nil {
		return err
	}
	if !finite(x) {
		return fmt.Errorf("X: %w", ErrNotFinite)
	}
	if len(dst) != VecLen(d) {
		return fmt.Errorf("%w: destination length %d, want %d for %d×%d", ErrDimension, len(dst), VecLen(d), d, d)
	}
	k := 0
	for i := range d {
		dst[k] = x.At(i, i)
		k++
		for j := i + 1; j < d; j++ {
			dst[k] = math.Sqrt2 * x.At(i, j)
			k++
		}
	}
	return nil
}

// LogVecTo writes vec(log X) into dst (see VecTo): the log-Euclidean
// embedding of Arsigny et al. (2007), in which the Euclidean distance equals
// the log-Euclidean distance. dst must have length VecLen(d); tmp, if not
// nil, is a d×d scratch matrix reused between calls.
func (w *Workspace) LogVecTo(dst []float64, x mat.Symmetric, tmp *mat.SymDense) error {
	if err := w.ready(); err != nil {
		return err
	}
	if len(dst) != VecLen(w.d) {
		return fmt.Errorf("%w: destination length %d, want %d for %d×%d", ErrDimension, len(dst), VecLen(w.d), w.d, w.d)
	}
	if tmp == nil {
		tmp = mat.NewSymDense(w.d, nil)
	}
	if err := w.LogTo(tmp, x); err != nil {
		return err
	}
	return VecTo(dst, tmp)
}

// LogEuclidean returns the log-Euclidean distance (Arsigny et al. 2007)
//
//	d_LE(X, Y) = ‖log X − log Y‖_F,
//
// the Euclidean distance between the embeddings of LogVecTo. As in LogTo,
// eigenvalues below λ_max·d·ε are round-off and are clamped up to that
// floor rather than refused. It returns an error wrapping ErrNotSPD for an
// indefinite matrix, ErrNotFinite for NaN or Inf entries and ErrDimension
// for a size other than the workspace's.
func (w *Workspace) LogEuclidean(x, y mat.Symmetric) (float64, error) {
	if err := w.check("X", x); err != nil {
		return 0, err
	}
	if err := w.check("Y", y); err != nil {
		return 0, err
	}
	if err := w.eigen("X", x, fnLog, 0); err != nil {
		return 0, err
	}
	w.outer(0) // w.c = log X
	if err := w.eigen("Y", y, fnLog, 0); err != nil {
		return 0, err
	}
	w.outer(-1) // w.c = log Y − log X
	d := w.d
	var s float64
	for i := range d {
		v := w.c[i*d+i]
		s += v * v
		for j := i + 1; j < d; j++ {
			v := 0.5 * (w.c[i*d+j] + w.c[j*d+i])
			s += 2 * v * v
		}
	}
	return math.Sqrt(s), nil
}

// LogEuclidean returns the log-Euclidean distance; see
// Workspace.LogEuclidean.
func LogEuclidean(x, y mat.Symmetric) (float64, error) {
	w, err := pairWorkspace(x, y)
	if err != nil {
		return 0, err
	}
	return w.LogEuclidean(x, y)
}

// sqrtPair returns P^{1/2} and P^{−1/2} from one eigendecomposition.
func sqrtPair(w *Workspace, name string, p mat.Symmetric) (s, si *mat.SymDense, err error) {
	s = mat.NewSymDense(w.d, nil)
	if err := w.apply(name, s, p, fnSqrt, 0); err != nil {
		return nil, nil, err
	}
	// The eigenvectors are still in w.a and w.vals is clamped: reuse them.
	for i, l := range w.vals {
		w.fv[i] = w.f(fnInvSqrt, l, 0)
	}
	si = mat.NewSymDense(w.d, nil)
	w.rebuild(si)
	return s, si, nil
}

// congruence returns A X A for symmetric A and X, symmetrised.
func congruence(a, x mat.Symmetric) *mat.SymDense {
	var t, u mat.Dense
	t.Mul(a, x)
	u.Mul(&t, a)
	return symPart(&u)
}

// symPart returns (A + Aᵀ)/2 for a square matrix A, and a copy of the
// upper triangle of a mat.Symmetric.
func symPart(a mat.Matrix) *mat.SymDense {
	n, _ := a.Dims()
	_, sym := a.(mat.Symmetric)
	out := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			out.SetSym(i, j, symEntry(a, sym, i, j))
		}
	}
	return out
}

// atBase returns P^{1/2} f(P^{−1/2} V P^{−1/2}) P^{1/2}, the common form of
// ExpMap, LogMap and Geodesic, with f = fn (power t for fnPow). pname and
// inner name P and the inner matrix in errors.
func atBase(w *Workspace, pname string, p mat.Symmetric, inner string, v mat.Symmetric, fn eigenFunc, t float64) (*mat.SymDense, error) {
	s, si, err := sqrtPair(w, pname, p)
	if err != nil {
		return nil, err
	}
	m := mat.NewSymDense(w.d, nil)
	if err := w.apply(inner, m, congruence(si, v), fn, t); err != nil {
		return nil, err
	}
	return congruence(s, m), nil
}

// ExpMap returns the Riemannian exponential map of the AIRM at the base
// point P applied to the tangent vector (symmetric matrix) V (Pennec et al.
// 2006; the paper's Section 2.1):
//
//	Exp_P(V) = P^{1/2} exp(P^{−1/2} V P^{−1/2}) P^{1/2}.
//
// It returns an error wrapping ErrNotSPD (or ErrNotFinite, ErrEmpty) for a
// bad P, ErrNotFinite for a V with NaN or Inf entries or an exp that
// overflows, ErrDimension for mismatched sizes.
func ExpMap(p, v mat.Symmetric) (*mat.SymDense, error) {
	w, err := basePoint(p, v)
	if err != nil {
		return nil, err
	}
	return atBase(w, "P", p, "P^{-1/2} V P^{-1/2}", symPart(v), fnExp, 0)
}

// LogMap returns the Riemannian logarithm map of the AIRM at P, the inverse
// of ExpMap:
//
//	Log_P(X) = P^{1/2} log(P^{−1/2} X P^{−1/2}) P^{1/2}.
//
// It returns an error wrapping ErrNotSPD, ErrNotFinite or ErrDimension.
func LogMap(p, x mat.Symmetric) (*mat.SymDense, error) {
	w, err := basePoint(p, x)
	if err != nil {
		return nil, err
	}
	if err := checkSPD("X", x); err != nil {
		return nil, err
	}
	return atBase(w, "P", p, "P^{-1/2} X P^{-1/2}", symPart(x), fnLog, 0)
}

// Geodesic returns the point γ(t) of the AIRM geodesic from X (t = 0) to Y
// (t = 1) of Property 2 (Bhatia 2007):
//
//	γ(t) = X^{1/2} (X^{−1/2} Y X^{−1/2})^t X^{1/2},
//
// on which d_g(X, γ(t)) = t·d_g(X, Y) for t in [0, 1]. Any finite t
// extrapolates along the geodesic. It returns an error wrapping ErrNotSPD,
// ErrNotFinite, ErrDimension or ErrParameter (t not finite).
func Geodesic(x, y mat.Symmetric, t float64) (*mat.SymDense, error) {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return nil, fmt.Errorf("%w: t = %v", ErrParameter, t)
	}
	w, err := basePoint(x, y)
	if err != nil {
		return nil, err
	}
	if err := checkSPD("Y", y); err != nil {
		return nil, err
	}
	return atBase(w, "X", x, "X^{-1/2} Y X^{-1/2}", symPart(y), fnPow, t)
}

// basePoint validates the base point p and the symmetric finite matrix v of
// the same size, and returns a workspace for them.
func basePoint(p, v mat.Symmetric) (*Workspace, error) {
	if err := checkSPD("P", p); err != nil {
		return nil, err
	}
	dv, err := sizeOf("V", v)
	if err != nil {
		return nil, err
	}
	if !finite(v) {
		return nil, fmt.Errorf("V: %w", ErrNotFinite)
	}
	d, _ := p.Dims()
	if dv != d {
		return nil, fmt.Errorf("%w: P is %d×%d, argument is %d×%d", ErrDimension, d, d, dv, dv)
	}
	return NewWorkspace(d), nil
}
