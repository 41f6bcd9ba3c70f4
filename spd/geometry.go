package spd

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

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
// an eigenvalue the solver returns <= 0 for an SPD-enough matrix is
// round-off and is replaced by λ_max·d·ε rather than refused. It returns an error wrapping ErrNotSPD for an
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

// Wasserstein returns the Bures–Wasserstein distance (Bhatia, Jain and
// Lim, "On the Bures–Wasserstein distance between positive definite
// matrices", Expo. Math. 2019), the Wasserstein-2 distance between the
// centred Gaussians N(0, X) and N(0, Y):
//
//	d_BW(X, Y) = (tr X + tr Y − 2 tr (X^{1/2} Y X^{1/2})^{1/2})^{1/2},
//
// tr (X^{1/2} Y X^{1/2})^{1/2} = Σ_i λ_i^{1/2} for the eigenvalues λ_i of
// XY, here those of U X Uᵀ with the Cholesky factor Y = UᵀU, by
// dense.Tridiagonalize and dense.TridiagEigen, without vectors. It is a
// metric, invariant to orthogonal similarity, and d_BW(cX, cY) =
// √c·d_BW(X, Y). The difference of traces cancels where X and Y are
// close: d_BW(X, X) is of the order of (ε d tr X)^{1/2}, not 0 (a
// negative d_BW² from round-off is returned as 0). It returns the errors
// of AIRM.
func (w *Workspace) Wasserstein(x, y mat.Symmetric) (float64, error) {
	if _, err := w.logDet("X", x); err != nil {
		return 0, err
	}
	if _, err := w.logDet("Y", y); err != nil {
		return 0, err
	}
	// w.a holds U in its upper triangle.
	d := w.d
	var tr float64
	for i := range d {
		tr += x.At(i, i) + y.At(i, i)
	}
	loadFull(w.c, d, x)
	triCongruence(w.c, w.a, d, blas.Upper, false, false)
	var big float64
	for _, v := range w.c {
		big = math.Max(big, math.Abs(v))
	}
	if !(big <= math.MaxFloat64) {
		return 0, fmt.Errorf("%w: U X Uᵀ overflows", ErrNotFinite)
	}
	s := 0
	if big > 0 {
		_, s = math.Frexp(big)
		for i := range d {
			row := w.c[i*d+i : i*d+d]
			for j := range row {
				row[j] = math.Ldexp(row[j], -s)
			}
		}
	}
	dense.Tridiagonalize(w.c, d, w.vals, w.fv, w.work[:d], w.work[d:2*d])
	if d > 1 && !dense.TridiagEigen(w.vals, w.fv[:d-1], w.work[d:3*d]) {
		return 0, fmt.Errorf("%w: eigenvalues did not converge", ErrNotFinite)
	}
	// λ = 2^s·l: √λ = 2^{s/2}·√l, s made even first.
	f := 1.0
	if s%2 != 0 {
		f, s = 2, s-1
	}
	var root float64
	for _, l := range w.vals {
		if l > 0 {
			root += math.Sqrt(f * l)
		}
	}
	root = math.Ldexp(root, s/2)
	return math.Sqrt(math.Max(0, tr-2*root)), nil
}

// Wasserstein returns the Bures–Wasserstein distance; see
// Workspace.Wasserstein.
func Wasserstein(x, y mat.Symmetric) (float64, error) {
	w, err := pairWorkspace(x, y)
	if err != nil {
		return 0, err
	}
	return w.Wasserstein(x, y)
}

// Euclid returns the Euclidean distance; see Workspace.Euclid.
func Euclid(x, y mat.Symmetric) (float64, error) {
	w, err := pairWorkspace(x, y)
	if err != nil {
		return 0, err
	}
	return w.Euclid(x, y)
}

// Euclid returns the Euclidean (Frobenius) distance ‖X − Y‖_F of SPD
// matrices, invariant to orthogonal similarity, d(cX, cY) = c·d(X, Y). It
// refuses the matrices the other metrics do (see Distance) and returns
// the errors of AIRM.
func (w *Workspace) Euclid(x, y mat.Symmetric) (float64, error) {
	if _, err := w.logDet("X", x); err != nil {
		return 0, err
	}
	if _, err := w.logDet("Y", y); err != nil {
		return 0, err
	}
	d := w.d
	var s float64
	for i := range d {
		v := x.At(i, i) - y.At(i, i)
		s += v * v
		for j := i + 1; j < d; j++ {
			v := x.At(i, j) - y.At(i, j)
			s += 2 * v * v
		}
	}
	return math.Sqrt(s), nil
}
