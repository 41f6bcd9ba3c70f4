package classify

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/symm"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// Stein is the Stein divergence S(X_i, X_j) of the paper's Eqn. 3 (the
// metric spd.SteinMetric); exp(−σ S) is the Stein kernel (Eqn. 5).
//
// Its Pairs compute divergences when first asked for and keep them: the
// training set against itself once (one triangle), and each other item's
// divergences to the training set once, so that all methods and
// cross-validation folds of a split (and the splits of other tasks with
// the same training set, such as FERET's four test poses) share them.
type Stein struct{}

func (Stein) String() string { return "Stein divergence" }

// NewPairs returns the divergences to train, which d keeps for the
// keptTrainingSets most recent training sets.
func (Stein) NewPairs(d *Data, train []int) (Pairs, error) {
	st, err := dataState(d, steinKey{}, newSteinState)
	if err != nil {
		return nil, err
	}
	p, err := st.pairs.Do(hashkey.Ints(train), func() (*steinPairs, error) {
		return newSteinPairs(d, train, &st.entries)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// steinKernel is the paper's Stein kernel k(X, Y) = exp(−σ S(X, Y))
// (Eqn. 5), positive definite for the σ of Theorem 1 (Eqn. 6;
// spd.SteinKernel.Check), σ by default the least of Theorem 1's
// continuous range (spd.DefaultSigma).
func steinKernel() Kernel {
	return Kernel{Metric: spd.SteinMetric, Quantity: Stein{}, Check: func(sigma float64, d int, pseudo bool) error {
		return spd.SteinKernel{Sigma: sigma, Pseudo: pseudo}.Check(d)
	}, DefaultSigma: spd.DefaultSigma}
}

// steinKey keys a Data's steinState.
type steinKey struct{}

// steinState is what a Data keeps of Stein divergences: those of its most
// recent training sets and the count of entries computed.
type steinState struct {
	pairs   once.Cache[uint64, *steinPairs] // by HashInts of the training set
	entries atomic.Int64
}

func newSteinState() (*steinState, error) {
	st := &steinState{}
	st.pairs.Max = keptTrainingSets
	return st, nil
}

// SteinComputations reports how many Stein divergence entries were
// computed, so that tests can prove the reuse.
func (d *Data) SteinComputations() int64 {
	st, _ := dataState(d, steinKey{}, newSteinState)
	return st.entries.Load()
}

// keptTrainingSets bounds the training sets whose Stein divergences a Data
// keeps beyond the splits in progress, which hold their own (Split.Pairs):
// enough for tasks that share one training set (FERET's four test poses).
// Splits drawn at random each have their own training set, which no later
// split asks for: keeping more would only hold n_items × n_train values
// each for the rest of the run. A set dropped here is only recomputed if
// a later split asks for it again.
const keptTrainingSets = 1

// steinPairs holds Stein divergences between a training set T and the
// items of a Data: T×T, computed on first use (one triangle), and the
// divergences of each other item to T, computed when a block first needs
// them. It also keeps T's kernel matrices, exp(−σ S) of T×T for the most
// recent σ, which every cross-validation fold and candidate of a kernel
// method, and every method with that σ, takes its training blocks from.
type steinPairs struct {
	d       *Data
	train   []int
	pos     []int32       // position in train of each item, −1 if not in it
	entries *atomic.Int64 // the Data's count of divergences computed

	ttMu sync.Mutex // held while tt is computed
	tt   []float64  // divergences of T×T, the upper triangle row after row (triIndex); nil until computed

	kernels once.Cache[Map, []float64] // f of tt, row-major, per Map

	mu   sync.Mutex
	rows [][]float64 // divergences to train of each item not in it, once computed
}

// keptKernels bounds the kernel matrices of a training set that a
// steinPairs keeps, n_train² values each: the σ candidates of the shipped
// configs (at most three) all stay.
const keptKernels = 4

func newSteinPairs(d *Data, train []int, entries *atomic.Int64) (*steinPairs, error) {
	n := d.Set.Len()
	p := &steinPairs{d: d, train: append([]int(nil), train...), pos: make([]int32, n), entries: entries, rows: make([][]float64, n)}
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

// trainBlock returns the divergences of the training set to itself, its
// upper triangle row after row (triIndex), which is half the matrix and
// holds each of a row's values from the diagonal on contiguous.
// Concurrent callers wait for the first one's computation; a failed one
// (a cancelled ctx) is not kept, so that a later call computes them
// again.
func (p *steinPairs) trainBlock(ctx context.Context) ([]float64, error) {
	p.ttMu.Lock()
	defer p.ttMu.Unlock()
	if p.tt != nil {
		return p.tt, nil
	}
	s, err := spd.SteinSymBlock(ctx, p.d.Set, p.train, &spd.GramOptions{Workers: p.d.Workers})
	if err != nil {
		return nil, err
	}
	m := len(p.train)
	p.entries.Add(int64(m * (m - 1) / 2))
	raw := s.RawSymmetric()
	tt := make([]float64, m*(m+1)/2)
	for i := range m {
		copy(tt[triIndex(m, i, i):], raw.Data[i*raw.Stride+i:i*raw.Stride+m])
	}
	p.tt = tt
	return tt, nil
}

// trainRow writes row r of the training set's divergences to itself into
// dst (len(train) values): the packed triangle's column r up to the
// diagonal, then its row r.
func trainRow(dst, tt []float64, r int) {
	m := len(dst)
	for b := range r {
		dst[b] = tt[triIndex(m, b, r)]
	}
	copy(dst[r:], tt[triIndex(m, r, r):triIndex(m, r, r)+m-r])
}

// trainKernel returns f of the training set's divergences to itself, both
// triangles, mapping each pair once; f == Identity gives them unmapped,
// a copy that it keeps as it keeps the kernels.
func (p *steinPairs) trainKernel(ctx context.Context, f Map) ([]float64, error) {
	tt, err := p.trainBlock(ctx)
	if err != nil {
		return nil, err
	}
	return p.kernels.Do(f, func() ([]float64, error) {
		m := len(p.train)
		k := make([]float64, m*m)
		for i := range m {
			row := k[i*m+i : (i+1)*m]
			copy(row, tt[triIndex(m, i, i):triIndex(m, i, i)+m-i])
			if f != Identity {
				f.applyTo(row)
			}
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
// of copying out a fold's block (Block) that it only reads. It returns an
// error wrapping ctx.Err() when ctx is cancelled while it computes them.
func TrainKernel(ctx context.Context, p Pairs, items []int, f Map) (*mat.SymDense, []int, error) {
	var sp *steinPairs
	switch p := p.(type) {
	case *steinPairs:
		sp = p
	case *steinView:
		if err := p.columns(items); err != nil {
			return nil, nil, err
		}
		sp = p.p
	default:
		return nil, nil, nil
	}
	pos := make([]int, len(items))
	for a, j := range items {
		if j < 0 || j >= len(sp.pos) || sp.pos[j] < 0 {
			return nil, nil, fmt.Errorf("Stein divergences: item %d is not in the training set", j)
		}
		pos[a] = int(sp.pos[j])
	}
	kt, err := sp.trainKernel(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	return mat.NewSymDense(len(sp.train), kt), pos, nil
}

// Prepare computes the divergences of rows to the training set.
func (p *steinPairs) Prepare(ctx context.Context, rows []int) error {
	var inTrain bool
	var missing []int
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, i := range rows {
		if i < 0 || i >= len(p.pos) {
			return fmt.Errorf("item %d out of range [0, %d)", i, len(p.pos))
		}
		inTrain = inTrain || p.pos[i] >= 0
	}
	if inTrain {
		if _, err := p.trainBlock(ctx); err != nil {
			return err
		}
	}
	// Rows are marked as listed only now, so that an error above leaves
	// none marked but not computed.
	for _, i := range rows {
		if p.pos[i] < 0 && p.rows[i] == nil {
			p.rows[i] = []float64{} // marks i as listed; filled below
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	m := len(p.train)
	out := mat.NewDense(len(missing), m, nil)
	err := spd.SteinBlockTo(ctx, out, p.d.Set, missing, p.d.Set, p.train, &spd.GramOptions{Workers: p.d.Workers})
	if err != nil {
		for _, i := range missing {
			p.rows[i] = nil
		}
		return err
	}
	p.entries.Add(int64(len(missing) * m))
	raw := out.RawMatrix()
	for r, i := range missing {
		p.rows[i] = raw.Data[r*raw.Stride : r*raw.Stride+m : r*raw.Stride+m]
	}
	return nil
}

// Block returns f of the divergences between rows and cols ⊆ train. Rows
// of training items are copied from the training set's kernel matrix
// (trainKernel), which is mapped once; other rows are mapped per block.
func (p *steinPairs) Block(ctx context.Context, rows, cols []int, f Map) (*mat.Dense, error) {
	return newBlock(ctx, p, rows, cols, f)
}

// BlockTo writes Block's values into dst.
func (p *steinPairs) BlockTo(ctx context.Context, dst *mat.Dense, rows, cols []int, f Map) error {
	for _, j := range cols {
		if j < 0 || j >= len(p.pos) || p.pos[j] < 0 {
			return fmt.Errorf("Stein divergences: column item %d is not in the training set", j)
		}
	}
	if err := p.Prepare(ctx, rows); err != nil {
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
	// Training rows come from the kernel matrix of f, or, unmapped, from
	// the divergences' triangle itself (trainRow), which keeps no second
	// copy of them.
	var kt, tt, row []float64
	if inTrain {
		var err error
		if f == Identity {
			if tt, err = p.trainBlock(ctx); err != nil {
				return err
			}
			if !whole {
				row = make([]float64, m)
			}
		} else if kt, err = p.trainKernel(ctx, f); err != nil {
			return err
		}
	}
	raw := dst.RawMatrix()
	for a, i := range rows {
		out := raw.Data[a*raw.Stride : a*raw.Stride+len(cols)]
		var src []float64
		if r := int(p.pos[i]); r >= 0 && tt != nil {
			if whole {
				trainRow(out, tt, r)
				continue
			}
			trainRow(row, tt, r)
			src = row
		} else if r >= 0 {
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
