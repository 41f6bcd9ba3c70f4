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
	// BlockTo writes Block's values into dst, which must be
	// |rows|×|cols|, so that callers that go through many blocks
	// (ForBlocks with a Scratch) reuse one buffer.
	BlockTo(dst *mat.Dense, rows, cols []int, f Map) error
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
// between the block and train. With a nil Scratch each block is a new
// matrix that fn may keep; with one, the blocks are lent by it and are
// valid only until fn returns, so that a method's many small blocks
// (cross-validation folds, repeats) reuse the same few buffers.
func ForBlocks(p Pairs, test, train []int, f Map, s *Scratch, fn func(off int, k *mat.Dense) error) error {
	for off := 0; off < len(test); off += BlockSize {
		block := test[off:min(len(test), off+BlockSize)]
		k, err := s.Block(p, block, train, f)
		if err != nil {
			return err
		}
		err = fn(off, k)
		s.Release(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// Scratch lends the buffers of kernel blocks (ForBlocks, Block) to the
// calls of one method, which run concurrently on several splits and
// cross-validation folds, and takes them back, so that the method
// allocates a buffer per concurrent call rather than per block. It keeps
// no more buffers than were ever in use at once, each at most
// BlockSize×n_train values. The zero value is ready; a nil *Scratch lends
// nothing and every block is a new matrix. Scratch is safe for concurrent
// use.
type Scratch struct {
	mu   sync.Mutex
	free [][]float64
}

// Block returns p's block of rows×cols, f applied, in a buffer lent by s:
// the caller gives it back by Release once it no longer reads it. With a
// nil s it is p.Block.
func (s *Scratch) Block(p Pairs, rows, cols []int, f Map) (*mat.Dense, error) {
	if s == nil || len(rows) == 0 || len(cols) == 0 {
		return p.Block(rows, cols, f)
	}
	k := mat.NewDense(len(rows), len(cols), s.get(len(rows)*len(cols)))
	if err := p.BlockTo(k, rows, cols, f); err != nil {
		s.Release(k)
		return nil, err
	}
	return k, nil
}

// Release takes back the buffer of a block that s.Block lent. It does
// nothing for a nil s or an empty k.
func (s *Scratch) Release(k *mat.Dense) {
	if s == nil || k == nil || k.IsEmpty() {
		return
	}
	buf := k.RawMatrix().Data
	s.mu.Lock()
	s.free = append(s.free, buf[:0])
	s.mu.Unlock()
}

// get returns a buffer of n values, a free one when one is large enough;
// otherwise a new one replaces the last free one (too small to keep).
func (s *Scratch) get(n int) []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.free {
		if cap(b) >= n {
			last := len(s.free) - 1
			s.free[i], s.free[last] = s.free[last], nil
			s.free = s.free[:last]
			return b[:n]
		}
	}
	if last := len(s.free) - 1; last >= 0 {
		s.free[last] = nil
		s.free = s.free[:last]
	}
	return make([]float64, n)
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

// TrainKernel returns f of the pairwise quantity between the training set
// that p was made for and itself, as a symmetric matrix that p shares
// (callers must not modify it), and the positions in it of items, which
// must be in that training set; nil and no error when p keeps no such
// matrix (it computes every block). A method whose cross-validation
// folds are subsets of the training set reads them all from it, instead
// of copying out a fold's block (Block) that it only reads.
func TrainKernel(p Pairs, items []int, f Map) (*mat.SymDense, []int, error) {
	sp, ok := p.(*steinPairs)
	if !ok {
		return nil, nil, nil
	}
	pos := make([]int, len(items))
	for a, j := range items {
		if j < 0 || j >= len(sp.pos) || sp.pos[j] < 0 {
			return nil, nil, fmt.Errorf("Stein divergences: item %d is not in the training set", j)
		}
		pos[a] = int(sp.pos[j])
	}
	kt, err := sp.trainKernel(f)
	if err != nil {
		return nil, nil, err
	}
	return mat.NewSymDense(len(sp.train), kt), pos, nil
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
	return newBlock(p, rows, cols, f)
}

// newBlock is the Block of a Pairs: its BlockTo into a new matrix. An
// empty block still goes through BlockTo, which checks the items (and
// computes a steinPairs' rows).
func newBlock(p Pairs, rows, cols []int, f Map) (*mat.Dense, error) {
	out := &mat.Dense{}
	if len(rows) > 0 && len(cols) > 0 {
		out = mat.NewDense(len(rows), len(cols), nil)
	}
	if err := p.BlockTo(out, rows, cols, f); err != nil {
		return nil, err
	}
	return out, nil
}

// BlockTo writes Block's values into dst.
func (p *steinPairs) BlockTo(dst *mat.Dense, rows, cols []int, f Map) error {
	for _, j := range cols {
		if j < 0 || j >= len(p.pos) || p.pos[j] < 0 {
			return fmt.Errorf("Stein divergences: column item %d is not in the training set", j)
		}
	}
	if err := p.Prepare(rows); err != nil {
		return err
	}
	if len(rows) == 0 || len(cols) == 0 {
		return nil
	}
	if err := checkDims(dst, rows, cols); err != nil {
		return err
	}
	// Rows, once computed, never change: hold the lock only to look them
	// up, so that concurrent blocks (cross-validation folds) apply f in
	// parallel.
	inTrain := false
	p.mu.Lock()
	for _, i := range rows {
		if p.pos[i] >= 0 {
			inTrain = true
			break
		}
	}
	p.mu.Unlock()
	var kt []float64
	if inTrain {
		var err error
		if kt, err = p.trainKernel(f); err != nil {
			return err
		}
	}
	m := len(p.train)
	// The columns are train itself (gather copies whole rows) unless some
	// column is out of its place.
	whole := len(cols) == m
	for b, j := range cols {
		if int(p.pos[j]) != b {
			whole = false
			break
		}
	}
	raw := dst.RawMatrix()
	for a, i := range rows {
		out := raw.Data[a*raw.Stride : a*raw.Stride+len(cols)]
		var src []float64
		if r := int(p.pos[i]); r >= 0 {
			src = kt[r*m : (r+1)*m]
		} else {
			p.mu.Lock()
			src = p.rows[i]
			p.mu.Unlock()
		}
		if whole {
			copy(out, src)
		} else {
			for b, j := range cols {
				out[b] = src[p.pos[j]]
			}
		}
		if r := int(p.pos[i]); r < 0 {
			f.applyTo(out)
		}
	}
	return nil
}

// checkDims checks that dst is |rows|×|cols|.
func checkDims(dst *mat.Dense, rows, cols []int) error {
	if r, c := dst.Dims(); r != len(rows) || c != len(cols) {
		return fmt.Errorf("block of %d×%d items into a %d×%d matrix", len(rows), len(cols), r, c)
	}
	return nil
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
	return newBlock(p, rows, cols, f)
}

// BlockTo writes Block's values into dst: one matrix product.
func (p *vectorPairs) BlockTo(dst *mat.Dense, rows, cols []int, f Map) error {
	if len(rows) == 0 || len(cols) == 0 {
		return nil
	}
	if err := checkDims(dst, rows, cols); err != nil {
		return err
	}
	lv := p.lv
	n := lv.n
	for _, items := range [][]int{rows, cols} {
		for _, i := range items {
			if i < 0 || i >= n {
				return fmt.Errorf("%v: item %d out of range [0, %d)", p.q, i, n)
			}
			if p.q == LogCosine && !(lv.sq[i] > 0) {
				return fmt.Errorf("log of matrix %d is zero: cannot normalise", i)
			}
		}
	}
	a, b := p.gather(rows), p.gather(cols)
	raw := dst.RawMatrix()
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, raw)
	for r, i := range rows {
		out := raw.Data[r*raw.Stride : r*raw.Stride+len(cols)]
		if p.q == LogEuclideanSq {
			for c, j := range cols {
				out[c] = math.Max(0, lv.sq[i]+lv.sq[j]-2*out[c])
			}
		}
		f.applyTo(out)
	}
	return nil
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
