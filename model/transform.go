package model

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// Transforms reports whether the model's method maps descriptors to
// feature vectors (classify.Transformer), which TransformSet gives.
func (m *Model) Transforms() bool {
	_, ok := m.fitted.(classify.Transformer)
	return ok
}

// TransformSet returns the feature vectors that the model's method maps
// the matrices of set to, a row per matrix (classify.Transformer): the
// sparse codes against the dictionary of a codes model, with the same
// coder and on the same scale as the model classifies them. It returns
// an error for a model whose method gives no vectors (Transforms), for
// matrices of another size, and for a model that reads the images'
// vectors beside the descriptors.
func (m *Model) TransformSet(ctx context.Context, set *spd.Set, workers int) (*mat.Dense, error) {
	tf, ok := m.fitted.(classify.Transformer)
	if !ok {
		return nil, fmt.Errorf("%s gives no feature vectors, only answers (a model of method codes gives its sparse codes)", m.name())
	}
	if err := m.checkSet(set); err != nil {
		return nil, err
	}
	data, err := m.queries(set, nil, set.Len(), workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	n := len(m.train.Labels)
	x, err := tf.Transform(ctx, &classify.Query{Data: data, Items: classify.Seq(n, n+set.Len()), Workers: workers})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	return x, nil
}
