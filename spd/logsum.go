package spd

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// eig is a buffer for the eigendecomposition of one symmetric d×d matrix
// by dense.SymEigen, scaled exactly by a power of two so that its entries
// are at most 1: the matrix's eigenvalues are 2^scale·vals (unsorted,
// held scaled so that neither they nor their logarithms overflow or
// underflow), the rows of vecs its unit eigenvectors.
type eig struct {
	d        int
	a, vecs  []float64 // d×d
	vals     []float64 // d
	scale    int
	work     []float64 // dense.SymEigenWork(d)
	u, uc, t []float64 // AddOuter's scratch
	fv       []float64 // function values, d
}

func newEig(d int) *eig {
	buf := make([]float64, 5*d*d+dense.SymEigenWork(d)+4*d)
	next := func(n int) []float64 {
		b := buf[:n:n]
		buf = buf[n:]
		return b
	}
	return &eig{d: d, a: next(d * d), vecs: next(d * d), u: next(d * d), uc: next(d * d), t: next(2 * d),
		vals: next(d), fv: next(d), work: next(dense.SymEigenWork(d))}
}

// decompose diagonalises the symmetric matrix in the upper triangle of
// e.a, which it overwrites, shifting the eigenvalues back by 2^shift (the
// matrix was scaled by 2^−shift). It reports an error wrapping
// ErrNotFinite for a value that is not finite or an iteration that does
// not converge.
func (e *eig) decompose(shift int) error {
	d := e.d
	var big float64
	for i := range d {
		for _, v := range e.a[i*d+i : i*d+d] {
			if v < 0 {
				v = -v
			}
			if !(v <= big) {
				if !(v <= math.MaxFloat64) { // NaN or ±Inf
					return fmt.Errorf("%w: entry %v", ErrNotFinite, v)
				}
				big = v
			}
		}
	}
	return e.decomposeScaled(big, shift)
}

// decomposeScaled is decompose for a matrix whose entries are finite and
// at most big in magnitude; big <= d (a Gram matrix of a factor scaled to
// entries of at most 1) skips the scaling.
func (e *eig) decomposeScaled(big float64, shift int) error {
	d := e.d
	s := 0
	if big > float64(d) || (big > 0 && big < 0x1p-500) {
		_, s = math.Frexp(big)
		f := math.Ldexp(1, -s)
		for i := range d {
			row := e.a[i*d+i : i*d+d]
			for j := range row {
				row[j] *= f
			}
		}
	}
	if !dense.SymEigen(e.a, d, e.vals, e.vecs, e.work) {
		return fmt.Errorf("%w: eigendecomposition did not converge", ErrNotFinite)
	}
	e.scale = s + shift
	return nil
}

// val returns eigenvalue j.
func (e *eig) val(j int) float64 { return math.Ldexp(e.vals[j], e.scale) }

// logAt returns the logarithm of eigenvalue j, and false when it is not
// positive.
func (e *eig) logAt(j int) (float64, bool) {
	v := e.vals[j]
	if !(v > 0) {
		return 0, false
	}
	return math.Log(v) + float64(e.scale)*math.Ln2, true
}

// cond returns the ratio of the largest eigenvalue to the smallest (all
// positive).
func (e *eig) cond() float64 {
	lo, hi := math.Inf(1), 0.0
	for _, v := range e.vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi / lo
}

// addFunc adds w·f(A) = w·V diag(f(λ)) Vᵀ, f(λ) in e.fv, to the upper
// triangle of acc.
func (e *eig) addFunc(acc []float64, w float64) {
	for j := range e.fv {
		e.fv[j] *= w
	}
	dense.AddOuter(acc, e.vecs, e.fv, e.d, e.u, e.uc, e.t)
}

// funcTo writes f(A) (f(λ) in e.fv), full and symmetric, into dst.
func (e *eig) funcTo(dst []float64) {
	clear(dst)
	dense.AddOuter(dst, e.vecs, e.fv, e.d, e.u, e.uc, e.t)
	mirrorUpper(dst, e.d)
}

// symFuncTo writes f(A) for the symmetric d×d matrix a (row-major, upper
// triangle read) into dst (full), f = exp or log; log refuses an
// eigenvalue that is not positive with an error wrapping ErrNotSPD.
func (e *eig) symFuncTo(dst, a []float64, log bool) error {
	if log {
		return e.funcOf(dst, a, fnLog)
	}
	return e.funcOf(dst, a, fnExp)
}

// funcOf writes f(A) for the symmetric d×d matrix a (row-major, upper
// triangle read) into dst (full), f = exp, log or sqrt; log and sqrt
// refuse an eigenvalue that is not positive with an error wrapping
// ErrNotSPD.
func (e *eig) funcOf(dst, a []float64, fn eigenFunc) error {
	d := e.d
	for i := range d {
		copy(e.a[i*d+i:i*d+d], a[i*d+i:i*d+d])
	}
	if err := e.decompose(0); err != nil {
		return err
	}
	for j := range e.vals {
		switch fn {
		case fnLog:
			v, ok := e.logAt(j)
			if !ok {
				return fmt.Errorf("%w: eigenvalue %g <= 0", ErrNotSPD, e.val(j))
			}
			e.fv[j] = v
		case fnSqrt:
			v := e.val(j)
			if !(v > 0) {
				return fmt.Errorf("%w: eigenvalue %g <= 0", ErrNotSPD, v)
			}
			e.fv[j] = math.Sqrt(v)
		default:
			v := e.val(j)
			e.fv[j] = math.Exp(v)
			if math.IsInf(e.fv[j], 0) {
				return fmt.Errorf("%w: exp(%g) overflows", ErrNotFinite, v)
			}
		}
	}
	e.funcTo(dst)
	return nil
}

// whitened holds the matrices of a mean whose terms are functions of the
// whitened matrices Y_i = L⁻¹ X_i L⁻ᵀ, for a lower triangular L with
// M = LLᵀ (the iterate): their Cholesky factors X_i = R_i R_iᵀ, computed
// once, and per-worker buffers.
//
// Up to dense.PlainMaxD, Y_i = Z Zᵀ with Z = L⁻¹R_i lower triangular
// (dense.SolveLowerT). dense.GramUpperT forms the Gram matrix of an upper
// triangular factor; Z reversed in rows and columns, PZP (P the reversal
// permutation) is upper triangular, and its Gram matrix is P Y_i P, whose
// eigenvectors are Y_i's reversed. The terms are summed in that reversed
// frame, and the sum reversed once (unreverse). Beyond PlainMaxD, Y_i is
// formed by triangular solves (blas64.Trsm) and no reversal is made.
type whitened struct {
	d       int
	xs      []*mat.SymDense
	weights []float64
	r       []float64 // R_i lower triangles, d×d blocks (d <= PlainMaxD)
	bufs    []*whiteBuf
	sum     *chunkSum
	workers int
}

// whiteBuf is one worker's buffers.
type whiteBuf struct {
	e      *eig
	zt, rl []float64
}

// newUnfactored returns the buffers for the validated matrices of in
// without their Cholesky factors: decompose then takes l == nil only.
func newUnfactored(in *meanInput) *whitened {
	return &whitened{d: in.d, xs: in.xs, weights: in.weights, bufs: make([]*whiteBuf, pool.Workers(in.o.Workers)),
		sum: newChunkSum(len(in.xs), in.d*in.d), workers: in.o.Workers}
}

// newWhitened factorises the validated matrices of in.
func newWhitened(ctx context.Context, in *meanInput) (*whitened, error) {
	d := in.d
	wh := newUnfactored(in)
	if d > dense.PlainMaxD {
		return wh, nil
	}
	dd := d * d
	wh.r = make([]float64, len(in.xs)*dd)
	err := pool.ForCtx(ctx, len(in.xs), in.o.Workers, func(_, i int) error {
		r := wh.r[i*dd : (i+1)*dd]
		loadUpperTo(r, d, in.xs[i])
		if _, ok := dense.CholLower(r, r, nil, d); !ok {
			return fmt.Errorf("matrix %d: %w: %s", i, ErrNotSPD, notSPDEnough(d))
		}
		return nil
	})
	return wh, err
}

// buf returns worker w's buffers.
func (wh *whitened) buf(w int) *whiteBuf {
	if wh.bufs[w] == nil {
		wh.bufs[w] = &whiteBuf{e: newEig(wh.d), zt: make([]float64, wh.d*wh.d), rl: make([]float64, wh.d)}
	}
	return wh.bufs[w]
}

// flipped reports whether the terms are summed in the reversed frame.
func (wh *whitened) flipped() bool { return wh.d <= dense.PlainMaxD }

// decompose diagonalises Y_i = L⁻¹ X_i L⁻ᵀ into b.e (reversed when
// flipped), for the lower triangular factor l (row-major d×d, lower
// triangle read; nil: the identity, Y_i = X_i unreversed). linv is L⁻¹
// (lower, full row-major) beyond PlainMaxD.
func (wh *whitened) decompose(b *whiteBuf, i int, l, linv []float64) error {
	d := wh.d
	e := b.e
	if l == nil {
		loadUpperTo(e.a, d, wh.xs[i])
		return e.decompose(0)
	}
	if wh.flipped() {
		dd := d * d
		dense.SolveLowerT(b.zt, l, wh.r[i*dd:(i+1)*dd], b.rl, d) // Zᵀ, upper
		// PZP in e.vecs (scratch here), upper: (PZP)_ab = Z_{d−1−a,d−1−b}
		// = Zᵀ_{d−1−b,d−1−a}; zeros below the diagonal, which GramUpperT's
		// vector path may read.
		f := e.vecs
		var big float64
		for a := range d {
			row := f[a*d : a*d+d]
			clear(row[:a])
			for c := a; c < d; c++ {
				v := b.zt[(d-1-c)*d+d-1-a]
				row[c] = v
				big = math.Max(big, math.Abs(v))
			}
		}
		if !(big <= math.MaxFloat64) {
			return fmt.Errorf("%w: whitened factor", ErrNotFinite)
		}
		s := 0
		if big > 0 {
			_, s = math.Frexp(big)
			sc := math.Ldexp(1, -s)
			for a := range d {
				row := f[a*d+a : a*d+d]
				for c := range row {
					row[c] *= sc
				}
			}
		}
		dense.GramUpperT(e.a, f, d)
		return e.decomposeScaled(float64(d), 2*s)
	}
	// Y = L⁻¹ X L⁻ᵀ, two products with the lower triangular L⁻¹.
	loadFull(e.a, d, wh.xs[i])
	triCongruence(e.a, linv, d, blas.Lower, false, false)
	return e.decompose(0)
}

// unreverse writes into dst (full, row-major) the symmetric matrix whose
// upper triangle acc holds, reversed in rows and columns when the terms
// were summed in the reversed frame.
func (wh *whitened) unreverse(dst, acc []float64, flipped bool) {
	d := wh.d
	for a := range d {
		for c := a; c < d; c++ {
			v := acc[a*d+c]
			if flipped {
				v = acc[(d-1-c)*d+d-1-a]
			}
			dst[a*d+c], dst[c*d+a] = v, v
		}
	}
}

// lowerInverse writes L⁻¹ for the lower triangular l (row-major d×d, lower
// triangle read) into dst, zeros above the diagonal.
func lowerInverse(dst, l []float64, d int) {
	clear(dst[:d*d])
	for i := range d {
		dst[i*d+i] = 1
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: l},
		blas64.General{Rows: d, Cols: d, Stride: d, Data: dst})
}
