package spd

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// SteinMeanOptions configure SteinMean. The zero value is usable.
type SteinMeanOptions struct {
	// Tol stops the iteration when the fixed-point residual
	// ‖X^{1/2} G(X) X^{1/2} − I‖_F (see SteinMean) falls below it.
	// Default 1e-10.
	Tol float64
	// MaxIter caps the number of fixed-point updates. Default 200.
	MaxIter int
}

// SteinMeanInfo reports how a Stein mean iteration ended.
type SteinMeanInfo struct {
	Iterations int     // fixed-point updates performed
	Residual   float64 // final ‖X^{1/2} G(X) X^{1/2} − I‖_F
	Converged  bool    // Residual < Tol
}

// SteinMean returns the Stein mean (the Jensen–Bregman LogDet mean, Sra's
// S-mean) of the matrices of set at the indices idx (nil: all of them),
// the minimiser of the summed Stein divergences of Eqn. 3,
//
//	X* = argmin_X Σ_i S(X, X_i)
//
// (Cherian, Sra, Banerjee and Papanikolopoulos, "Jensen-Bregman LogDet
// Divergence with Application to Efficient Similarity Search for Covariance
// Matrices", IEEE PAMI 2013; Sra 2012). Setting the gradient
// ½ Σ_i ((X+X_i)/2)^{−1} − (n/2) X^{−1} to zero gives the fixed-point
// iteration of Cherian et al.,
//
//	X ← G(X)^{−1},  G(X) = (1/n) Σ_i ((X+X_i)/2)^{−1},
//
// which never increases Σ_i S(X, X_i). It is run from the arithmetic mean
// and accelerated (an extrapolation along the AIRM geodesic and Anderson
// mixing of past updates), falling back to the plain update whenever an
// accelerated one would not lower Σ_i S; widely spread matrices then take
// tens of updates rather than hundreds. It stops when the residual
// ‖X^{1/2} G(X) X^{1/2} − I‖_F, which is zero exactly at the mean, is
// twice the Riemannian (AIRM) gradient norm of (1/n) Σ_i S(·, X_i) and is
// invariant to congruence, falls below opts.Tol; where Σ_i S is flat (very
// spread matrices) the error of the mean is larger than the residual. The
// mean of two matrices is their geometric mean, the AIRM
// geodesic midpoint γ(½) of Property 2; for commuting matrices each
// eigenvalue x solves Σ_i x/(x+x_i) = n/2. The mean is equivariant to
// congruence, as S is invariant to it. Repeated indices weigh a matrix
// more.
//
// It returns an error wrapping ErrEmpty for a nil or empty set or an empty
// (non-nil) idx, ErrParameter for an index out of range or invalid
// options, and ErrNotSPD when a factorisation fails; the last iterate
// with an error wrapping ErrNoConvergence when MaxIter is reached; and an
// error wrapping ctx.Err() between iterations once ctx is cancelled.
func SteinMean(ctx context.Context, set *Set, idx []int, opts *SteinMeanOptions) (*mat.SymDense, SteinMeanInfo, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, SteinMeanInfo{}, err
	}
	var o SteinMeanOptions
	if opts != nil {
		o = *opts
	}
	tol, maxIter, err := o.resolve()
	if err != nil {
		return nil, SteinMeanInfo{}, fmt.Errorf("Stein mean: %w", err)
	}
	if set == nil || set.n == 0 {
		return nil, SteinMeanInfo{}, fmt.Errorf("Stein mean: %w: no matrices", ErrEmpty)
	}
	if idx == nil {
		idx = make([]int, set.n)
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 {
		return nil, SteinMeanInfo{}, fmt.Errorf("Stein mean: %w: no indices", ErrEmpty)
	}
	for k, i := range idx {
		if i < 0 || i >= set.n {
			return nil, SteinMeanInfo{}, fmt.Errorf("Stein mean: %w: index %d (position %d) out of range [0, %d)", ErrParameter, i, k, set.n)
		}
	}
	s := newSteinMeanWork(set.d)
	info, err := s.mean(ctx, set, idx, tol, maxIter)
	if err != nil && !errors.Is(err, ErrNoConvergence) {
		return nil, info, fmt.Errorf("Stein mean: %w", err)
	}
	m := mat.NewSymDense(set.d, nil)
	for i := range set.d {
		for j := i; j < set.d; j++ {
			m.SetSym(i, j, s.x[i*set.d+j])
		}
	}
	if err != nil {
		return m, info, fmt.Errorf("Stein mean: %w", err)
	}
	return m, info, nil
}

func (o SteinMeanOptions) resolve() (tol float64, maxIter int, err error) {
	tol, maxIter = o.Tol, o.MaxIter
	if tol == 0 {
		tol = 1e-10
	}
	if maxIter == 0 {
		maxIter = 200
	}
	if !(tol > 0) || math.IsInf(tol, 0) || maxIter < 0 {
		return 0, 0, fmt.Errorf("%w: tolerance %v and iteration cap %d must be positive", ErrParameter, o.Tol, o.MaxIter)
	}
	return tol, maxIter, nil
}

// andersonDepth is the number of past updates Anderson mixing combines.
const andersonDepth = 5

// steinMeanWork holds the buffers of one Stein mean computation, reused
// across calls (one per worker in KMeans).
type steinMeanWork struct {
	d int
	x []float64 // the iterate X, full row-major
	u []float64 // X = UᵀU, upper triangle
	g []float64 // G(X), full row-major
	p []float64 // the plain update G(X)^{−1} from the last accepted iterate, full
	f []float64 // factorisation scratch (upper triangle)
	t []float64 // product scratch, full

	// Anderson mixing: the last andersonDepth+1 accepted iterates X_j and
	// their residuals R_j = E(X_j) − X_j, in a ring starting at hStart;
	// the consecutive differences; the small least-squares system.
	hx, hr         [andersonDepth + 1][]float64
	hStart, hLen   int
	dx, dr         [andersonDepth][]float64
	gram, rhs, gam []float64
}

func newSteinMeanWork(d int) *steinMeanWork {
	dd := d * d
	const m = andersonDepth
	buf := make([]float64, (6+2*(m+1)+2*m)*dd)
	next := func() []float64 {
		b := buf[:dd:dd]
		buf = buf[dd:]
		return b
	}
	s := &steinMeanWork{d: d, x: next(), u: next(), g: next(), p: next(), f: next(), t: next(),
		gram: make([]float64, m*m), rhs: make([]float64, m), gam: make([]float64, m)}
	for j := range s.hx {
		s.hx[j], s.hr[j] = next(), next()
	}
	for j := range s.dx {
		s.dx[j], s.dr[j] = next(), next()
	}
	return s
}

// invertUpper replaces the upper triangle of the SPD matrix in f by that of
// its inverse, through the Cholesky factorisation.
func invertUpper(f []float64, d int) bool {
	if _, ok := dense.CholLogDet(f, d); !ok {
		return false
	}
	return dense.InverseFromUpper(f, d)
}

// mirrorUpper copies the upper triangle of the row-major d×d matrix a into its
// lower triangle.
func mirrorUpper(a []float64, d int) {
	for r := range d {
		for c := r + 1; c < d; c++ {
			a[c*d+r] = a[r*d+c]
		}
	}
}

// eval computes at the iterate s.x the matrix G(X) (s.g), the Cholesky
// factor of X (s.u), the residual ‖U G Uᵀ − I‖_F and the objective
// (1/n) Σ_i log det((X+X_i)/2) − ½ log det X, which is (1/n) Σ_i S(X, X_i)
// up to a constant.
func (s *steinMeanWork) eval(set *Set, idx []int) (res, obj float64, err error) {
	d := s.d
	dd := d * d
	inv := 1 / float64(len(idx))
	clear(s.g)
	var ldSum float64
	for _, i := range idx {
		xi := set.data[i*dd : (i+1)*dd]
		for r := range d {
			for c := r; c < d; c++ {
				s.f[r*d+c] = 0.5 * (s.x[r*d+c] + xi[r*d+c])
			}
		}
		ld, ok := dense.CholLogDet(s.f, d)
		if !ok {
			return 0, 0, fmt.Errorf("%w: Cholesky factorisation of (X+X_%d)/2 failed", ErrNotSPD, i)
		}
		ldSum += ld
		if !dense.InverseFromUpper(s.f, d) {
			return 0, 0, fmt.Errorf("%w: inverse of (X+X_%d)/2 failed", ErrNotSPD, i)
		}
		for r := range d {
			for c := r; c < d; c++ {
				s.g[r*d+c] += s.f[r*d+c]
			}
		}
	}
	for r := range d {
		for c := r; c < d; c++ {
			s.g[r*d+c] *= inv
		}
	}
	mirrorUpper(s.g, d)
	copy(s.u, s.x)
	ldx, ok := dense.CholLogDet(s.u, d)
	if !ok {
		return 0, 0, fmt.Errorf("%w: Cholesky factorisation of the iterate failed", ErrNotSPD)
	}
	// U G Uᵀ has the eigenvalues of G X, as X^{1/2} G X^{1/2} does.
	copy(s.t, s.g)
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: s.u}
	t := blas64.General{Rows: d, Cols: d, Stride: d, Data: s.t}
	blas64.Trmm(blas.Left, blas.NoTrans, 1, u, t)
	blas64.Trmm(blas.Right, blas.Trans, 1, u, t)
	var r2 float64
	for r := range d {
		for c := range d {
			v := s.t[r*d+c]
			if r == c {
				v--
			}
			r2 += v * v
		}
	}
	res, obj = math.Sqrt(r2), ldSum*inv-0.5*ldx
	if math.IsNaN(res) || math.IsInf(res, 0) || math.IsNaN(obj) || math.IsInf(obj, 0) {
		return 0, 0, fmt.Errorf("%w: residual %v, objective %v", ErrNotFinite, res, obj)
	}
	return res, obj, nil
}

// mean leaves in s.x the Stein mean of the matrices of set at idx (valid,
// non-empty); see SteinMean. When the error wraps ErrNoConvergence, s.x
// holds the last iterate.
//
// The plain update P = G(X)^{−1} is a concave–convex procedure: it never
// increases the objective (Cherian et al. 2013), but it converges only
// linearly, with a factor in [½, 1) that approaches 1 for widely spread
// matrices. Two accelerations, each checked against the objective:
//
//   - E(X) = X #₂ P = P X^{−1} P, the point twice as far along the AIRM
//     geodesic from X through P, contracts by a factor in [0, 1) instead
//     (for commuting matrices the factor ρ of the plain update becomes
//     2ρ − 1; 0 when the matrices coincide);
//   - Anderson mixing (Anderson, J. ACM 1965; Walker and Ni, SIAM J.
//     Numer. Anal. 2011) of the last andersonDepth updates of E: the
//     candidate X + R − Σ_j γ_j (ΔX_j + ΔR_j), with R = E(X) − X and γ
//     minimising ‖R − Σ_j γ_j ΔR_j‖_F.
//
// A candidate that is not positive definite, or raises the objective, is
// replaced by P and the mixing history restarts, so the objective falls
// at every accepted update, as in the plain iteration. On random sets of
// 5×5 matrices the 30 plain updates of tightly grouped sets become 4–5,
// and the over 200 of widely spread ones 15–30.
func (s *steinMeanWork) mean(ctx context.Context, set *Set, idx []int, tol float64, maxIter int) (SteinMeanInfo, error) {
	d := s.d
	dd := d * d
	var info SteinMeanInfo
	inv := 1 / float64(len(idx))
	clear(s.x)
	for _, i := range idx {
		for k, v := range set.data[i*dd : (i+1)*dd] {
			s.x[k] += v
		}
	}
	for k := range s.x {
		s.x[k] *= inv
	}
	s.hStart, s.hLen = 0, 0
	var prevObj float64
	trial := false // s.x is a candidate not accepted yet
	for {
		if err := ctx.Err(); err != nil {
			return info, err
		}
		res, obj, err := s.eval(set, idx)
		if trial && (err != nil || obj > prevObj) {
			copy(s.x, s.p)
			trial = false
			s.hStart, s.hLen = 0, 0
			continue
		}
		if err != nil {
			return info, fmt.Errorf("%w at iteration %d", err, info.Iterations)
		}
		info.Residual = res
		if res < tol {
			info.Converged = true
			return info, nil
		}
		if info.Iterations == maxIter {
			return info, fmt.Errorf("%w after %d iterations (residual %.3g, tolerance %.3g)", ErrNoConvergence, maxIter, res, tol)
		}
		copy(s.f, s.g)
		if !invertUpper(s.f, d) {
			return info, fmt.Errorf("%w: Cholesky factorisation of G(X) failed at iteration %d", ErrNotSPD, info.Iterations)
		}
		copy(s.p, s.f)
		mirrorUpper(s.p, d)
		s.extrapolate()
		prevObj, trial = obj, true
		info.Iterations++
	}
}

// extrapolate replaces s.x, an accepted iterate with its Cholesky factor in
// s.u and plain update in s.p, by the Anderson-mixed candidate built on
// E(X) = P X^{−1} P, and records X and R = E(X) − X in the history.
func (s *steinMeanWork) extrapolate() {
	d := s.d
	// E(X) = B Bᵀ with B = P U^{−1}, into s.f.
	copy(s.t, s.p)
	blas64.Trsm(blas.Right, blas.NoTrans, 1,
		blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: s.u},
		blas64.General{Rows: d, Cols: d, Stride: d, Data: s.t})
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: d, Cols: d, Stride: d, Data: s.t},
		0, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: s.f})
	mirrorUpper(s.f, d)

	const ring = andersonDepth + 1
	if s.hLen == ring {
		s.hStart = (s.hStart + 1) % ring
		s.hLen--
	}
	last := (s.hStart + s.hLen) % ring
	s.hLen++
	hx, hr := s.hx[last], s.hr[last]
	copy(hx, s.x)
	for k, e := range s.f {
		hr[k] = e - s.x[k]
	}
	copy(s.x, s.f)
	m := s.hLen - 1
	if m == 0 {
		return
	}
	for j := range m {
		a, b := (s.hStart+j)%ring, (s.hStart+j+1)%ring
		for k := range s.dx[j] {
			s.dx[j][k] = s.hx[b][k] - s.hx[a][k]
			s.dr[j][k] = s.hr[b][k] - s.hr[a][k]
		}
	}
	// Normal equations (ΔRᵀΔR + ridge) γ = ΔRᵀ R, by Cholesky; the ridge
	// keeps them solvable as the differences shrink and align.
	var trace float64
	for i := range m {
		for j := i; j < m; j++ {
			s.gram[i*m+j] = floats.Dot(s.dr[i], s.dr[j])
		}
		trace += s.gram[i*m+i]
		s.rhs[i] = floats.Dot(s.dr[i], hr)
	}
	for i := range m {
		s.gram[i*m+i] += 1e-12 * trace
	}
	if !dense.CholSmall(s.gram[:m*m], m) {
		return
	}
	ut := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: s.gram[:m*m]}
	gam := blas64.Vector{N: m, Inc: 1, Data: s.gam[:m]}
	copy(s.gam, s.rhs[:m])
	blas64.Trsv(blas.Trans, ut, gam)
	blas64.Trsv(blas.NoTrans, ut, gam)
	for j := range m {
		g := s.gam[j]
		for k := range s.x {
			s.x[k] -= g * (s.dx[j][k] + s.dr[j][k])
		}
	}
}
