package classify

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Folds splits items into n stratified folds: each class's items, shuffled
// by the seed, are dealt round-robin, so every fold holds about 1/n of each
// class. It returns the test indices of each fold.
func Folds(labels, items []int, n int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0x464f4c44)) // "FOLD"
	out := make([][]int, n)
	groups := ByClass(labels, items)
	offset := 0
	for _, c := range SortedKeys(groups) {
		g := groups[c]
		perm := rng.Perm(len(g))
		for p, j := range perm {
			f := (offset + p) % n
			out[f] = append(out[f], g[j])
		}
		offset += len(g)
	}
	for _, f := range out {
		slices.Sort(f)
	}
	return out
}

// GroupFolds splits items into folds that keep each group whole, group
// g(i) for item i: scikit-learn's GroupKFold, for choices that must
// transfer to groups not seen in training (FERET's poses, a camera, a
// sequence). The groups, in an order shuffled by seed, are sorted by size,
// largest first (a stable sort, so the shuffle breaks ties), and each goes
// to the fold holding fewest items so far (ties to the lowest). With n
// groups or fewer each fold is one group: leave one group out. It returns
// the test indices of each fold and the groups' names, fold by fold.
func GroupFolds(items []int, n int, seed uint64, g func(i int) string) (folds [][]int, names [][]string) {
	byGroup := map[string][]int{}
	for _, i := range items {
		byGroup[g(i)] = append(byGroup[g(i)], i)
	}
	keys := make([]string, 0, len(byGroup))
	for k := range byGroup {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rng := rand.New(rand.NewPCG(seed, 0x47524f55)) // "GROU"
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(len(byGroup[b]), len(byGroup[a])) })
	n = min(n, len(keys))
	folds, names = make([][]int, n), make([][]string, n)
	for _, k := range keys {
		f := 0
		for j := range folds {
			if len(folds[j]) < len(folds[f]) {
				f = j
			}
		}
		folds[f] = append(folds[f], byGroup[k]...)
		names[f] = append(names[f], k)
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, names
}

// ValidationFolds returns the n validation folds of items of d that
// cross-validation holds out in turn: stratified by class (Folds) when by
// is empty, otherwise the groups of the metadata key by (GroupFolds;
// Split.FoldsBy, a config's folds_by), n of them or one per group when
// there are fewer. It returns an error naming the key when an item lacks
// it or when the items form a single group.
func (d *Data) ValidationFolds(items []int, n int, seed uint64, by string) ([][]int, error) {
	if by == "" {
		return Folds(d.Labels, items, n, seed), nil
	}
	for _, i := range items {
		if _, ok := d.ItemMeta(i)[by]; !ok {
			return nil, fmt.Errorf("folds by %q: item %d has no %q (its metadata: %s); give folds_by a key that every item has (a manifest column, FERET's pose, a re-id camera)", by, i, by, metaKeys(d.ItemMeta(i)))
		}
	}
	folds, names := GroupFolds(items, n, seed, func(i int) string { return d.ItemMeta(i)[by] })
	if len(folds) < 2 {
		return nil, fmt.Errorf("folds by %q: the %d training items form %d groups (%s): want two or more to hold one out", by, len(items), len(folds), strings.Join(slices.Concat(names...), ", "))
	}
	return folds, nil
}

func metaKeys(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
