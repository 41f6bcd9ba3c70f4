package appearance

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// RankGallery returns the gallery identities 0, …, n−1 in increasing
// distance(g) from a probe, ties by index, and the distances in that
// order: the ranking whose first k entries decide whether the probe
// counts at rank k of a cumulative matching characteristic (CMC), as the
// re-identification baselines rank. It calls distance once per identity
// and looks at ctx before each call; it returns an error wrapping
// ctx.Err() once ctx is cancelled, or distance's error naming the
// identity.
func RankGallery(ctx context.Context, n int, distance func(g int) (float64, error)) ([]int, []float64, error) {
	dist := make([]float64, n)
	for g := range n {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("ranking: %w", err)
		}
		d, err := distance(g)
		if err != nil {
			return nil, nil, fmt.Errorf("gallery identity %d: %w", g, err)
		}
		dist[g] = d
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(dist[i], dist[j]) })
	sorted := make([]float64, n)
	for i, g := range order {
		sorted[i] = dist[g]
	}
	return order, sorted, nil
}
