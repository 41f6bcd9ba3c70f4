package method

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/covpipe/covpipe/classify"
	"gonum.org/v1/gonum/mat"
)

// predictor is a method fitted with one candidate of its parameters on
// training items: it answers items of any Data that holds those training
// items at the indices it was fitted on (classify.Query).
type predictor interface {
	predict(ctx context.Context, d *classify.Data, items []int, a answer) (*classify.Outcome, error)
	// save puts the predictor's arrays in st and returns its record, a
	// value that encoding/json encodes, from which with the arrays the
	// method's Load restores it.
	save(ctx context.Context, st *classify.State) (any, error)
}

// transformer is a predictor that maps items to feature vectors
// (classify.Transformer).
type transformer interface {
	predictor
	transform(ctx context.Context, d *classify.Data, items []int, workers int) (*mat.Dense, error)
}

// transforming returns f as a classify.Transformer when its predictor
// maps items to feature vectors, and f itself otherwise.
func transforming(f classify.Fitted) classify.Fitted {
	if ft, ok := f.(*fitted); ok {
		if _, ok := ft.p.(transformer); ok {
			return &transformingFit{ft}
		}
	}
	return f
}

// transformingFit is a fitted method whose predictor is a transformer.
type transformingFit struct{ *fitted }

func (f *transformingFit) Transform(ctx context.Context, q *classify.Query) (*mat.Dense, error) {
	return f.p.(transformer).transform(ctx, q.Variant(f.variant), q.Items, q.Workers)
}

// answer is what a prediction is asked for beside its items: the ranks
// to order exactly, class costs, class probabilities, and the
// parallelism.
type answer struct {
	ranks   int
	costs   bool
	probs   bool
	workers int
	scratch *classify.Scratch // the query's shared block buffers, nil for none
}

// blocks returns the block buffers a prediction takes: the query's
// shared ones, else the method's own.
func (a answer) blocks(own *classify.Scratch) *classify.Scratch { return cmp.Or(a.scratch, own) }

// trainBlocks returns the block buffers a fit on t takes: t's shared
// ones, else the method's own.
func trainBlocks(t *classify.Train, own *classify.Scratch) *classify.Scratch {
	return cmp.Or(t.Scratch, own)
}

// fitted is the classify.Fitted of a method: the predictor of the
// candidate that cross-validation chose, on ridge variant variant, and
// the parameters it records.
type fitted struct {
	p       predictor
	variant int
	chosen  map[string]float64
}

func (f *fitted) Predict(ctx context.Context, q *classify.Query) (*classify.Outcome, error) {
	return f.p.predict(ctx, q.Variant(f.variant), q.Items, answer{ranks: q.Ranks, costs: q.Costs, probs: q.Probabilities, workers: q.Workers, scratch: q.Scratch})
}

func (f *fitted) Chosen() map[string]float64 { return maps.Clone(f.chosen) }

// folds returns the classify.Runner of cross-validation over fit: fit on
// a fold's training part, then predict its held-out part with t's
// workers.
func folds[C comparable](ctx context.Context, t *classify.Train, fit func(d *classify.Data, train []int, c C) (predictor, error)) classify.Runner[C] {
	return func(d *classify.Data, train, test []int, c C) (*classify.Outcome, error) {
		p, err := fit(d, train, c)
		if err != nil {
			return nil, err
		}
		return p.predict(ctx, d, test, answer{workers: t.Workers, scratch: t.Scratch})
	}
}

// fitRidge fits a method without parameter candidates: it chooses among
// t's ridge variants by cross-validation of fit (classify.Choose with one
// candidate, memo its memo) and fits on all of t's training items the
// chosen variant's Data, recording its ridge as chosen.
func fitRidge(ctx context.Context, t *classify.Train, memo *classify.Memo[struct{}], fit func(d *classify.Data, train []int) (predictor, error)) (classify.Fitted, error) {
	run := func(d *classify.Data, train []int, _ struct{}) (predictor, error) { return fit(d, train) }
	c, d, err := classify.Choose(ctx, t, []struct{}{{}}, memo, folds(ctx, t, run))
	if err != nil {
		return nil, err
	}
	p, err := fit(d, t.Items)
	if err != nil {
		return nil, err
	}
	return transforming(&fitted{p: p, variant: c.Variant, chosen: map[string]float64{"ridge": d.Ridge}}), nil
}

// fitChoosing fits a method of one parameter, recorded as key, given as
// a list of candidates values: it chooses among them and t's ridge
// variants by cross-validation of fit (classify.Choose, memo its memo)
// and fits the chosen one on all of t's training items, recording it and
// the ridge as chosen.
func fitChoosing(ctx context.Context, t *classify.Train, key string, values []float64, memo *classify.Memo[keyed], fit func(d *classify.Data, train []int, v float64) (predictor, error)) (classify.Fitted, error) {
	cands := make([]keyed, len(values))
	for i, v := range values {
		cands[i] = keyed{key, v}
	}
	run := func(d *classify.Data, train []int, c keyed) (predictor, error) { return fit(d, train, c.value) }
	c, d, err := classify.Choose(ctx, t, cands, memo, folds(ctx, t, run))
	if err != nil {
		return nil, err
	}
	p, err := fit(d, t.Items, c.Params.value)
	if err != nil {
		return nil, err
	}
	return transforming(&fitted{p: p, variant: c.Variant, chosen: map[string]float64{key: c.Params.value, "ridge": d.Ridge}}), nil
}

// keyed is a candidate value of the parameter key, which cross-validation
// tables name key=value.
type keyed struct {
	key   string
	value float64
}

func (k keyed) String() string { return fmt.Sprintf("%s=%g", k.key, k.value) }

// savedFit is the record of a fitted method's State: the chosen
// parameters, and the predictor's own record.
type savedFit struct {
	Chosen map[string]float64 `json:"chosen"`
	Fit    json.RawMessage    `json:"fit,omitempty"`
}

func (f *fitted) Save(ctx context.Context) (*classify.State, error) {
	st := &classify.State{}
	rec, err := f.p.save(ctx, st)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	return st, st.SetRecord(savedFit{Chosen: f.chosen, Fit: b})
}

// restore restores a fitted method from st: the chosen parameters, and
// the predictor that load makes of its record, decoded strictly into R.
// A restored method answers on its training items' only ridge variant.
func restore[R any](st *classify.State, load func(rec R) (predictor, error)) (classify.Fitted, error) {
	var sf savedFit
	if err := st.DecodeRecord(&sf); err != nil {
		return nil, err
	}
	var rec R
	if len(sf.Fit) > 0 && string(sf.Fit) != "null" {
		dec := json.NewDecoder(bytes.NewReader(sf.Fit))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("state record: %w", err)
		}
	}
	p, err := load(rec)
	if err != nil {
		return nil, err
	}
	return transforming(&fitted{p: p, chosen: sf.Chosen}), nil
}
