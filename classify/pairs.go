package classify

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Quantity is a symmetric pairwise quantity between the items of a Data,
// which methods read in blocks (Pairs) and kernels map to kernel values
// (Kernel). Each quantity is a small comparable type in its own file that
// knows how to compute its blocks, keeping in the Data what it computes
// once (dataState): Stein, LogEuclideanSq, LogCosine. Quantities are
// compared with == (they key the caches of Data and Split).
type Quantity interface {
	// String names the quantity in messages.
	String() string
	// NewPairs returns the quantity between the items of d (rows) and
	// those of the non-empty training set train (columns). Methods ask
	// through Split.Pairs, which calls it once per split, ridge variant
	// and quantity.
	NewPairs(d *Data, train []int) (Pairs, error)
}

// Pairs gives blocks of a pairwise quantity between any items of a Data
// (rows) and the items of one training set (columns). Methods ask for the
// training set against itself, folds of it, and the test items in blocks
// (ForBlocks), so that no method needs the n×n matrix over all items:
// memory is O(n_train·n) at most, whatever the size of the test set.
//
// Block, BlockTo and Prepare may compute quantities they do not keep yet;
// they look at ctx between rows of them, and once it is cancelled return
// an error wrapping ctx.Err() (and keep nothing of the rows they did not
// finish).
type Pairs interface {
	// Block returns the |rows|×|cols| matrix of f(P(rows[a], cols[b])),
	// f = Identity for the quantity itself. Every item of cols must be in
	// the training set the Pairs was made for.
	Block(ctx context.Context, rows, cols []int, f Map) (*mat.Dense, error)
	// BlockTo writes Block's values into dst, which must be
	// |rows|×|cols|, so that callers that go through many blocks
	// (ForBlocks with a Scratch) reuse one buffer.
	BlockTo(ctx context.Context, dst *mat.Dense, rows, cols []int, f Map) error
	// Prepare computes ahead what Block will need for these rows, so that
	// the engine can time it as its own stage.
	Prepare(ctx context.Context, rows []int) error
}

// Pairs returns the quantity q between the Data's items and those of
// train (q.NewPairs). Methods ask through Split.Pairs, which keeps the
// result while the split is in use.
func (d *Data) Pairs(q Quantity, train []int) (Pairs, error) {
	if len(train) == 0 {
		return nil, fmt.Errorf("%v: empty training set", q)
	}
	return q.NewPairs(d, train)
}

// newBlock is the Block of a Pairs: its BlockTo into a new matrix. An
// empty block still goes through BlockTo, which checks the items (and
// computes a steinPairs' rows).
func newBlock(ctx context.Context, p Pairs, rows, cols []int, f Map) (*mat.Dense, error) {
	out := &mat.Dense{}
	if len(rows) > 0 && len(cols) > 0 {
		out = mat.NewDense(len(rows), len(cols), nil)
	}
	if err := p.BlockTo(ctx, out, rows, cols, f); err != nil {
		return nil, err
	}
	return out, nil
}

// checkDims checks that dst is |rows|×|cols|.
func checkDims(dst *mat.Dense, rows, cols []int) error {
	if r, c := dst.Dims(); r != len(rows) || c != len(cols) {
		return fmt.Errorf("block of %d×%d items into a %d×%d matrix", len(rows), len(cols), r, c)
	}
	return nil
}

// PrepareSplit computes ahead the quantity q between the split's training
// set and itself on each ridge variant, and between its test items and
// the training set when there is one variant. With several, only the
// variant that cross-validation chooses needs its test rows, which are
// then computed when asked for. Once ctx is cancelled it returns an error
// wrapping ctx.Err() within a few rows (see Pairs).
func PrepareSplit(ctx context.Context, s *Split, q Quantity) error {
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
		if err := p.Prepare(ctx, rows); err != nil {
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

// Pairs returns d.Pairs(q, s.Train) for one of the split's ridge
// variants d, kept for the split's lifetime; it is the Pairs of the
// split's Fitting.
func (s *Split) Pairs(d *Data, q Quantity) (Pairs, error) {
	return s.pairs.Do(splitPairsKey{d, q}, func() (Pairs, error) { return pairsWithin(s.within, d, q, s.Train) })
}
