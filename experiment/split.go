package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
)

// byClass groups item indices by label, each group in ascending order.
func byClass(labels []int, items []int) map[int][]int {
	g := map[int][]int{}
	for _, i := range items {
		g[labels[i]] = append(g[labels[i]], i)
	}
	return g
}

func sortedKeys(m map[int][]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// perClassSplit picks k random training items per class from items and
// leaves the rest for testing. A class with k or fewer items trains on all
// but one (at least one test item per class), and reports it in short; a
// class with a single item is left out. The choice depends on the seed
// only; train and test come out in ascending index order.
func perClassSplit(labels, items []int, k int, seed uint64) (train, test []int, short []string) {
	rng := rand.New(rand.NewPCG(seed, 0x53504c4954)) // "SPLIT"
	groups := byClass(labels, items)
	for _, c := range sortedKeys(groups) {
		g := groups[c]
		if len(g) < 2 {
			short = append(short, fmt.Sprintf("class %d has %d item(s): left out", c, len(g)))
			continue
		}
		n := k
		if len(g) <= k {
			n = len(g) - 1
			short = append(short, fmt.Sprintf("class %d has %d items: %d for training", c, len(g), n))
		}
		perm := rng.Perm(len(g))
		for p, j := range perm {
			if p < n {
				train = append(train, g[j])
			} else {
				test = append(test, g[j])
			}
		}
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test, short
}

// groupSplit trains, for each class, on the items of one randomly chosen
// group (e.g. camera) and tests on the class's items from its other groups;
// classes seen in one group only are left out (counted in skipped). At most
// k training items are kept from the chosen group when k > 0.
func groupSplit(labels, items []int, group []string, k int, seed uint64) (train, test []int, skipped int) {
	rng := rand.New(rand.NewPCG(seed, 0x47524f5550)) // "GROUP"
	groups := byClass(labels, items)
	for _, c := range sortedKeys(groups) {
		g := groups[c]
		var names []string
		for _, i := range g {
			if !slices.Contains(names, group[i]) {
				names = append(names, group[i])
			}
		}
		if len(names) < 2 {
			skipped++
			continue
		}
		slices.Sort(names)
		pick := names[rng.IntN(len(names))]
		var tr []int
		for _, i := range g {
			if group[i] == pick {
				tr = append(tr, i)
			} else {
				test = append(test, i)
			}
		}
		if k > 0 && len(tr) > k {
			perm := rng.Perm(len(tr))[:k]
			sel := make([]int, k)
			for a, p := range perm {
				sel[a] = tr[p]
			}
			tr = sel
		}
		train = append(train, tr...)
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test, skipped
}

// folds splits items into n stratified folds: each class's items, shuffled
// by the seed, are dealt round-robin, so every fold holds about 1/n of each
// class. It returns the test indices of each fold.
func folds(labels, items []int, n int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0x464f4c44)) // "FOLD"
	out := make([][]int, n)
	groups := byClass(labels, items)
	offset := 0
	for _, c := range sortedKeys(groups) {
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

// without returns items not in drop (both ascending).
func without(items, drop []int) []int {
	out := make([]int, 0, len(items))
	k := 0
	for _, i := range items {
		for k < len(drop) && drop[k] < i {
			k++
		}
		if k < len(drop) && drop[k] == i {
			continue
		}
		out = append(out, i)
	}
	return out
}
