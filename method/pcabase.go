package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/symm"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// pcaBase is a training set's centred vectors and their Gram matrix: the
// fit on the whole training set (fit) and those of its cross-validation
// folds (fitFold) start from it.
type pcaBase struct {
	x     *mat.Dense // all items' vectors
	train []int      // the training items, rows of x
	pos   []int      // pos[i]: item i's place in train, or −1
	mean  []float64  // of the training rows
	xt    *mat.Dense // the training rows centred on mean
	g     []float64  // xt xtᵀ, n_t×n_t row-major, both triangles
}

// newPCABase centres the training rows train of x on their mean and
// computes their Gram matrix (gramUpper, on workers goroutines). It
// returns an error wrapping ctx.Err() once ctx is cancelled.
func newPCABase(ctx context.Context, x *mat.Dense, train []int, workers int) (*pcaBase, error) {
	n, m := x.Dims()
	nt := len(train)
	if nt == 0 {
		return nil, errors.New("PCA: no training vectors")
	}
	b := &pcaBase{x: x, train: train, pos: make([]int, n), mean: make([]float64, m), xt: mat.NewDense(nt, m, nil)}
	for i := range b.pos {
		b.pos[i] = -1
	}
	for a, i := range train {
		if i < 0 || i >= n || b.pos[i] >= 0 {
			return nil, fmt.Errorf("PCA: training item %d out of range or repeated", i)
		}
		b.pos[i] = a
	}
	for _, i := range train {
		for j, v := range x.RawRowView(i) {
			b.mean[j] += v / float64(nt)
		}
	}
	b.centre(b.xt, train)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.g = make([]float64, nt*nt)
	if err := gramUpper(ctx, b.xt, b.g, workers); err != nil {
		return nil, err
	}
	symm.Mirror(b.g, nt, nt)
	return b, nil
}

// gramUpper writes the upper triangle of x xᵀ into g (n×n row-major for
// the n rows of x), each entry the dot product of two rows as blas64.Dot
// sums it, which is Dsyrk's, bit for bit. It works in tiles of 16 rows by
// 16, whose rows stay in cache while they are paired, a row of tiles per
// item on workers goroutines (Dsyrk is one loop, which streams the rows
// from memory on one core). It returns ctx.Err() once ctx is cancelled.
func gramUpper(ctx context.Context, x *mat.Dense, g []float64, workers int) error {
	const tile = 16
	raw := x.RawMatrix()
	n, m := raw.Rows, raw.Cols
	row := func(i int) blas64.Vector {
		return blas64.Vector{N: m, Inc: 1, Data: raw.Data[i*raw.Stride : i*raw.Stride+m]}
	}
	return pool.ForCtx(ctx, (n+tile-1)/tile, workers, func(_, t int) error {
		i0, i1 := t*tile, min(t*tile+tile, n)
		for j0 := i0; j0 < n; j0 += tile {
			for i := i0; i < i1; i++ {
				xi := row(i)
				for j := max(j0, i); j < min(j0+tile, n); j++ {
					g[i*n+j] = blas64.Dot(xi, row(j))
				}
			}
		}
		return nil
	})
}

// centre writes the rows items of x, centred on the training mean, into
// the rows of dst.
func (b *pcaBase) centre(dst *mat.Dense, items []int) {
	for a, i := range items {
		row := dst.RawRowView(a)
		for j, val := range b.x.RawRowView(i) {
			row[j] = val - b.mean[j]
		}
	}
}

// fit fits PCA on the whole training set, projects every row of x,
// scales each projection to unit length and returns their linear kernel
// (classify.LinearPairs), with the number of components kept.
//
// The fit is dual PCA (Turk and Pentland's eigenfaces trick): with n_t
// training rows of m > n_t values, the components are V = X_cᵀ U Σ⁻¹ for
// the leading eigenpairs (U, Σ²) of the n_t×n_t Gram matrix G = X_c X_cᵀ
// (leadingEigen), which costs O(n_t² m) against the O(n_t m²) of the thin
// SVD of X_c. Components whose variance is below 1e-14 of the largest
// are dropped (pcaComponents). The training rows' projections X_c V are
// G U Σ⁻¹, an n_t×n_t product instead of one over the m values; the
// other rows' are made a block at a time, the centred copy of each block
// made in one buffer. It looks at ctx between its stages and returns an
// error wrapping ctx.Err() once it is cancelled.
func (b *pcaBase) fit(ctx context.Context, dims int) (classify.Pairs, int, error) {
	n, m := b.x.Dims()
	nt := len(b.train)
	us, k, err := pcaComponents(slices.Clone(b.g), nt, dims)
	if err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	y := mat.NewDense(n, k, nil)
	var p mat.Dense
	p.Mul(mat.NewDense(nt, nt, b.g), us)
	for a, i := range b.train {
		unitTo(y.RawRowView(i), p.RawRowView(a))
	}
	var rest []int
	for i, a := range b.pos {
		if a < 0 {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return classify.LinearPairs(y), k, nil
	}
	var comps mat.Dense
	comps.Mul(b.xt.T(), us)
	const block = 256
	cb := mat.NewDense(min(block, len(rest)), m, nil)
	pb := mat.NewDense(min(block, len(rest)), k, nil)
	for lo := 0; lo < len(rest); lo += block {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		items := rest[lo:min(lo+block, len(rest))]
		c := cb.Slice(0, len(items), 0, m).(*mat.Dense)
		p := pb.Slice(0, len(items), 0, k).(*mat.Dense)
		b.centre(c, items)
		p.Mul(c, &comps)
		for a, i := range items {
			unitTo(y.RawRowView(i), p.RawRowView(a))
		}
	}
	return classify.LinearPairs(y), k, nil
}

// fitFold fits PCA on the items fold, a subset of the training set (a
// cross-validation fold's training items), and returns the linear kernel
// of the unit-length projections of every training item (NaN for the
// other items), with the number of components kept: what newPCABase then fit(x,
// fold, dims) computes for the training items, in exact arithmetic, from
// the training set's Gram matrix instead of the vectors.
//
// Centred on the fold's mean, which is the training mean plus δ, the
// vectors' inner products are G_ij − r_i − r_j + c, with G the Gram
// matrix of the training rows centred on their mean, r_i the mean of G_it
// over the fold's items t and c the mean of r_t over them. The fold's
// Gram matrix and the products of every training item with the fold's
// items, which give the projections X_c x_i ᵀ U Σ⁻¹, then cost O(n_t n_f)
// instead of the O(n_f² m) and O(n_t n_f m) of working from the m values
// of the vectors. The rounding differs from the whole-set fit's at the level of
// the Gram matrix's own (TestPCAFoldAgainstGram).
func (b *pcaBase) fitFold(ctx context.Context, fold []int, dims int) (classify.Pairs, int, error) {
	n, _ := b.x.Dims()
	nt, nf := len(b.train), len(fold)
	if nf == 0 {
		return nil, 0, errors.New("PCA: no training vectors")
	}
	at := make([]int, nf) // the fold's places in the training set
	for a, i := range fold {
		if i < 0 || i >= n || b.pos[i] < 0 {
			return nil, 0, fmt.Errorf("PCA: fold item %d is not a training item", i)
		}
		at[a] = b.pos[i]
	}
	// r, c and the centred products Ĝ of every training item (row) with
	// the fold's items (column).
	r := make([]float64, nt)
	for i := range nt {
		row := b.g[i*nt : i*nt+nt]
		var s float64
		for _, t := range at {
			s += row[t]
		}
		r[i] = s / float64(nf)
	}
	var c float64
	for _, t := range at {
		c += r[t]
	}
	c /= float64(nf)
	cross := mat.NewDense(nt, nf, nil)
	for i := range nt {
		row, out := b.g[i*nt:i*nt+nt], cross.RawRowView(i)
		for a, t := range at {
			out[a] = row[t] - r[i] - r[t] + c
		}
	}
	gf := make([]float64, nf*nf)
	for a, t := range at {
		copy(gf[a*nf:a*nf+nf], cross.RawRowView(t))
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	us, k, err := pcaComponents(gf, nf, dims)
	if err != nil {
		return nil, 0, err
	}
	var p mat.Dense
	p.Mul(cross, us)
	y := nanDense(n, k)
	for a, i := range b.train {
		unitTo(y.RawRowView(i), p.RawRowView(a))
	}
	return classify.LinearPairs(y), k, ctx.Err()
}

// pcaComponents returns U Σ⁻¹ (n×k) for the k leading eigenpairs (U, Σ²)
// of the n×n Gram matrix in the lower triangle of g (overwritten), k at
// most dims and leaving out eigenvalues below 1e-14 of the largest: the
// Gram matrix resolves no smaller ones.
func pcaComponents(g []float64, n, dims int) (*mat.Dense, int, error) {
	kmax := min(dims, n)
	vals, u, err := gramEigen(g, n, kmax) // descending; u is n×kmax
	if err != nil {
		return nil, 0, err
	}
	top := vals[0]
	k := 0
	for k < kmax && top > 0 && vals[k] > 1e-14*top {
		k++
	}
	if k == 0 {
		return nil, 0, errors.New("PCA: the training vectors are all equal")
	}
	us := mat.NewDense(n, k, nil)
	for c := range k {
		inv := 1 / math.Sqrt(vals[c])
		for r := range n {
			us.Set(r, c, u[r*kmax+c]*inv)
		}
	}
	return us, k, nil
}

// nanDense returns an r×c matrix of NaN.
func nanDense(r, c int) *mat.Dense {
	y := mat.NewDense(r, c, nil)
	raw := y.RawMatrix().Data
	for i := range raw {
		raw[i] = math.NaN()
	}
	return y
}

// unitTo writes src scaled to unit length into dst (a zero src as is);
// dst may be src.
func unitTo(dst, src []float64) {
	var ss float64
	for _, val := range src {
		ss += val * val
	}
	if !(ss > 0) {
		copy(dst, src)
		return
	}
	inv := 1 / math.Sqrt(ss)
	for j, val := range src {
		dst[j] = val * inv
	}
}

// gramEigen returns the k largest eigenvalues of the symmetric n×n Gram
// matrix in the lower triangle of g (row-major; overwritten), descending,
// and their orthonormal eigenvectors as the columns of a row-major n×k
// slice: leadingEigen, or the full decomposition (mat.EigenSym) in the
// rare case where its iterations do not converge.
func gramEigen(g []float64, n, k int) ([]float64, []float64, error) {
	keep := slices.Clone(g)
	if vals, vecs, ok := leadingEigen(g, n, k); ok {
		return vals, vecs, nil
	}
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range i + 1 {
			sym.SetSym(i, j, keep[i*n+j])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, nil, errors.New("PCA: the eigendecomposition of the training Gram matrix did not converge")
	}
	all := eig.Values(nil) // ascending
	var u mat.Dense
	eig.VectorsTo(&u)
	vals := make([]float64, k)
	vecs := make([]float64, n*k)
	for c := range k {
		vals[c] = all[n-1-c]
		for r := range n {
			vecs[r*k+c] = u.At(r, n-1-c)
		}
	}
	return vals, vecs, nil
}
