package experiment

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/covpipe/covpipe/classify"
)

// DictionarySplitConfig partitions each class of the data's dataset, in
// every repeat, into items that train a dictionary (labels unused), probes
// and a labelled gallery: the paper's Table 3 protocol (Section 6.2:
// 20 + 20 + 10 of the 50 blocks of each Brodatz texture).
type DictionarySplitConfig struct {
	// LearnPerClass items of each class train the dictionary.
	LearnPerClass int `yaml:"learn_per_class" json:"learn_per_class"`
	// ProbePerClass items of each class are classified against the
	// gallery of GalleryPerClass labelled items.
	ProbePerClass   int `yaml:"probe_per_class" json:"probe_per_class"`
	GalleryPerClass int `yaml:"gallery_per_class" json:"gallery_per_class"`
	// Atoms is the dictionary size N.
	Atoms int `yaml:"atoms" json:"atoms"`
}

// dictionaryTask draws the Table 3 partition. The partition of repeat r
// depends on the run seed and r only, not on the task, so that tasks that
// differ only in the dictionary size compare dictionaries on the same
// blocks.
type dictionaryTask struct {
	datasetTask `yaml:",inline"`
	Dictionary  DictionarySplitConfig `yaml:"dictionary" json:"dictionary"`
}

// offer adds the dictionary part of the splits to the dataset's offer.
func (p *dictionaryTask) offer() offer {
	o := p.datasetTask.offer()
	o.dictionary = true
	return o
}

func (p *dictionaryTask) check() error {
	c := p.Dictionary
	if c.LearnPerClass < 1 || c.ProbePerClass < 1 || c.GalleryPerClass < 1 {
		return fmt.Errorf("dictionary: learn_per_class, probe_per_class and gallery_per_class must be >= 1 (got %d, %d, %d)",
			c.LearnPerClass, c.ProbePerClass, c.GalleryPerClass)
	}
	if c.Atoms < 1 {
		return errors.New("dictionary: atoms (the dictionary size) must be >= 1")
	}
	return nil
}

func (p *dictionaryTask) drawer(e *engine, _ int, ds dataset) (*drawer, error) {
	c := p.Dictionary
	need := c.LearnPerClass + c.ProbePerClass + c.GalleryPerClass
	groups := classify.ByClass(ds.data.Labels, ds.all)
	for _, l := range classify.SortedKeys(groups) {
		if len(groups[l]) < need {
			return nil, fmt.Errorf("dictionary: class %s has %d items, want at least %d (learn %d + probe %d + gallery %d)",
				className(ds.data, l), len(groups[l]), need, c.LearnPerClass, c.ProbePerClass, c.GalleryPerClass)
		}
	}
	if n := len(groups) * c.LearnPerClass; c.Atoms > n {
		return nil, fmt.Errorf("dictionary: %d atoms from %d learning items", c.Atoms, n)
	}
	return ds.drawer(nil, func(r int) (*instance, error) {
		rng := rand.New(rand.NewPCG(deriveSeed(e.cfg.Seed, 0x44494354, uint64(r)), 0x44494354)) // "DICT"
		dict := &classify.Dictionary{Atoms: c.Atoms}
		s := ds.split()
		s.Dictionary = dict
		for _, l := range classify.SortedKeys(groups) {
			g := groups[l]
			perm := rng.Perm(len(g))
			for k, j := range perm[:need] {
				switch {
				case k < c.LearnPerClass:
					dict.Learn = append(dict.Learn, g[j])
				case k < c.LearnPerClass+c.ProbePerClass:
					s.Test = append(s.Test, g[j])
				default:
					s.Train = append(s.Train, g[j])
				}
			}
		}
		slices.Sort(dict.Learn)
		slices.Sort(s.Test)
		slices.Sort(s.Train)
		return &instance{split: s}, nil
	}), nil
}
