package classify

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/symm"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Quantity names a symmetric pairwise quantity between the items of a
// Data that kernel methods map to kernel values.
type Quantity int

const (
	// Stein is the Stein divergence S(X_i, X_j) of the paper's Eqn. 3;
	// exp(−σ S) is the Stein kernel (Eqn. 5).
	Stein Quantity = iota
	// LogEuclideanSq is the squared log-Euclidean distance
	// ‖log X_i − log X_j‖²_F (Arsigny et al. 2007), the exponent of the
	// log-Euclidean Gaussian kernel exp(−γ ‖log X − log Y‖²_F) (Li et al.,
	// ICCV 2013), positive definite for every γ > 0.
	LogEuclideanSq
	// LogCosine is the cosine v_iᵀv_j / (‖v_i‖‖v_j‖) of the isometric
	// log-vectors v_i = vec(log X_i) (spd.LogVecTo: upper triangle,
	// off-diagonals times √2): the linear Gram matrix of logE-SR. The unit
	// normalisation is the one Wright et al.'s SRC applies to dictionary
	// atoms and queries; it also gives k(x, x) = 1 as for the Stein kernel.
	LogCosine
)

// String returns the quantity's name.
func (q Quantity) String() string {
	switch q {
	case Stein:
		return "Stein divergence"
	case LogEuclideanSq:
		return "squared log-Euclidean distance"
	case LogCosine:
		return "log-Euclidean cosine"
	case linear:
		return "linear kernel"
	}
	return fmt.Sprintf("Quantity(%d)", int(q))
}

// Pairs gives blocks of a pairwise quantity between any items of a Data
// (rows) and the items of one training set (columns). Methods ask for the
// training set against itself, folds of it, and the test items in blocks
// (ForBlocks), so that no method needs the n×n matrix over all items:
// memory is O(n_train·n) at most, whatever the size of the test set.
type Pairs interface {
	// Block returns the |rows|×|cols| matrix of f(P(rows[a], cols[b])),
	// f = Identity for the quantity itself. Every item of cols must be in
	// the training set the Pairs was made for.
	Block(rows, cols []int, f Map) (*mat.Dense, error)
	// Prepare computes ahead what Block will need for these rows, so that
	// the engine can time it as its own stage.
	Prepare(rows []int) error
}

// Map is what Pairs.Block applies to the pairwise quantity P: Identity
// keeps it; Exp(σ) gives exp(−σ P), the Stein kernel (the paper's Eqn. 5)
// of Stein divergences and the log-Euclidean Gaussian kernel of squared
// log-Euclidean distances. It is a value rather than a function so that a
// Pairs can recognise the same kernel asked for again, by other folds,
// candidates and methods, and keep the training set's kernel matrix once
// instead of exponentiating it for each of them, and so that it applies
// to whole rows instead of one call per value.
type Map float64

// Identity is the Map that keeps the quantity.
const Identity Map = 0

// Exp returns the Map P ↦ exp(−σ P). It panics unless σ is finite and
// positive: kernel methods check σ when they load.
func Exp(sigma float64) Map {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		panic(fmt.Sprintf("classify: Exp(%v), want a finite σ > 0", sigma))
	}
	return Map(sigma)
}

// Apply returns the map of one value.
func (f Map) Apply(x float64) float64 {
	if f == Identity {
		return x
	}
	return math.Exp(-float64(f) * x)
}

// applyTo maps v in place. exp(−σ·x) is computed as exp((−σ)·x), the same
// product since negation is exact, so the values are Apply's bit for bit.
func (f Map) applyTo(v []float64) {
	if f == Identity {
		return
	}
	s := -float64(f)
	for i, x := range v {
		v[i] = math.Exp(s * x)
	}
}

// BlockSize is the number of test items whose kernel values a method holds
// at once (ForBlocks): 1024 queries against 1,000 training items are 8 MB.
const BlockSize = 1024

// ForBlocks calls fn for consecutive blocks of at most BlockSize test
// items, with the block's offset in test and f of the pairwise quantity
// between the block and train.
func ForBlocks(p Pairs, test, train []int, f Map, fn func(off int, k *mat.Dense) error) error {
	for off := 0; off < len(test); off += BlockSize {
		block := test[off:min(len(test), off+BlockSize)]
		k, err := p.Block(block, train, f)
		if err != nil {
			return err
		}
		if err := fn(off, k); err != nil {
			return err
		}
	}
	return nil
}

// Pairs returns the quantity q between the Data's items and those of
// train. Stein divergences are computed when first asked for and kept: the
// training set against itself once, and each other item's divergences to
// the training set once, so that all methods and cross-validation folds of
// a split (and the splits of other tasks with the same training set, such
// as FERET's four test poses) share them. The log-Euclidean quantities
// are computed per block from the items' log-vectors, which the Data
// computes once (n·d(d+1)/2 values). Methods ask through Split.Pairs,
// which keeps the result while the split is in use.
func (d *Data) Pairs(q Quantity, train []int) (Pairs, error) {
	if len(train) == 0 {
		return nil, fmt.Errorf("%v: empty training set", q)
	}
	switch q {
	case Stein:
		d.steinPairsInit.Do(func() { d.steinPairs.Max = keptTrainingSets })
		return d.steinPairs.Do(HashInts(train), func() (*steinPairs, error) {
			return newSteinPairs(d, train)
		})
	case LogEuclideanSq, LogCosine:
		lv, err := d.logVecs()
		if err != nil {
			return nil, err
		}
		return &vectorPairs{lv: lv, q: q}, nil
	}
	return nil, fmt.Errorf("unknown pairwise quantity %v", q)
}

// keptTrainingSets bounds the training sets whose Stein divergences a Data
// keeps beyond the splits in progress, which hold their own (Split.Pairs):
// enough for a task that shares an earlier task's training set (FERET's
// four poses). A set dropped here is only recomputed if a later split
// asks for it again.
const keptTrainingSets = 4

// SteinComputations reports how many Stein divergence entries were
// computed, so that tests can prove the reuse.
func (d *Data) SteinComputations() int64 { return d.steinEntries.Load() }

// steinPairs holds Stein divergences between a training set T and the
// items of a Data: T×T, computed on first use (one triangle), and the
// divergences of each other item to T, computed when a block first needs
// them. It also keeps T's kernel matrices, exp(−σ S) of T×T for the most
// recent σ, which every cross-validation fold and candidate of a kernel
// method, and every method with that σ, takes its training blocks from.
type steinPairs struct {
	d     *Data
	train []int
	pos   []int32 // position in train of each item, −1 if not in it

	ttOnce sync.Once
	tt     []float64 // divergences of T×T, row-major, both triangles
	ttErr  error

	kernels Once[Map, []float64] // f of tt, row-major, per Map

	mu   sync.Mutex
	rows [][]float64 // divergences to train of each item not in it, once computed
}

// keptKernels bounds the kernel matrices of a training set that a
// steinPairs keeps, n_train² values each: the σ candidates of the shipped
// configs (at most three) all stay.
const keptKernels = 4

func newSteinPairs(d *Data, train []int) (*steinPairs, error) {
	n := d.Set.Len()
	p := &steinPairs{d: d, train: append([]int(nil), train...), pos: make([]int32, n), rows: make([][]float64, n)}
	p.kernels.Max = keptKernels
	for i := range p.pos {
		p.pos[i] = -1
	}
	for a, j := range train {
		if j < 0 || j >= n {
			return nil, fmt.Errorf("training item %d out of range [0, %d)", j, n)
		}
		if p.pos[j] >= 0 {
			return nil, fmt.Errorf("training item %d listed twice", j)
		}
		p.pos[j] = int32(a)
	}
	return p, nil
}

// trainBlock returns the divergences of the training set to itself, both
// triangles, so that a row of them is contiguous.
func (p *steinPairs) trainBlock() ([]float64, error) {
	p.ttOnce.Do(func() {
		s, err := spd.SteinSymBlock(p.d.Set, p.train, &spd.GramOptions{Workers: p.d.Workers})
		if err != nil {
			p.ttErr = err
			return
		}
		m := len(p.train)
		p.d.steinEntries.Add(int64(m * (m - 1) / 2))
		raw := s.RawSymmetric()
		tt := raw.Data
		if raw.Stride != m {
			tt = make([]float64, m*m)
		}
		for i := range m {
			copy(tt[i*m+i:(i+1)*m], raw.Data[i*raw.Stride+i:i*raw.Stride+m])
		}
		symm.Mirror(tt, m, m)
		p.tt = tt
	})
	return p.tt, p.ttErr
}

// trainKernel returns f of the training set's divergences to itself, both
// triangles, mapping each pair once.
func (p *steinPairs) trainKernel(f Map) ([]float64, error) {
	tt, err := p.trainBlock()
	if err != nil || f == Identity {
		return tt, err
	}
	return p.kernels.Do(f, func() ([]float64, error) {
		m := len(p.train)
		k := make([]float64, m*m)
		for i := range m {
			row := k[i*m+i : (i+1)*m]
			copy(row, tt[i*m+i:(i+1)*m])
			f.applyTo(row)
		}
		symm.Mirror(k, m, m)
		return k, nil
	})
}

// Prepare computes the divergences of rows to the training set.
func (p *steinPairs) Prepare(rows []int) error {
	var inTrain bool
	var missing []int
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, i := range rows {
		if i < 0 || i >= len(p.pos) {
			return fmt.Errorf("item %d out of range [0, %d)", i, len(p.pos))
		}
		switch {
		case p.pos[i] >= 0:
			inTrain = true
		case p.rows[i] == nil:
			p.rows[i] = []float64{} // marks i as listed; filled below
			missing = append(missing, i)
		}
	}
	if inTrain {
		if _, err := p.trainBlock(); err != nil {
			return err
		}
	}
	if len(missing) == 0 {
		return nil
	}
	m := len(p.train)
	out := mat.NewDense(len(missing), m, nil)
	err := spd.SteinBlockTo(out, p.d.Set, missing, p.d.Set, p.train, &spd.GramOptions{Workers: p.d.Workers})
	if err != nil {
		for _, i := range missing {
			p.rows[i] = nil
		}
		return err
	}
	p.d.steinEntries.Add(int64(len(missing) * m))
	raw := out.RawMatrix()
	for r, i := range missing {
		p.rows[i] = raw.Data[r*raw.Stride : r*raw.Stride+m : r*raw.Stride+m]
	}
	return nil
}

// Block returns f of the divergences between rows and cols ⊆ train. Rows
// of training items are copied from the training set's kernel matrix
// (trainKernel), which is mapped once; other rows are mapped per block.
func (p *steinPairs) Block(rows, cols []int, f Map) (*mat.Dense, error) {
	cpos := make([]int, len(cols))
	for b, j := range cols {
		if j < 0 || j >= len(p.pos) || p.pos[j] < 0 {
			return nil, fmt.Errorf("Stein divergences: column item %d is not in the training set", j)
		}
		cpos[b] = int(p.pos[j])
	}
	if err := p.Prepare(rows); err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(cols) == 0 {
		return &mat.Dense{}, nil
	}
	// Rows, once computed, never change: hold the lock only to look them
	// up, so that concurrent blocks (cross-validation folds) apply f in
	// parallel.
	srcs := make([][]float64, len(rows))
	inTrain := false
	p.mu.Lock()
	for a, i := range rows {
		if p.pos[i] < 0 {
			srcs[a] = p.rows[i]
		} else {
			inTrain = true
		}
	}
	p.mu.Unlock()
	var kt []float64
	if inTrain {
		var err error
		if kt, err = p.trainKernel(f); err != nil {
			return nil, err
		}
	}
	m := len(p.train)
	if len(cpos) == m && ascending(cpos) {
		cpos = nil // the columns are train itself: gather copies whole rows
	}
	out := mat.NewDense(len(rows), len(cols), nil)
	raw := out.RawMatrix()
	for a, i := range rows {
		dst := raw.Data[a*raw.Stride : a*raw.Stride+len(cols)]
		if r := int(p.pos[i]); r >= 0 {
			gather(dst, kt[r*m:(r+1)*m], cpos)
			continue
		}
		gather(dst, srcs[a], cpos)
		f.applyTo(dst)
	}
	return out, nil
}

// ascending reports whether pos is 0, 1, ..., len(pos)−1.
func ascending(pos []int) bool {
	for b, c := range pos {
		if c != b {
			return false
		}
	}
	return true
}

// gather sets dst[b] = src[idx[b]], or copies src for a nil idx.
func gather(dst, src []float64, idx []int) {
	if idx == nil {
		copy(dst, src)
		return
	}
	dst = dst[:len(idx)]
	for b, c := range idx {
		dst[b] = src[c]
	}
}

// itemVectors holds one vector per item: the isometric log-vectors of a
// Data's items and their norms, or the rows of LinearPairs (no norms).
type itemVectors struct {
	n, m   int       // items, values per vector (d(d+1)/2 for log-vectors)
	vecs   []float64 // one row of m values per item
	stride int       // row stride of vecs
	sq     []float64 // squared Euclidean norm of each row
	inv    []float64 // reciprocal Euclidean norm of each row
}

func (lv *itemVectors) row(i int) []float64 { return lv.vecs[i*lv.stride : i*lv.stride+lv.m] }

// logVecs returns the items' log-vectors, computing them on first use on
// the Data's workers.
func (d *Data) logVecs() (*itemVectors, error) {
	d.logOnce.Do(func() {
		n, dim := d.Set.Len(), d.Set.Dim()
		m := spd.VecLen(dim)
		lv := &itemVectors{n: n, m: m, vecs: make([]float64, n*m), stride: m, sq: make([]float64, n), inv: make([]float64, n)}
		ws := make([]*spd.Workspace, pool.Workers(d.Workers))
		tmps := make([]*mat.SymDense, len(ws))
		d.logErr = pool.ForErr(n, d.Workers, func(w, i int) error {
			if ws[w] == nil {
				ws[w], tmps[w] = spd.NewWorkspace(dim), mat.NewSymDense(dim, nil)
			}
			v := lv.vecs[i*m : (i+1)*m]
			if err := ws[w].LogVecTo(v, d.Set.View(i), tmps[w]); err != nil {
				return fmt.Errorf("log of matrix %d: %w", i, err)
			}
			// Squared norms as a dot product, the diagonal of the vectors'
			// Gram matrix that the distances are made from.
			x := blas64.Vector{N: m, Inc: 1, Data: v}
			lv.sq[i] = blas64.Dot(x, x)
			var ss float64
			for _, e := range v {
				ss += e * e
			}
			lv.inv[i] = 1 / math.Sqrt(ss)
			return nil
		})
		if d.logErr == nil {
			d.logVectors = lv
		}
	})
	return d.logVectors, d.logErr
}

// linear is the quantity of LinearPairs: plain dot products.
const linear Quantity = -1

// LinearPairs returns the linear kernel P_ij = y_iᵀy_j of the rows of y
// (row i: item i), computed per block by one matrix product, for methods
// that map items to vectors of their own (PCA projections). It keeps y.
func LinearPairs(y *mat.Dense) Pairs {
	raw := y.RawMatrix()
	lv := &itemVectors{n: raw.Rows, m: raw.Cols, vecs: raw.Data, stride: raw.Stride}
	return &vectorPairs{lv: lv, q: linear}
}

// vectorPairs computes quantities of item vectors per block: a block is
// one matrix product.
type vectorPairs struct {
	lv *itemVectors
	q  Quantity
}

// Prepare does nothing: blocks are computed when asked for.
func (p *vectorPairs) Prepare([]int) error { return nil }

// Block returns f of the quantity between rows and cols.
func (p *vectorPairs) Block(rows, cols []int, f Map) (*mat.Dense, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return &mat.Dense{}, nil
	}
	lv := p.lv
	n := lv.n
	for _, items := range [][]int{rows, cols} {
		for _, i := range items {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("%v: item %d out of range [0, %d)", p.q, i, n)
			}
			if p.q == LogCosine && !(lv.sq[i] > 0) {
				return nil, fmt.Errorf("log of matrix %d is zero: cannot normalise", i)
			}
		}
	}
	a, b := p.gather(rows), p.gather(cols)
	out := mat.NewDense(len(rows), len(cols), nil)
	raw := out.RawMatrix()
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, raw)
	for r, i := range rows {
		dst := raw.Data[r*raw.Stride : r*raw.Stride+len(cols)]
		if p.q == LogEuclideanSq {
			for c, j := range cols {
				dst[c] = math.Max(0, lv.sq[i]+lv.sq[j]-2*dst[c])
			}
		}
		f.applyTo(dst)
	}
	return out, nil
}

// gather copies the vectors of items into a matrix, each unit normalised
// for LogCosine.
func (p *vectorPairs) gather(items []int) blas64.General {
	lv := p.lv
	m := lv.m
	g := blas64.General{Rows: len(items), Cols: m, Stride: m, Data: make([]float64, len(items)*m)}
	for r, i := range items {
		dst := g.Data[r*m : (r+1)*m]
		copy(dst, lv.row(i))
		if p.q == LogCosine {
			inv := lv.inv[i]
			for k := range dst {
				dst[k] *= inv
			}
		}
	}
	return g
}

// PrepareSplit computes ahead the quantity q between the split's training
// set and itself on each ridge variant, and between its test items and
// the training set when there is one variant. With several, only the
// variant that cross-validation chooses needs its test rows, which are
// then computed when asked for.
func PrepareSplit(s *Split, q Quantity) error {
	vs := s.AllVariants()
	for _, d := range vs {
		p, err := s.Pairs(d, q)
		if err != nil {
			return err
		}
		rows := s.Train
		if len(vs) == 1 {
			rows = append(slices.Clip(s.Train), s.Test...)
		}
		if err := p.Prepare(rows); err != nil {
			return err
		}
	}
	return nil
}

// splitPairsKey identifies a split's Pairs: one per ridge variant and
// quantity.
type splitPairsKey struct {
	d *Data
	q Quantity
}

// Pairs returns d.Pairs(q, s.Train) for one of the split's ridge variants
// d, and keeps it for the split's lifetime: however many splits run at
// once, the Data's bounded cache never makes a split in progress compute
// its divergences twice. Methods ask their split rather than the Data.
func (s *Split) Pairs(d *Data, q Quantity) (Pairs, error) {
	s.pairsMu.Lock()
	defer s.pairsMu.Unlock()
	k := splitPairsKey{d, q}
	if p, ok := s.pairs[k]; ok {
		return p, nil
	}
	p, err := d.Pairs(q, s.Train)
	if err != nil {
		return nil, err
	}
	if s.pairs == nil {
		s.pairs = map[splitPairsKey]Pairs{}
	}
	s.pairs[k] = p
	return p, nil
}
