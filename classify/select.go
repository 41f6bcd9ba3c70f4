package classify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"weak"

	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/pool"
)

// Candidate is one setting of a method's parameters, P, on one of a
// split's ridge variants.
type Candidate[P comparable] struct {
	Variant int
	Params  P
}

// Memo remembers parameter choices, so that tasks sharing a training set
// (FERET's four test poses) share the choice instead of repeating the
// cross-validation, also when they run at the same time (once.Cache). The zero
// value is ready; it is safe for concurrent use.
type Memo[P comparable] struct {
	chosen once.Cache[memoKey, choice[P]]
}

// choice is a candidate that cross-validation chose and its table.
type choice[P comparable] struct {
	c     Candidate[P]
	table *CVTable
}

// memoKey identifies a choice. It holds its Data weakly: a protocol that
// draws new data every repeat (synthetic, 100 repeats) would otherwise
// keep every repeat's Data and its pairwise matrices alive through the
// memo, about 1 GB for Table 1.
type memoKey struct {
	data  weak.Pointer[Data]
	train uint64 // HashInts of the training indices
	folds int
	by    FoldGroups
	seed  uint64
}

// Runner classifies test from train on one Data with parameters p: a
// method's fit on train followed by its prediction of test, which Choose
// calls for the folds of cross-validation, concurrently for the
// candidates and folds, so it must not write variables that other calls
// share; a run's own findings go in its Outcome. A Runner that works
// long should look at the context of the Fit call it belongs to.
type Runner[P comparable] func(d *Data, train, test []int, p P) (*Outcome, error)

// Choose returns the best of a method's parameter settings params,
// crossed with t's ridge variants, and that variant's Data. With one
// candidate in all it simply returns it; otherwise it picks the
// candidate with the best mean accuracy over t.Folds stratified folds of
// the training items, each fold's run fitting on the others (run; ties go
// to the first candidate, the variants outermost). The folds depend on
// the training set and t's seed only, so the choice is remembered in
// memo. The method then fits the chosen candidate on all of t. The
// choice's CVTable (each candidate's fold accuracies, named by its
// String when P has one) goes to t.CV. Once ctx is cancelled it starts
// no more runs and returns ctx.Err().
func Choose[P comparable](ctx context.Context, t *Train, params []P, memo *Memo[P], run Runner[P]) (Candidate[P], *Data, error) {
	data := t.AllVariants()
	var cands []Candidate[P]
	for v := range data {
		for _, p := range params {
			cands = append(cands, Candidate[P]{v, p})
		}
	}
	if len(cands) == 0 {
		return Candidate[P]{}, nil, errors.New("no parameter candidates")
	}
	best := cands[0]
	if len(cands) > 1 {
		key := memoKey{weak.Make(data[0]), hashkey.Ints(t.Items), t.Folds, t.FoldsBy, t.Seed}
		c, err := memo.chosen.Do(key, func() (choice[P], error) {
			return crossValidate(ctx, data, t, cands, run)
		})
		if err != nil {
			return best, nil, err
		}
		best = c.c
		t.CV.add(c.table)
	}
	if err := ctx.Err(); err != nil {
		return best, nil, err
	}
	return best, data[best.Variant], nil
}

// crossValidate returns the candidate with the best mean accuracy over
// stratified folds of train (ties go to the first candidate) and its
// table. The runs of all candidates and folds are independent: they
// share out workers, so that a method's serial parts (an
// eigendecomposition, SVM training) do not leave cores idle; the
// accuracies are summed in a fixed order.
func crossValidate[P comparable](ctx context.Context, data []*Data, t *Train, cands []Candidate[P], run Runner[P]) (choice[P], error) {
	train, nfolds, workers := t.Items, t.Folds, t.Workers
	if nfolds < 2 {
		return choice[P]{}, fmt.Errorf("%d parameter candidates but %d validation folds: want folds >= 2", len(cands), nfolds)
	}
	fs, err := data[0].ValidationFolds(train, nfolds, t.Seed, t.FoldsBy)
	if err != nil {
		return choice[P]{}, err
	}
	trains := make([][]int, len(fs))
	for k, f := range fs {
		if len(f) == 0 {
			return choice[P]{}, fmt.Errorf("%d validation folds of %d training items: a fold is empty; lower folds", nfolds, len(train))
		}
		trains[k] = Without(train, f)
	}
	accs := make([]float64, len(cands)*len(fs))
	err = pool.ForCtx(ctx, len(accs), workers, func(_, r int) error {
		c, k := cands[r/len(fs)], r%len(fs)
		o, err := run(data[c.Variant], trains[k], fs[k], c.Params)
		if err != nil {
			return fmt.Errorf("validation: %w", err)
		}
		accs[r] = Accuracy(o.Pred, Pick(data[c.Variant].Labels, fs[k]))
		return nil
	})
	if err != nil {
		return choice[P]{}, err
	}
	table := &CVTable{Choice: "parameters", Items: heldOut(fs), Rule: "max-mean",
		Why: "the highest mean accuracy over the folds (ties to the first listed)"}
	best, bestAcc := 0, math.Inf(-1)
	for ci, c := range cands {
		var acc float64
		for k := range fs {
			acc += accs[ci*len(fs)+k] / float64(len(fs))
		}
		if acc > bestAcc {
			best, bestAcc = ci, acc
		}
		folds := accs[ci*len(fs) : (ci+1)*len(fs) : (ci+1)*len(fs)]
		table.Candidates = append(table.Candidates, newCVRow(candidateName(c.Params, data[c.Variant].Ridge, len(data)), folds, acc))
	}
	table.Chosen = best
	return choice[P]{cands[best], table}, nil
}

// Accuracy returns the percentage of predictions equal to the truth (NaN
// for no items).
func Accuracy(pred, truth []int) float64 {
	if len(truth) == 0 {
		return math.NaN()
	}
	return 100 * float64(Correct(pred, truth)) / float64(len(truth))
}

// Correct returns how many predictions equal the truth.
func Correct(pred, truth []int) int {
	c := 0
	for i := range truth {
		if pred[i] == truth[i] {
			c++
		}
	}
	return c
}

// Without returns the items not in drop (both ascending).
func Without(items, drop []int) []int {
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

// ByClass groups item indices by label, each group in ascending order.
func ByClass(labels []int, items []int) map[int][]int {
	g := map[int][]int{}
	for _, i := range items {
		g[labels[i]] = append(g[labels[i]], i)
	}
	return g
}

// SmallestClass returns the label of fewest items among items (the
// first such label in ascending order) and its count; -1 and 0 for no
// items. Folds deals each class round the folds, so a class of fewer
// items than folds is missing from some folds' held-out items.
func SmallestClass(labels, items []int) (label, count int) {
	groups := ByClass(labels, items)
	label = -1
	for _, c := range SortedKeys(groups) {
		if n := len(groups[c]); label < 0 || n < count {
			label, count = c, n
		}
	}
	return label, count
}

// SortedKeys returns the labels of a grouping in ascending order.
func SortedKeys(m map[int][]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// Seq returns the indices a, a+1, ..., b−1.
func Seq(a, b int) []int {
	out := make([]int, 0, max(0, b-a))
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// Pick returns labels[i] for each i of idx.
func Pick(labels, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = labels[j]
	}
	return out
}
