package classify

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// steinView is the Stein divergences to a subset of a steinPairs'
// training set (a cross-validation fold of it): the same values, which
// the steinPairs computes once for all its subsets. Its blocks' columns
// must be in the subset.
type steinView struct {
	p     *steinPairs
	train []int
	in    []bool // whether each item of the Data is in train
}

// restrict returns the divergences to train ⊆ p's training set as a view
// of p; an error names an item of train that p's is without.
func (p *steinPairs) restrict(train []int) (Pairs, error) {
	v := &steinView{p: p, train: train, in: make([]bool, len(p.pos))}
	for _, j := range train {
		if j < 0 || j >= len(p.pos) || p.pos[j] < 0 {
			return nil, fmt.Errorf("Stein divergences: training item %d is not in the training set of %d items", j, len(p.train))
		}
		if v.in[j] {
			return nil, fmt.Errorf("training item %d listed twice", j)
		}
		v.in[j] = true
	}
	return v, nil
}

// columns checks that the items of cols are in v's training set.
func (v *steinView) columns(cols []int) error {
	for _, j := range cols {
		if j < 0 || j >= len(v.in) || !v.in[j] {
			return fmt.Errorf("Stein divergences: column item %d is not in the training set", j)
		}
	}
	return nil
}

// Prepare computes the divergences of rows to the whole training set of
// the steinPairs that v views.
func (v *steinView) Prepare(ctx context.Context, rows []int) error { return v.p.Prepare(ctx, rows) }

// Block returns f of the divergences between rows and cols ⊆ v's
// training set.
func (v *steinView) Block(ctx context.Context, rows, cols []int, f Map) (*mat.Dense, error) {
	return newBlock(ctx, v, rows, cols, f)
}

// BlockTo writes Block's values into dst, the steinPairs' own.
func (v *steinView) BlockTo(ctx context.Context, dst *mat.Dense, rows, cols []int, f Map) error {
	if err := v.columns(cols); err != nil {
		return err
	}
	return v.p.BlockTo(ctx, dst, rows, cols, f)
}
