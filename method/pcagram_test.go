package method

import (
	"context"

	"github.com/covpipe/covpipe/classify"
	"gonum.org/v1/gonum/mat"
)

// pcaGram, the tests' reference, fits PCA on the rows train of x (centred on their mean), keeps
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
