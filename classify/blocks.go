package classify

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

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
// positive (spd.CheckSigma): kernel methods check σ when they load.
func Exp(sigma float64) Map {
	if err := spd.CheckSigma(sigma); err != nil {
		panic(fmt.Sprintf("classify: Exp: %v", err))
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
// (cross-validation folds, repeats) reuse the same few buffers. It
// returns ctx.Err() instead of starting a block once ctx is cancelled, and
// passes ctx to the Pairs (and fn should look at it too).
func ForBlocks(ctx context.Context, p Pairs, test, train []int, f Map, s *Scratch, fn func(off int, k *mat.Dense) error) error {
	for off := 0; off < len(test); off += BlockSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		block := test[off:min(len(test), off+BlockSize)]
		k, err := s.Block(ctx, p, block, train, f)
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
func (s *Scratch) Block(ctx context.Context, p Pairs, rows, cols []int, f Map) (*mat.Dense, error) {
	if s == nil || len(rows) == 0 || len(cols) == 0 {
		return p.Block(ctx, rows, cols, f)
	}
	k := mat.NewDense(len(rows), len(cols), s.get(len(rows)*len(cols)))
	if err := p.BlockTo(ctx, k, rows, cols, f); err != nil {
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
