package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/symm"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// pcaParams are the parameters of method types pca-src and gsr.
type pcaParams struct {
	// Dims is the PCA dimension (default 100), reduced to the training
	// set's rank when it is larger.
	Dims int `yaml:"dims,omitempty" json:"dims,omitempty"`
	// Step samples the vector's planes every Step pixels (pca-src default
	// 1, gsr default 4: Yang and Zhang's downsampling of the Gabor
	// magnitudes).
	Step int `yaml:"step,omitempty" json:"step,omitempty"`
	// Normalise is none (the default) or plane: plane scales each
	// plane's samples in each vector to zero mean and unit variance (Liu
	// and Wechsler's augmented Gabor feature vector, IEEE TIP 2002, on
	// which Yang and Zhang build). On FERET 32×32 it costs GSR 5.6 points
	// (docs/results.md), so gsr does not default to it.
	Normalise string `yaml:"normalise,omitempty" json:"normalise,omitempty"`
	sparse    `yaml:",inline"`
}

// pcaSRC is sparse representation classification (Wright et al., PAMI
// 2009) of per-image feature vectors: PCA fitted on the training items
// only, projections normalised to unit length (SRC's column
// normalisation), a Euclidean Lasso on their linear Gram matrix (rsr's
// solver), class residuals. pca-src takes the pixel intensities (the
// paper's PCA-SR column of Table 2); gsr the 40 Gabor magnitude planes
// downsampled (Yang and Zhang, ECCV 2010, without the occlusion
// dictionary their method adds for occluded faces, which Table 2's
// protocol does not need).
type pcaSRC struct {
	memo    classify.Memo[weight]
	blocks  classify.Scratch // kernel blocks of the method's runs (src)
	cands   []weight
	opts    rsr.ClassifierOptions // without the weight, which cands hold
	vectors classify.VectorRequest
	planes  int // planes per vector
	p       pcaParams
	grams   classify.Once[gramKey, gramFit]
	bases   classify.Once[baseKey, *pcaBase]
}

// gramKey identifies a PCA fit: the data, the training set and, for a
// cross-validation fold's fit, the fold's training items (hashed in fold).
// The sparsity candidates of a fold, and tasks sharing a training set,
// share one fit through a classify.Once of gramCacheSize entries (a fit
// per cross-validation fold and one of the whole training set, with room
// for repeats run in parallel). The fits of a training set and of its
// folds start from one pcaBase, kept for baseCacheSize training sets.
type gramKey struct {
	data   *classify.Data
	train  uint64
	isFold bool
	fold   uint64
}

type baseKey struct {
	data  *classify.Data
	train uint64
}

type gramFit struct {
	g    classify.Pairs
	dims int
}

const (
	gramCacheSize = 8
	baseCacheSize = 2
)

func newPCASRC(n *yaml.Node) (classify.Method, error) { return newPCA(n, "pca-src", "I", 1, "none") }

func newGSR(n *yaml.Node) (classify.Method, error) { return newPCA(n, "gsr", "gabor", 4, "none") }

func newPCA(n *yaml.Node, typ, spec string, step int, normalise string) (classify.Method, error) {
	m := &pcaSRC{}
	m.grams.Max = gramCacheSize
	m.bases.Max = baseCacheSize
	if err := decode(n, &m.p, typ); err != nil {
		return nil, err
	}
	if m.p.Dims == 0 {
		m.p.Dims = 100
	}
	if m.p.Step == 0 {
		m.p.Step = step
	}
	switch m.p.Normalise {
	case "":
		m.p.Normalise = normalise
	case "none", "plane":
	default:
		return nil, fmt.Errorf("normalise = %q, want none or plane", m.p.Normalise)
	}
	set, err := features.Parse(spec)
	if err != nil {
		return nil, err
	}
	m.planes = set.Dim()
	if m.p.Dims < 1 || m.p.Step < 1 {
		return nil, fmt.Errorf("dims = %d and step = %d must be >= 1", m.p.Dims, m.p.Step)
	}
	sc, err := m.p.resolve()
	if err != nil {
		return nil, err
	}
	m.opts, m.cands = sc.opts, sc.weights
	m.vectors = classify.VectorRequest{Features: spec, Step: m.p.Step}
	return m, nil
}

// Spec declares the sparsity candidates and asks for the method's
// vectors.
func (m *pcaSRC) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: len(m.cands), Vectors: m.vectors, Scores: true}
}

func (m *pcaSRC) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	if len(m.cands) > 1 {
		// The fit on the whole training set is only needed after
		// cross-validation, whose runs fit the folds; starting it now
		// computes the training set's Gram matrix, from which the folds'
		// fits start, and lets its serial eigendecomposition overlap them.
		// Classify waits for it, so that no work outlives the call.
		var wg sync.WaitGroup
		defer wg.Wait()
		for _, d := range s.AllVariants() {
			wg.Go(func() { m.fit(ctx, d, s.Train, nil, s.Workers) }) // an error surfaces in the later call
		}
	}
	// Each run records the PCA dimensions it used; Select returns the
	// chosen candidate's run. (Validation runs go in parallel: they must
	// not share a variable.) A validation fold's fit projects the
	// training items, which its runs classify, from the training set's
	// Gram matrix (pcaBase.fitFold); the final fit projects every item
	// from its vector, as the tasks that share a training set (FERET's
	// four test poses) share it.
	runOn := func(final bool) classify.Runner[weight] {
		return func(d *classify.Data, train, test []int, w weight) (*classify.Outcome, error) {
			var fit gramFit
			var err error
			if final {
				fit, err = m.fit(ctx, d, train, nil, s.Workers)
			} else {
				fit, err = m.fit(ctx, d, s.Train, train, s.Workers)
			}
			if err != nil {
				return nil, err
			}
			o, err := src(ctx, fit.g, classify.Identity, d.Labels, train, test, w.set(m.opts), s.Workers, &m.blocks)
			if err != nil {
				return nil, err
			}
			o.Params = map[string]float64{"dims": float64(fit.dims)}
			return o, nil
		}
	}
	o, c, d, err := classify.SelectFinal(ctx, s, m.cands, &m.memo, runOn(false), runOn(true))
	if err != nil {
		return nil, err
	}
	o.Params[c.Params.key()] = c.Params.value
	o.Params["ridge"] = d.Ridge
	return o, nil
}

// fit returns the PCA fit on the training items train of d's vectors,
// projecting every item, or with fold, a validation fold's training items
// (a subset of train), the fit on fold projecting the items of train
// (pcaBase.fitFold); computed once per training set and fold (grams), its
// Gram matrix on workers goroutines (the fit does not depend on them); a
// fit that ctx cancelled is not kept.
func (m *pcaSRC) fit(ctx context.Context, d *classify.Data, train, fold []int, workers int) (gramFit, error) {
	key := gramKey{d, classify.HashInts(train), fold != nil, classify.HashInts(fold)}
	return m.grams.Do(key, func() (gramFit, error) {
		b, err := m.base(ctx, d, train, workers)
		if err != nil {
			return gramFit{}, err
		}
		var g classify.Pairs
		var dims int
		runs := fold // the training items of the fit's runs
		if fold == nil {
			g, dims, err = b.fit(ctx, m.p.Dims)
			runs = train
		} else {
			g, dims, err = b.fitFold(ctx, fold, m.p.Dims)
		}
		if err != nil {
			return gramFit{}, err
		}
		return gramFit{&trainKept{Pairs: g, train: runs}, dims}, nil
	})
}

// trainKept is a fit's linear kernel keeping the block of its runs'
// training items, which every sparsity candidate of a fold, and every
// task sharing a training set, asks for (src): one matrix product
// instead of one per run, the same values.
type trainKept struct {
	classify.Pairs
	train []int
	block classify.Once[struct{}, *mat.Dense]
}

// Block returns the block of rows×cols, f applied (BlockTo).
func (p *trainKept) Block(ctx context.Context, rows, cols []int, f classify.Map) (*mat.Dense, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return p.Pairs.Block(ctx, rows, cols, f)
	}
	k := mat.NewDense(len(rows), len(cols), nil)
	if err := p.BlockTo(ctx, k, rows, cols, f); err != nil {
		return nil, err
	}
	return k, nil
}

// BlockTo writes the block of rows×cols, f applied, into dst: a copy of
// the kept training block when rows and cols are the training items and f
// is the identity, computed on the first such call.
func (p *trainKept) BlockTo(ctx context.Context, dst *mat.Dense, rows, cols []int, f classify.Map) error {
	if f != classify.Identity || !slices.Equal(rows, p.train) || !slices.Equal(cols, p.train) {
		return p.Pairs.BlockTo(ctx, dst, rows, cols, f)
	}
	k, err := p.block.Do(struct{}{}, func() (*mat.Dense, error) {
		return p.Pairs.Block(ctx, rows, cols, f)
	})
	if err != nil {
		return err
	}
	if r, c := dst.Dims(); r != len(rows) || c != len(cols) {
		return fmt.Errorf("block of %d×%d items into a %d×%d matrix", len(rows), len(cols), r, c)
	}
	dst.Copy(k)
	return nil
}

// base returns the centred training set train of d's vectors and its Gram
// matrix (newPCABase), computed once per training set (bases).
func (m *pcaSRC) base(ctx context.Context, d *classify.Data, train []int, workers int) (*pcaBase, error) {
	return m.bases.Do(baseKey{d, classify.HashInts(train)}, func() (*pcaBase, error) {
		x := d.Vectors[m.vectors]
		if x == nil {
			return nil, fmt.Errorf("no feature vectors (%v): the protocol's data stage does not make them (an image dataset with regions: whole is needed)", m.vectors)
		}
		v := x
		if m.p.Normalise == "plane" {
			var err error
			if v, err = normalisePlanes(x, m.planes); err != nil {
				return nil, err
			}
		}
		return newPCABase(ctx, v, train, workers)
	})
}

// normalisePlanes returns a copy of x whose rows are each made of planes
// equal blocks, every block scaled to zero mean and unit variance (a
// constant block to zeros). It depends on each row alone, so it uses no
// test information.
func normalisePlanes(x *mat.Dense, planes int) (*mat.Dense, error) {
	n, m := x.Dims()
	if planes < 1 || m%planes != 0 {
		return nil, fmt.Errorf("vectors of %d values do not split into %d planes", m, planes)
	}
	size := m / planes
	out := mat.NewDense(n, m, nil)
	for i := range n {
		row := out.RawRowView(i)
		copy(row, x.RawRowView(i))
		for p := range planes {
			b := row[p*size : (p+1)*size]
			mean, std := stat.PopMeanStdDev(b, nil)
			if !(std > 0) {
				std = math.Inf(1)
			}
			for k, v := range b {
				b[k] = (v - mean) / std
			}
		}
	}
	return out, nil
}

// pcaGram fits PCA on the rows train of x (centred on their mean), keeps
// the leading dims components (fewer when the training rank is lower),
// projects every row, scales each projection to unit length and returns
// their linear kernel (classify.LinearPairs), with the number of
// components kept (newPCABase, then pcaBase.fit).
func pcaGram(ctx context.Context, x *mat.Dense, train []int, dims int) (classify.Pairs, int, error) {
	b, err := newPCABase(ctx, x, train, 0)
	if err != nil {
		return nil, 0, err
	}
	return b.fit(ctx, dims)
}

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
// other items), with the number of components kept: what pcaGram(x,
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
// of the vectors. The rounding differs from pcaGram's at the level of
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
