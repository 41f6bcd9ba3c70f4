package experiment

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/covpipe/covpipe/classify"
)

// randomSplitTask draws k random training items per class from the data's
// dataset in every repeat; the rest test.
type randomSplitTask struct {
	datasetTask `yaml:",inline"`
	Split       SplitConfig `yaml:"split" json:"split"`
	allButOne   bool        // split.short_classes, resolved
}

func (p *randomSplitTask) check() error {
	if p.Split.TrainPerClass < 1 {
		return errors.New("split: train_per_class must be >= 1 (or give by: a metadata key)")
	}
	var err error
	p.allButOne, err = p.Split.allButOne()
	return err
}

func (p *randomSplitTask) drawer(e *engine, ti int, ds dataset) (*drawer, error) {
	return randomDrawer(e, ti, ds, p.Split.TrainPerClass, p.allButOne, nil)
}

// shortClassesAllButOne is the value of split.short_classes that trains
// a class of train_per_class items or fewer on all its items but one.
const shortClassesAllButOne = "train-all-but-one"

// allButOne reports whether the split trains a class of TrainPerClass
// items or fewer on all its items but one (ShortClasses), rather than
// refusing it; an error for a value of ShortClasses it does not know. The
// protocols call it once, when the experiment loads.
func (s SplitConfig) allButOne() (bool, error) {
	switch s.ShortClasses {
	case "":
		return false, nil
	case shortClassesAllButOne:
		return true, nil
	}
	return false, fmt.Errorf("split: short_classes %q, want %s (or no short_classes: such classes are an error)", s.ShortClasses, shortClassesAllButOne)
}

// randomDrawer draws k training items per class of ds per repeat. Unless
// allButOne, a class of k items or fewer, which would leave nothing to
// test, is an error naming it and its size.
func randomDrawer(e *engine, ti int, ds dataset, k int, allButOne bool, notes []string) (*drawer, error) {
	if !allButOne {
		if err := checkClassSizes(ds.data, ds.all, k); err != nil {
			return nil, err
		}
	}
	return ds.drawer(notes, func(r int) (*instance, error) {
		in := &instance{split: ds.split()}
		var short []string
		in.split.Train, in.split.Test, short = perClassSplit(ds.data, ds.all, k, e.seed(ti, r))
		if len(short) > 0 {
			in.notes = append(in.notes, fmt.Sprintf("%d classes with too few items for %d training items: %s", len(short), k, short[0]))
		}
		return in, nil
	}), nil
}

// checkClassSizes returns an error naming the smallest class of d's items
// that has k items or fewer, and how many such classes there are: k of
// them for training would leave it nothing to test on.
func checkClassSizes(d *classify.Data, items []int, k int) error {
	groups := classify.ByClass(d.Labels, items)
	short, smallest := 0, -1
	for _, c := range classify.SortedKeys(groups) {
		if n := len(groups[c]); n <= k {
			short++
			if smallest < 0 || n < len(groups[smallest]) {
				smallest = c
			}
		}
	}
	if short == 0 {
		return nil
	}
	which := fmt.Sprintf("class %s has %d items", className(d, smallest), len(groups[smallest]))
	if short > 1 {
		which = fmt.Sprintf("%d classes have %d or fewer (the smallest, %s, has %d)", short, k, className(d, smallest), len(groups[smallest]))
	}
	return fmt.Errorf("split: train_per_class is %d but %s, which would leave nothing to test on: lower train_per_class, or add short_classes: %s to the split to train such classes on all their items but one",
		k, which, shortClassesAllButOne)
}

// perClassSplit picks k random training items per class from items and
// leaves the rest for testing. A class with k or fewer items trains on all
// but one (at least one test item per class), and reports it in short,
// naming the class; a class with a single item is left out. The choice
// depends on the seed only; train and test come out in ascending order.
func perClassSplit(d *classify.Data, items []int, k int, seed uint64) (train, test []int, short []string) {
	rng := rand.New(rand.NewPCG(seed, 0x53504c4954)) // "SPLIT"
	groups := classify.ByClass(d.Labels, items)
	for _, c := range classify.SortedKeys(groups) {
		g := groups[c]
		if len(g) < 2 {
			short = append(short, fmt.Sprintf("class %s has %d item(s): left out", className(d, c), len(g)))
			continue
		}
		n := k
		if len(g) <= k {
			n = len(g) - 1
			short = append(short, fmt.Sprintf("class %s has %d items: %d for training", className(d, c), len(g), n))
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

// className names label l for messages.
func className(d *classify.Data, l int) string {
	if l >= 0 && l < len(d.Classes) {
		return fmt.Sprintf("%q", d.Classes[l])
	}
	return fmt.Sprint(l)
}

// groupSplitTask trains each class on the items of one randomly chosen
// value of a metadata key (a camera) and tests on its other values: the
// cross-camera re-identification protocol.
type groupSplitTask struct {
	datasetTask `yaml:",inline"`
	Split       SplitConfig `yaml:"split" json:"split"`
}

func (p *groupSplitTask) check() error {
	if p.Split.By == "" {
		return errors.New("split: by names a metadata key, e.g. camera")
	}
	if p.Split.TrainPerClass < 0 {
		return fmt.Errorf("split: train_per_class = %d, want >= 0 (0: every item of the chosen %s)", p.Split.TrainPerClass, p.Split.By)
	}
	if p.Split.ShortClasses != "" {
		return fmt.Errorf("split: short_classes applies to a random split, not to one by %s", p.Split.By)
	}
	return nil
}

func (p *groupSplitTask) drawer(e *engine, ti int, ds dataset) (*drawer, error) {
	group := make([]string, ds.data.Set.Len())
	for i := range group {
		v, ok := ds.data.ItemMeta(i)[p.Split.By]
		if !ok {
			return nil, fmt.Errorf("split by %q: item %d has no such metadata (keys: %v)", p.Split.By, i, keysOf(ds.data.ItemMeta(i)))
		}
		group[i] = v
	}
	return ds.drawer(nil, func(r int) (*instance, error) {
		in := &instance{split: ds.split()}
		var skipped int
		in.split.Train, in.split.Test, skipped = groupSplit(ds.data.Labels, ds.all, group, p.Split.TrainPerClass, e.seed(ti, r))
		if skipped > 0 {
			in.notes = append(in.notes, fmt.Sprintf("%d classes seen in one %s only left out", skipped, p.Split.By))
		}
		return in, nil
	}), nil
}

// groupSplit trains, for each class, on the items of one randomly chosen
// group (e.g. camera) and tests on the class's items from its other groups;
// classes seen in one group only are left out (counted in skipped). At most
// k training items are kept from the chosen group when k > 0.
func groupSplit(labels, items []int, group []string, k int, seed uint64) (train, test []int, skipped int) {
	rng := rand.New(rand.NewPCG(seed, 0x47524f5550)) // "GROUP"
	groups := classify.ByClass(labels, items)
	for _, c := range classify.SortedKeys(groups) {
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
