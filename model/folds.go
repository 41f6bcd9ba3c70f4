package model

import (
	"errors"
	"fmt"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/memlimit"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/store"
)

// rowMeta returns the metadata of the image of each row, from the
// inputs' listings.
func rowMeta(inputs []*datasets.List, rows []store.Row) ([]map[string]string, error) {
	byRel := make([]map[string]map[string]string, len(inputs))
	for k, l := range inputs {
		byRel[k] = make(map[string]map[string]string, len(l.Items))
		for _, it := range l.Items {
			byRel[k][it.Rel] = it.Meta
		}
	}
	meta := make([]map[string]string, len(rows))
	for i, r := range rows {
		if r.Input < 0 || r.Input >= len(inputs) {
			return nil, fmt.Errorf("model: descriptor %d names input %d of %d", i, r.Input, len(inputs))
		}
		meta[i] = byRel[r.Input][r.Path]
	}
	return meta, nil
}

// groupMeta returns the metadata of n descriptors whose values of key
// are groups (Options.Groups). It returns an error for groups without a
// key, a count that is not n, or an empty group, naming the descriptor.
func groupMeta(key string, groups []string, n int) ([]map[string]string, error) {
	if key == "" {
		return nil, errors.New("model: groups of the descriptors given without folds_by or folds_within (Options.FoldsBy) to say how the folds use them")
	}
	if len(groups) != n {
		return nil, fmt.Errorf("model: %s for %s: want one per descriptor", plural.Of(len(groups), "group"), plural.Of(n, "descriptor"))
	}
	meta := make([]map[string]string, n)
	for i, g := range groups {
		if g == "" {
			return nil, fmt.Errorf("model: descriptor %d has an empty group", i)
		}
		meta[i] = map[string]string{key: g}
	}
	return meta, nil
}

// checkFolds returns an error wrapping describe.ErrMemory, naming folds,
// when folds cross-validation folds of n training items would hold more
// than limit bytes (0: the default): each keeps its training items'
// indices.
func checkFolds(folds, n int, limit int64) error {
	err := memlimit.Check(limit, "model.Options.MaxMemory, covpipe fit --max-memory", memlimit.Estimate{
		Key:   "folds",
		What:  fmt.Sprintf("%s of %s keep their items' indices", plural.Of(folds, "cross-validation fold"), plural.Of(n, "training item")),
		Bytes: float64(folds) * (foldBytes + 8*float64(n)),
	})
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// checkClassFolds returns an error naming the class of fewest training
// items of data when it has fewer than folds: stratified
// cross-validation deals each class round the folds, so such a class
// would be missing from some folds' held-out items and the choice among
// candidates would judge them on the other classes alone. covpipe run
// warns of such a training set instead (its results stay those of the
// configs it ran before).
func checkClassFolds(data *classify.Data, folds int) error {
	label, n := classify.SmallestClass(data.Labels, classify.Seq(0, len(data.Labels)))
	if label < 0 || n >= folds {
		return nil
	}
	remedy := fmt.Sprintf("lower the folds to %d (covpipe fit --folds, Options.Folds) or give more of its images", max(2, n))
	if n < 2 {
		remedy = "give more of its images, or a single candidate of each parameter (no cross-validation)"
	}
	return fmt.Errorf("model: class %q has %s, fewer than the %d cross-validation folds that choose among the candidates, so some folds would hold none of it: %s",
		data.Classes[label], plural.Of(n, "training item"), folds, remedy)
}

// foldGroups returns the groups that r's folds kept together.
func (r *record) foldGroups() classify.FoldGroups {
	g, _ := classify.NewFoldGroups(r.FoldsBy, r.FoldsWithin) // Fit records one of them, Load refuses both
	return g
}

// copiesNotes returns a note on the descriptors of out that are bit for
// bit the same under different labels (classify.MislabelledCopies), none
// when there are none. The regions of one image pair count as one pair.
func copiesNotes(out *store.Output) []string {
	index := map[string]int{}
	labels := make([]int, len(out.Rows))
	for i, r := range out.Rows {
		l, ok := index[r.Label]
		if !ok {
			l = len(index)
			index[r.Label] = l
		}
		labels[i] = l
	}
	pairs, _ := classify.MislabelledCopies(out.Data, out.Meta.Dim, labels, -1)
	name := func(i int) string {
		if r := out.Rows[i]; r.Path != "" {
			return fmt.Sprintf("%s (%s)", r.Path, r.Label)
		}
		return fmt.Sprintf("descriptor %d (%s)", i, out.Rows[i].Label)
	}
	// An image's regions are one image: count its pairs once.
	pairs = classify.DistinctPairs(pairs, name)
	n := len(pairs)
	if n == 0 {
		return nil
	}
	p := pairs[0]
	return []string{fmt.Sprintf("%s of the training descriptors are bit for bit the same under different labels (e.g. %s and %s): the same image under two classes, which no method can tell apart",
		plural.Of(n, "pair"), name(p[0]), name(p[1]))}
}
