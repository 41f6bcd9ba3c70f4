package experiment

import (
	"errors"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/classify"
)

// selectorsTask is a fixed split of the data's dataset by metadata, e.g.
// train on FERET poses ba, bj, bk and test on bg. Test items of classes
// absent from training are left out (they cannot be recognised).
type selectorsTask struct {
	datasetTask `yaml:",inline"`
	Train       Selector `yaml:"train" json:"train"`
	Test        Selector `yaml:"test" json:"test"`
}

func (p *selectorsTask) check() error {
	if p.Train == nil || p.Test == nil {
		return errors.New("give both train and test selectors")
	}
	return nil
}

func (p *selectorsTask) drawer(_ *engine, _ int, ds dataset) (*drawer, error) {
	data := ds.data
	train, err := selectItems(data, ds.all, p.Train)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	test, err := selectItems(data, ds.all, p.Test)
	if err != nil {
		return nil, fmt.Errorf("test: %w", err)
	}
	var notes []string
	seen := map[int]bool{}
	for _, i := range train {
		seen[data.Labels[i]] = true
	}
	kept := test[:0:0]
	for _, i := range test {
		if seen[data.Labels[i]] {
			kept = append(kept, i)
		}
	}
	if n := len(test) - len(kept); n > 0 {
		notes = append(notes, fmt.Sprintf("%d test items of classes absent from training left out", n))
	}
	if len(train) == 0 {
		return nil, fmt.Errorf("the train selector %v matches no item", p.Train)
	}
	if len(test) == 0 {
		return nil, fmt.Errorf("the test selector %v matches no item", p.Test)
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("the %d test items are all of classes absent from training", len(test))
	}
	return ds.drawer(notes, func(int) (*instance, error) {
		s := ds.split()
		s.Train, s.Test = train, kept
		return &instance{split: s}, nil
	}), nil
}

// selectItems returns the items whose metadata matches every key of sel.
func selectItems(d *classify.Data, items []int, sel Selector) ([]int, error) {
	var out []int
	for _, i := range items {
		ok := true
		for k, vals := range sel {
			v, has := d.ItemMeta(i)[k]
			if !has {
				return nil, fmt.Errorf("selector key %q: items have no such metadata (keys: %v)", k, keysOf(d.ItemMeta(i)))
			}
			if !slices.Contains(vals, v) {
				ok = false
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out, nil
}
