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

// FoldGroups says which items validation folds keep together
// (Data.ValidationFolds): the zero value none, stratified folds by class.
type FoldGroups struct {
	// Key is the item metadata key (Data.Meta) whose values are the
	// groups: FERET's pose, a re-identification camera or tracklet, a
	// manifest column; "" for stratified folds.
	Key string
	// WithinClass makes the groups those of Key inside each class (a
	// person's tracklets), dealt class by class, so that a class keeps
	// some of its groups in every fold's training part; otherwise the
	// groups are Key's values across classes (a pose held out of every
	// subject: GroupFolds).
	WithinClass bool
}

// NewFoldGroups returns the groups of an experiment file's folds_by and
// folds_within keys (covpipe fit's --folds-by and --folds-within): by's
// across classes, within's within each class, none for both empty. It
// returns an error naming both when both are set.
func NewFoldGroups(by, within string) (FoldGroups, error) {
	switch {
	case by != "" && within != "":
		return FoldGroups{}, fmt.Errorf("folds_by %s and folds_within %s: give one (folds_by holds groups out of every class, folds_within within each class)", by, within)
	case within != "":
		return FoldGroups{Key: within, WithinClass: true}, nil
	}
	return FoldGroups{Key: by}, nil
}

// String returns the groups as an experiment file gives them:
// "folds_by: KEY" or "folds_within: KEY", "" for none.
func (g FoldGroups) String() string {
	switch {
	case g.Key == "":
		return ""
	case g.WithinClass:
		return "folds_within: " + g.Key
	}
	return "folds_by: " + g.Key
}

// ClassGroupFolds splits items into n folds by class and, inside each
// class, by group g(i) (a person's tracklets): each class's groups, in an
// order shuffled by seed, are dealt round the folds, continuing from the
// fold where the previous class stopped, so that a class with k groups is
// held out, one group at a time, in min(k, n) folds and keeps its other
// groups for training. A class whose items form one group is never held
// out: with no other group to train on, its validation would measure a
// class missing from training. It returns the test indices of each fold.
func ClassGroupFolds(labels, items []int, n int, seed uint64, g func(i int) string) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0x43475250)) // "CGRP"
	out := make([][]int, n)
	classes := ByClass(labels, items)
	next := 0
	for _, c := range SortedKeys(classes) {
		byGroup := map[string][]int{}
		for _, i := range classes[c] {
			byGroup[g(i)] = append(byGroup[g(i)], i)
		}
		if len(byGroup) < 2 {
			continue
		}
		keys := make([]string, 0, len(byGroup))
		for k := range byGroup {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		for _, k := range keys {
			out[next] = append(out[next], byGroup[k]...)
			next = (next + 1) % n
		}
	}
	for _, f := range out {
		slices.Sort(f)
	}
	return out
}

// ValidationFolds returns the n validation folds of items of d that
// cross-validation holds out in turn: stratified by class (Folds) for the
// zero FoldGroups, otherwise the groups of the metadata key by.Key
// (Split.FoldsBy, a config's folds_by or folds_within): across classes
// (GroupFolds), n folds or one per group when there are fewer, or within
// each class (ClassGroupFolds), or, when no class has two groups (a
// choice nested in a fold that held out each class's other group), the
// stratified folds. It returns an error naming the key when an item
// lacks it or, across classes, when the items form a single group.
func (d *Data) ValidationFolds(items []int, n int, seed uint64, by FoldGroups) ([][]int, error) {
	if by.Key == "" {
		return Folds(d.Labels, items, n, seed), nil
	}
	key := by.Key
	for _, i := range items {
		if _, ok := d.ItemMeta(i)[key]; !ok {
			return nil, fmt.Errorf("%s: item %d has no %q (its metadata: %s); give a key that every item has (a manifest column, FERET's pose, a re-id camera or tracklet)", by, i, key, metaKeys(d.ItemMeta(i)))
		}
	}
	group := func(i int) string { return d.ItemMeta(i)[key] }
	if by.WithinClass {
		folds := ClassGroupFolds(d.Labels, items, n, seed, group)
		if !slices.ContainsFunc(folds, func(f []int) bool { return len(f) > 0 }) {
			return Folds(d.Labels, items, n, seed), nil
		}
		return folds, nil
	}
	folds, names := GroupFolds(items, n, seed, group)
	if len(folds) < 2 {
		return nil, fmt.Errorf("%s: the %d training items form %d groups (%s): want two or more to hold one out", by, len(items), len(folds), strings.Join(slices.Concat(names...), ", "))
	}
	return folds, nil
}

// heldOut returns the number of items that folds hold out: every
// training item once for stratified and group folds, fewer within
// classes (ClassGroupFolds never holds out a class of one group).
func heldOut(folds [][]int) int {
	n := 0
	for _, f := range folds {
		n += len(f)
	}
	return n
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
