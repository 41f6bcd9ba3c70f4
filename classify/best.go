package classify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/once"
)

// Best is the method that chooses, on each training set, the most
// accurate of its candidate methods under cross-validation and is the
// chosen one fitted there (a best method of an experiment file, the
// model of `covpipe fit --method best`). Each candidate is judged as it
// would run: on Folds stratified folds of the training items, each fold's
// run fitting the candidate (with its own parameter choice) on the other
// folds, the accuracies summed over all folds; pickBest chooses by them.
// The choice is remembered for training sets that recur. The zero value
// is not ready: give Names and Methods, two or more.
type Best struct {
	// Names name the candidates, Methods[k] named Names[k], in the order
	// of preference of the one-standard-error rule.
	Names   []string
	Methods []Method
	// OneSE chooses by the one-standard-error rule, else the most
	// accurate (pickBest).
	OneSE bool

	chosen once.Cache[choiceKey, bestChoice]
}

// bestChoice is the index of the candidate a Best chose and its table.
type bestChoice struct {
	k     int
	table *CVTable
}

// Spec declares the first candidate's parameters; its other needs are
// the candidates' own, which the engine meets for each of them. It
// declares class probabilities when every candidate gives them, so that
// whichever is chosen answers with them (its own); a model, which knows
// the chosen one, asks that one's Spec.
func (b *Best) Spec() Spec {
	probs := true
	for _, m := range b.Methods {
		probs = probs && m.Spec().Probabilities
	}
	return Spec{Params: map[string]any{"of": b.Names}, Candidates: len(b.Methods), Scores: b.Methods[0].Spec().Scores, Probabilities: probs}
}

// Fit chooses the candidate (remembered per training set) and fits it on
// all of t. The choice's CVTable goes to t.CV, followed by the tables of
// the chosen candidate's fit, scoped by its name.
func (b *Best) Fit(ctx context.Context, t *Train) (Fitted, error) {
	if len(b.Methods) < 2 || len(b.Names) != len(b.Methods) {
		return nil, fmt.Errorf("best: %d names of %d methods: want two or more methods, each named", len(b.Names), len(b.Methods))
	}
	if t.Folds < 2 {
		return nil, fmt.Errorf("best: choosing among %d methods needs folds >= 2, not %d", len(b.Methods), t.Folds)
	}
	c, err := b.chosen.Do(keyOf(t), func() (bestChoice, error) {
		correct := make([]int, len(b.Methods))
		folds, err := t.Data.ValidationFolds(t.Items, t.Folds, t.Seed, t.FoldsBy)
		if err != nil {
			return bestChoice{}, fmt.Errorf("best: %w", err)
		}
		accs := make([][]float64, len(b.Methods)) // per candidate, per fold
		// Folds outermost: the candidates share each fold's pairwise
		// quantities, which a Data keeps for its latest training set.
		for _, val := range folds {
			sub := &Split{Data: t.Data, Variants: t.Variants, Train: Without(t.Items, val), Test: val, Workers: t.Workers, Seed: t.Seed, Folds: t.Folds, FoldsBy: t.FoldsBy, Scratch: t.Scratch}
			truth := Pick(t.Data.Labels, val)
			for k, c := range b.Methods {
				out, err := Run(ctx, c, sub)
				if err != nil {
					return bestChoice{}, fmt.Errorf("choosing among %d methods, %q: %w", len(b.Methods), b.Names[k], err)
				}
				n := Correct(out.Pred, truth)
				correct[k] += n
				accs[k] = append(accs[k], Accuracy(out.Pred, truth))
			}
		}
		n := heldOut(folds)
		k := pickBest(correct, n, b.OneSE)
		return bestChoice{k, b.table(correct, accs, k, n)}, nil
	})
	if err != nil {
		return nil, err
	}
	t.CV.add(c.table)
	mark := t.CV.mark()
	f, err := b.Methods[c.k].Fit(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("%q, chosen: %w", b.Names[c.k], err)
	}
	t.CV.scope(mark, fmt.Sprintf("candidate %q", b.Names[c.k]))
	return &bestFit{name: b.Names[c.k], f: f, m: b.Methods[c.k], ran: t.ran}, nil
}

// table is the CVTable of the choice of candidate k by pickBest from
// correct, each candidate's right answers on n items, and accs, each
// candidate's accuracy on each fold.
func (b *Best) table(correct []int, accs [][]float64, k, n int) *CVTable {
	t := &CVTable{Choice: "methods", Items: n, Chosen: k, Rule: "max",
		Why: "the highest accuracy over the cross-validated items (ties to the first listed)"}
	if b.OneSE && n > 0 {
		t.Rule, t.Threshold = "one-se", 100*oneSEFloor(correct, n)
		t.Why = fmt.Sprintf("the one-standard-error rule: the first listed whose accuracy reaches %.4g%%, the most accurate's minus its binomial standard error √(a(1 − a)/n), n = %d", t.Threshold, n)
	}
	for i, name := range b.Names {
		t.Candidates = append(t.Candidates, newCVRow(name, accs[i], 100*float64(correct[i])/float64(n)))
	}
	return t
}

// pickBest returns the candidate that correct, each candidate's count of
// right answers on n cross-validated items, chooses: the most accurate,
// ties to the first listed; or with oneSE the first listed whose
// accuracy is at least a − SE, a the most accurate's and SE =
// √(a(1 − a)/n) its binomial standard error, the one-standard-error rule
// of Hastie, Tibshirani and Friedman (The Elements of Statistical
// Learning, 2nd ed., Sec. 7.10), with the order of the candidates as the
// order of preference.
func pickBest(correct []int, n int, oneSE bool) int {
	best := mostAccurate(correct)
	if !oneSE || n == 0 {
		return best
	}
	floor := oneSEFloor(correct, n)
	for k, c := range correct {
		if float64(c)/float64(n) >= floor {
			return k
		}
	}
	return best
}

// mostAccurate returns the candidate of most right answers, correct,
// ties to the first listed.
func mostAccurate(correct []int) int {
	best := 0
	for k := range correct {
		if correct[k] > correct[best] {
			best = k
		}
	}
	return best
}

// oneSEFloor returns a − √(a(1 − a)/n), a the accuracy (a fraction) of
// the most accurate of candidates whose right answers on n items correct
// counts: what the one-standard-error rule asks of its choice.
func oneSEFloor(correct []int, n int) float64 {
	a := float64(correct[mostAccurate(correct)]) / float64(n)
	return a - math.Sqrt(a*(1-a)/float64(n))
}

// bestFit is the chosen candidate m fitted, and the outcomes that the
// candidates gave on the split it was fitted on (Split.Share), if any.
type bestFit struct {
	name string
	f    Fitted
	m    Method
	ran  *ranOutcomes
}

// Predict answers with the chosen candidate's own outcome on the split's
// test items when q asks for them and the candidate ran there (Run on
// the same split, the same fit): the same answers, not computed again.
func (b *bestFit) Predict(ctx context.Context, q *Query) (*Outcome, error) {
	if b.ran != nil && q.ran == b.ran {
		if o := b.ran.get(b.m); o != nil {
			out := *o
			out.Chosen = b.name
			return &out, nil
		}
	}
	out, err := b.f.Predict(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%q, chosen: %w", b.name, err)
	}
	out.Chosen = b.name
	return out, nil
}

func (b *bestFit) Chosen() map[string]float64 { return b.f.Chosen() }

// bestRecord is a best method's saved state: the chosen candidate's name
// and its state's record (its arrays are the state's own).
type bestRecord struct {
	Chosen string          `json:"chosen"`
	State  json.RawMessage `json:"state"`
}

func (b *bestFit) Save(ctx context.Context) (*State, error) {
	sub, err := b.f.Save(ctx)
	if err != nil {
		return nil, err
	}
	st := &State{}
	return st, st.SetRecord(bestRecord{Chosen: b.name, State: st.Nest("", sub)})
}

// Load restores the chosen candidate by its name.
func (b *Best) Load(ctx context.Context, st *State, t *Train) (Fitted, error) {
	var rec bestRecord
	if err := st.DecodeRecord(&rec); err != nil {
		return nil, err
	}
	k := slices.Index(b.Names, rec.Chosen)
	if k < 0 {
		return nil, fmt.Errorf("state record: chosen method %q is not one of %v", rec.Chosen, b.Names)
	}
	if len(rec.State) == 0 {
		return nil, errors.New("state record: no state of the chosen method")
	}
	f, err := b.Methods[k].Load(ctx, st.Sub("", rec.State), t)
	if err != nil {
		return nil, fmt.Errorf("%q, chosen: %w", rec.Chosen, err)
	}
	return &bestFit{name: rec.Chosen, f: f}, nil
}

// ChosenMethod names the candidate that a fitted best method chose, "" for a
// Fitted that is not one.
func ChosenMethod(f Fitted) string {
	if b, ok := f.(*bestFit); ok {
		return b.name
	}
	return ""
}

// FusionOf returns the fusion that a fitted method of several regions per
// image chose (a Fused's, also when a best method chose it) and its
// regions' fitted methods, and whether f is one.
func FusionOf(f Fitted) (FusionChoice, []Fitted, bool) {
	if b, ok := f.(*bestFit); ok {
		f = b.f
	}
	if p, ok := f.(*fusedFit); ok {
		return p.choice, p.parts, true
	}
	return FusionChoice{}, nil, false
}
