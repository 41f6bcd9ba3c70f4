package classify

import (
	"context"
	"sync"

	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas/blas64"
)

// trainGram holds the products v_aᵀv_b of a training set's item vectors
// (scaled to unit length for LogCosine), which the blocks of its
// cross-validation folds, candidates and methods take instead of a
// matrix product each. They are computed once, one triangle, as gonum's
// Dgemm sums a product of more than gemmSerialBlocks blocks: the dot
// products of consecutive runs of gemmBlock values added up in order
// (gemmDot), so that a block taken from them is bit for bit the product
// it replaces; a block that Dgemm would compute in one run per entry is
// still its product.
type trainGram struct {
	train []int
	pos   []int32 // position in train of each item, −1 if not in it

	mu  sync.Mutex
	tri []float64 // products of train[a], train[b], a ≤ b, row after row; nil until computed
}

// gemmBlock and gemmSerialBlocks are gonum's Dgemm's block size and the
// fewest blocks of a product that it splits into blocks, each entry then
// the sum of dot products of gemmBlock-long runs (blas/gonum: blockSize,
// minParBlock).
const (
	gemmBlock        = 64
	gemmSerialBlocks = 4
)

// gemmBlocked reports whether Dgemm computes an r×c product in blocks.
func gemmBlocked(r, c int) bool {
	return ((r+gemmBlock-1)/gemmBlock)*((c+gemmBlock-1)/gemmBlock) >= gemmSerialBlocks
}

// gemmDot returns xᵀy as a blocked Dgemm computes an entry: the dot
// products of the runs of gemmBlock values, added in order.
func gemmDot(x, y []float64) float64 {
	var s float64
	for k := 0; k < len(x); k += gemmBlock {
		e := min(len(x), k+gemmBlock)
		s += blas64.Dot(blas64.Vector{N: e - k, Inc: 1, Data: x[k:e]}, blas64.Vector{N: e - k, Inc: 1, Data: y[k:e]})
	}
	return s
}

// gramKey keys a Data's training-set products, per normalisation.
type gramKey struct{ unit bool }

// trainGrams returns d's products of recent training sets for vectors
// scaled to unit length or not, keeping keptTrainingSets of them as the
// Stein divergences are kept.
func trainGrams(d *Data, unit bool) (*once.Cache[uint64, *trainGram], error) {
	return dataState(d, gramKey{unit}, func() (*once.Cache[uint64, *trainGram], error) {
		return &once.Cache[uint64, *trainGram]{Max: keptTrainingSets}, nil
	})
}

// gramOf returns the products of train's vectors that d keeps (their
// triangle computed when first needed).
func gramOf(d *Data, unit bool, train []int) (*trainGram, error) {
	gs, err := trainGrams(d, unit)
	if err != nil {
		return nil, err
	}
	return gs.Do(hashkey.Ints(train), func() (*trainGram, error) {
		g := &trainGram{train: append([]int(nil), train...), pos: make([]int32, d.Set.Len())}
		for i := range g.pos {
			g.pos[i] = -1
		}
		for a, j := range train {
			if j >= 0 && j < len(g.pos) {
				g.pos[j] = int32(a)
			}
		}
		return g, nil
	})
}

// products returns the triangle of g's products of the vectors of p,
// computing it on workers the first time; a cancelled ctx leaves none.
func (g *trainGram) products(ctx context.Context, p *vectorPairs, workers int) ([]float64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tri != nil {
		return g.tri, nil
	}
	if err := p.lv.ensure(g.train); err != nil {
		return nil, err
	}
	m := len(g.train)
	v := p.gather(g.train)
	tri := make([]float64, m*(m+1)/2)
	err := pool.ForCtx(ctx, m, workers, func(_, a int) error {
		row := tri[triIndex(m, a, a):]
		x := v.Data[a*v.Stride : a*v.Stride+v.Cols]
		for b := a; b < m; b++ {
			row[b-a] = gemmDot(x, v.Data[b*v.Stride:b*v.Stride+v.Cols])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.tri = tri
	return tri, nil
}

// triIndex is the position of (a, b), a ≤ b, in the row-major upper
// triangle of an m×m matrix.
func triIndex(m, a, b int) int { return a*m - a*(a-1)/2 + b - a }

// within reports whether every item of rows and cols is in g's training
// set.
func (g *trainGram) within(rows, cols []int) bool {
	for _, items := range [][]int{rows, cols} {
		for _, i := range items {
			if g.pos[i] < 0 {
				return false
			}
		}
	}
	return true
}

// restrict returns p for the subset train of its training set: its
// products are those of the whole training set, which hold the subset's.
func (p *vectorPairs) restrict([]int) (Pairs, error) { return p, nil }
