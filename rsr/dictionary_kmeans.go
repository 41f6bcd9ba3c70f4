package rsr

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/spd"
)

// kmeansAtoms returns the centroids of Riemannian k-means on the training
// set (AIRM and Karcher means unless o.KMeansMetric says otherwise):
// Algorithm 1's initialisation by clustering.
func kmeansAtoms(ctx context.Context, train *spd.Set, o DictionaryOptions) (*spd.Set, error) {
	metric := o.KMeansMetric
	if metric == 0 {
		metric = spd.AIRMMetric
	}
	res, err := spd.KMeans(ctx, train, spd.KMeansOptions{K: o.Atoms, Metric: metric, Seed: o.Seed, Workers: max(o.Workers, 0)})
	if err != nil {
		return nil, fmt.Errorf("k-means initialisation: %w", err)
	}
	atoms, err := spd.NewSet(res.Centroids)
	if err != nil {
		return nil, fmt.Errorf("k-means centroids: %w", err)
	}
	return atoms, nil
}
