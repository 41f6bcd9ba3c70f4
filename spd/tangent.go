package spd

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TangentSpace maps SPD matrices to vectors of the tangent space of the
// AIRM at a reference point P and back (Tuzel, Porikli and Meer,
// "Pedestrian detection via classification on Riemannian manifolds",
// IEEE PAMI 2008; Barachant, Bonnet, Congedo and Jutten, "Multiclass
// brain–computer interface classification by Riemannian geometry", IEEE
// TBME 2012, and "Classification of covariance matrices using a
// Riemannian-based kernel for BCI applications", Neurocomputing 2013;
// pyRiemann's tangent_space and untangent_space). The vector of X is
//
//	t_P(X) = vec(log(P^{−1/2} X P^{−1/2})),
//
// the logarithm map Log_P(X) of LogMap whitened by P^{−1/2} on both sides
// and half-vectorised by VecTo (the upper triangle row by row, the
// off-diagonal entries times √2), so that its Euclidean norm is the AIRM
// distance, ‖t_P(X)‖₂ = d_g(P, X). The vectors are invariant to
// congruence up to a rotation: for every invertible A, U =
// (APAᵀ)^{−1/2} A P^{1/2} is orthogonal and t_{APAᵀ}(AXAᵀ) =
// vec(U log(P^{−1/2} X P^{−1/2}) Uᵀ), so that inner products and
// distances of the vectors of a set do not change. At P = I the vector is
// the log-Euclidean vec(log X) of Workspace.LogVecTo. The inverse map takes a vector v of length
// d(d+1)/2 back to the SPD matrix
//
//	P^{1/2} exp(unvec(v)) P^{1/2},
//
// the exponential map Exp_P of ExpMap at the unwhitened tangent vector.
//
// A TangentSpace holds P^{1/2} and P^{−1/2} from one eigendecomposition
// of P, and buffers, so that VectorTo and UntangentTo allocate nothing:
// it is not safe for concurrent use; give each goroutine its own.
type TangentSpace struct {
	w           *Workspace
	sqrt, isqrt []float64 // P^{1/2}, P^{−1/2}, row-major d×d
	// arg is the full argument of a congruence, prod and out its
	// products, all row-major d×d.
	arg, prod, out []float64
	// inner is the congruence's result, fx a matrix function of it.
	inner, fx *mat.SymDense
}

// NewTangentSpace returns the tangent space at the reference point p,
// which must be SPD enough (see Validate); it returns Validate's error
// otherwise, naming P.
func NewTangentSpace(p mat.Symmetric) (*TangentSpace, error) {
	if err := checkSPD("P", p); err != nil {
		return nil, err
	}
	d, _ := p.Dims()
	w := NewWorkspace(d)
	s, si, err := sqrtPair(w, "P", p)
	if err != nil {
		return nil, err
	}
	ts := &TangentSpace{
		w:     w,
		sqrt:  make([]float64, d*d),
		isqrt: make([]float64, d*d),
		arg:   make([]float64, d*d),
		prod:  make([]float64, d*d),
		out:   make([]float64, d*d),
		inner: mat.NewSymDense(d, nil),
		fx:    mat.NewSymDense(d, nil),
	}
	loadFull(ts.sqrt, d, s)
	loadFull(ts.isqrt, d, si)
	return ts, nil
}

// ready reports an error wrapping ErrParameter for a nil TangentSpace or
// one not made by NewTangentSpace.
func (ts *TangentSpace) ready() error {
	if ts == nil || ts.w.ready() != nil || len(ts.isqrt) != ts.w.d*ts.w.d {
		return fmt.Errorf("%w: nil or zero TangentSpace (use NewTangentSpace)", ErrParameter)
	}
	return nil
}

// Dim returns the size d of the reference point's matrix, 0 for a nil or
// zero TangentSpace.
func (ts *TangentSpace) Dim() int {
	if ts.ready() != nil {
		return 0
	}
	return ts.w.d
}

// congruence sets dst ← A·B·A for the row-major d×d symmetric A and B =
// ts.arg, the average of the product's two triangles, which round-off
// makes differ.
func (ts *TangentSpace) congruence(dst *mat.SymDense, a []float64) {
	d := ts.w.d
	g := func(data []float64) blas64.General { return blas64.General{Rows: d, Cols: d, Stride: d, Data: data} }
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g(a), g(ts.arg), 0, g(ts.prod))
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g(ts.prod), g(a), 0, g(ts.out))
	for i := range d {
		for j := i; j < d; j++ {
			dst.SetSym(i, j, 0.5*(ts.out[i*d+j]+ts.out[j*d+i]))
		}
	}
}

// VectorTo writes t_P(X) = vec(log(P^{−1/2} X P^{−1/2})) into dst, of
// length VecLen(d). It returns an error wrapping ErrNotSPD or
// ErrNotFinite for an X that is not SPD enough, ErrEmpty, ErrNotSquare or
// ErrDimension for a nil X or one of another size than P, ErrDimension for
// a dst of another length, and ErrParameter for a nil or zero
// TangentSpace.
func (ts *TangentSpace) VectorTo(dst []float64, x mat.Symmetric) error {
	if err := ts.ready(); err != nil {
		return err
	}
	w := ts.w
	if len(dst) != VecLen(w.d) {
		return fmt.Errorf("%w: destination length %d, want %d for %d×%d", ErrDimension, len(dst), VecLen(w.d), w.d, w.d)
	}
	if _, err := w.logDet("X", x); err != nil {
		return err
	}
	loadFull(ts.arg, w.d, x)
	ts.congruence(ts.inner, ts.isqrt)
	if err := w.apply("P^{-1/2} X P^{-1/2}", ts.fx, ts.inner, fnLog, 0); err != nil {
		return err
	}
	return VecTo(dst, ts.fx)
}

// Vector returns t_P(X); see VectorTo.
func (ts *TangentSpace) Vector(x mat.Symmetric) ([]float64, error) {
	if err := ts.ready(); err != nil {
		return nil, err
	}
	dst := make([]float64, VecLen(ts.w.d))
	if err := ts.VectorTo(dst, x); err != nil {
		return nil, err
	}
	return dst, nil
}

// UntangentTo writes into dst (an empty dst is sized) the SPD matrix
// P^{1/2} exp(V) P^{1/2} whose tangent vector t_P is v: V is the
// symmetric matrix with vec(V) = v (VecTo), its diagonal v's entries of
// the diagonal and its off-diagonal entries v's divided by √2. It returns
// an error wrapping ErrDimension for a v of a length other than VecLen(d)
// or a dst of another size, ErrNotFinite for a NaN or infinite entry of v
// or an exponential that overflows, and ErrParameter for a nil dst or a
// nil or zero TangentSpace.
func (ts *TangentSpace) UntangentTo(dst *mat.SymDense, v []float64) error {
	if err := ts.ready(); err != nil {
		return err
	}
	w := ts.w
	d := w.d
	if len(v) != VecLen(d) {
		return fmt.Errorf("%w: vector length %d, want %d for %d×%d", ErrDimension, len(v), VecLen(d), d, d)
	}
	if err := w.checkDst(dst); err != nil {
		return err
	}
	full := ts.inner.RawSymmetric().Data
	k := 0
	for i := range d {
		for j := i; j < d; j++ {
			e := v[k]
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return fmt.Errorf("V: entry %d: %w", k, ErrNotFinite)
			}
			if j > i {
				e /= math.Sqrt2
			}
			full[i*d+j], full[j*d+i] = e, e
			k++
		}
	}
	if err := w.apply("V", ts.fx, ts.inner, fnExp, 0); err != nil {
		return err
	}
	loadFull(ts.arg, d, ts.fx)
	ts.congruence(dst, ts.sqrt)
	return nil
}

// Untangent returns P^{1/2} exp(V) P^{1/2} for the tangent vector v; see
// UntangentTo.
func (ts *TangentSpace) Untangent(v []float64) (*mat.SymDense, error) {
	dst := &mat.SymDense{}
	if err := ts.UntangentTo(dst, v); err != nil {
		return nil, err
	}
	return dst, nil
}

// TangentVectors returns the tangent vectors t_P(X_i) (TangentSpace) of
// the matrices of set at the indices idx (nil: all of them) at the
// reference point p, as the rows of a len(idx)×d(d+1)/2 matrix, in the
// order of idx: the features that tangent-space classifiers (Barachant et
// al. 2012; pyRiemann's TangentSpace.transform) train on. The rows are
// computed on workers goroutines (0: GOMAXPROCS), each with a
// TangentSpace of its own, and do not depend on their number. It returns
// an error wrapping ErrParameter for a nil ctx or an index out of range,
// ErrEmpty for a nil or empty set or an empty (non-nil) idx, the errors
// of NewTangentSpace for p and ErrDimension for a p of another size than
// the set's, and one wrapping ctx.Err() once ctx is cancelled, looked at
// between matrices.
func TangentVectors(ctx context.Context, set *Set, idx []int, p mat.Symmetric, workers int) (*mat.Dense, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	if set == nil || set.n == 0 {
		return nil, fmt.Errorf("tangent vectors: %w: no matrices", ErrEmpty)
	}
	if idx == nil {
		idx = make([]int, set.n)
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("tangent vectors: %w: no indices", ErrEmpty)
	}
	for k, i := range idx {
		if i < 0 || i >= set.n {
			return nil, fmt.Errorf("tangent vectors: %w: index %d (position %d) out of range [0, %d)", ErrParameter, i, k, set.n)
		}
	}
	first, err := NewTangentSpace(p)
	if err != nil {
		return nil, fmt.Errorf("tangent vectors: %w", err)
	}
	if d := first.Dim(); d != set.d {
		return nil, fmt.Errorf("tangent vectors: %w: P is %d×%d, the set's matrices %d×%d", ErrDimension, d, d, set.d, set.d)
	}
	n := VecLen(set.d)
	out := mat.NewDense(len(idx), n, nil)
	spaces := make([]*TangentSpace, pool.Workers(workers))
	spaces[0] = first
	err = pool.ForCtx(ctx, len(idx), workers, func(w, k int) error {
		if spaces[w] == nil {
			var err error
			if spaces[w], err = NewTangentSpace(p); err != nil {
				return err
			}
		}
		if err := spaces[w].VectorTo(out.RawRowView(k), set.View(idx[k])); err != nil {
			return fmt.Errorf("tangent vectors: matrix %d: %w", idx[k], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
