package classify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"weak"

	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
)

// Fused is a method on items of several regions (Data.Parts): its method
// fitted on each region of the layout of choice, their class costs fused
// by the rule of choice (Fuse). ChooseFusion chooses the layout, rule and
// weights by cross-validation on the training items, and the choice is
// remembered for training sets that recur (FERET's four test poses). On
// items of one descriptor each (no Parts) it is its method. Method must
// give class costs (Spec.Costs). The zero value is not ready: give
// Method and Fusing.
type Fused struct {
	Method Method
	Fusing Fusing

	chosen once.Cache[choiceKey, fusionChoice]
}

// fusionChoice is a choice of ChooseFusion and its table.
type fusionChoice struct {
	c     FusionChoice
	table *CVTable
}

// choiceKey identifies a choice made by cross-validation on a training
// set: its Data (weakly, as memoKey), items, folds and seed.
type choiceKey struct {
	data  weak.Pointer[Data]
	train uint64
	folds int
	by    FoldGroups
	seed  uint64
}

func keyOf(t *Train) choiceKey {
	return choiceKey{weak.Make(t.Data), hashkey.Ints(t.Items), t.Folds, t.FoldsBy, t.Seed}
}

// Spec is the method's.
func (f *Fused) Spec() Spec { return f.Method.Spec() }

// splitOf is the split of t's training items without test items, on
// which ChooseFusion cross-validates.
func splitOf(t *Train) *Split {
	return &Split{Data: t.Data, Variants: t.Variants, Train: t.Items, Workers: t.Workers, Seed: t.Seed, Folds: t.Folds, FoldsBy: t.FoldsBy}
}

// Fit chooses the fusion on t (ChooseFusion) and fits the method on each
// region of the layout of choice, asking for class costs. The choice's
// CVTable goes to t.CV, followed by the tables of each region's fit,
// scoped by the region.
func (f *Fused) Fit(ctx context.Context, t *Train) (Fitted, error) {
	if t.Data.Parts == nil {
		return f.Method.Fit(ctx, t)
	}
	s := splitOf(t)
	c, err := f.chosen.Do(keyOf(t), func() (fusionChoice, error) {
		c, table, err := chooseFusion(ctx, f.Method, s, f.Fusing)
		return fusionChoice{c, table}, err
	})
	if err != nil {
		return nil, err
	}
	t.CV.add(c.table)
	out := &fusedFit{f: f, choice: c.c}
	for _, r := range f.Fusing.Sets[c.c.Set] {
		p := partSplit(s, r, t.Items, nil).Fitting()
		p.CV = t.CV
		mark := t.CV.mark()
		fit, err := f.Method.Fit(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("region %d: %w", r, err)
		}
		scope := fmt.Sprintf("region %d", r)
		if r < len(f.Fusing.Regions) {
			scope += " (" + f.Fusing.Regions[r] + ")"
		}
		t.CV.scope(mark, scope)
		out.parts = append(out.parts, fit)
	}
	return out, nil
}

// fusedFit is a Fused fitted: the choice and each chosen region's
// fitted method, in the order of the layout's regions.
type fusedFit struct {
	f      *Fused
	choice FusionChoice
	parts  []Fitted
}

// partQuery is q with its Data (and every ridge variant) replaced by
// their part r, asking for class costs, and for class probabilities when
// q does.
func partQuery(q *Query, r int) *Query {
	vs := allVariants(q.Data, q.Variants)
	sub := &Query{Data: vs[0].Parts[r], Items: q.Items, Workers: q.Workers, Costs: true, Probabilities: q.Probabilities}
	if len(q.Variants) > 0 {
		for _, v := range vs {
			sub.Variants = append(sub.Variants, v.Parts[r])
		}
	}
	return sub
}

func (f *fusedFit) Predict(ctx context.Context, q *Query) (*Outcome, error) {
	if q.Data.Parts == nil {
		return nil, errors.New("a fused method answers items of several regions; these have one")
	}
	regions := f.f.Fusing.Sets[f.choice.Set]
	outs := make([]*Outcome, len(regions))
	pool := q.Probabilities && f.f.Method.Spec().Probabilities
	for k, r := range regions {
		o, err := f.parts[k].Predict(ctx, partQuery(q, r))
		if err != nil {
			return nil, fmt.Errorf("region %d: %w", r, err)
		}
		if err := checkCosts(o, r, len(q.Items)); err != nil {
			return nil, err
		}
		if pool && len(o.Probabilities) != len(q.Items) {
			return nil, fmt.Errorf("region %d: %d class probability rows for %d items", r, len(o.Probabilities), len(q.Items))
		}
		o.Params = f.parts[k].Chosen()
		outs[k] = o
	}
	out := fuseParts(outs, q.Data, q.Items, f.f.Fusing, f.choice)
	if pool {
		out.Probabilities, out.CostClasses = poolParts(outs, f.choice), outs[0].CostClasses
	}
	return out, nil
}

// poolParts returns the class probabilities of the items of outs, the
// outcomes of a layout's parts, as the linear opinion pool of the parts'
// (Genest and Zidek, Statistical Science 1, 1986):
// p_c = Σ_r w_r p_rc / Σ_r w_r, over the columns of the parts' CostClasses,
// with the choice's weights w_r under the weighted rule and equal weights
// under the others. A mean rather than a normalised product, because an
// SRC part gives the classes its code does not use probability 0, which
// a product would make every region's veto. Each part holds a row per
// item.
func poolParts(outs []*Outcome, choice FusionChoice) [][]float64 {
	n, k := len(outs[0].Probabilities), len(outs[0].CostClasses)
	w := make([]float64, len(outs))
	var total float64
	for r := range outs {
		w[r] = 1
		if choice.Rule == FuseWeighted {
			w[r] = choice.Weights[r]
		}
		total += w[r]
	}
	if !(total > 0) {
		for r := range w {
			w[r] = 1
		}
		total = float64(len(w))
	}
	out := Rows(n, k)
	for q, row := range out {
		for r, o := range outs {
			for c, p := range o.Probabilities[q] {
				row[c] += w[r] / total * p
			}
		}
	}
	return out
}

// Rows returns n rows of k zeros, made of one allocation: the per-item
// rows of an Outcome's Costs or Probabilities.
func Rows(n, k int) [][]float64 {
	slab := make([]float64, n*k)
	out := make([][]float64, n)
	for i := range out {
		out[i] = slab[i*k : (i+1)*k : (i+1)*k]
	}
	return out
}

// Chosen returns the first region's parameters, as the outcome records.
func (f *fusedFit) Chosen() map[string]float64 { return f.parts[0].Chosen() }

// fusedRecord is a fused method's saved state: the choice and the state
// records of its regions' methods, whose arrays are prefixed by
// regionPrefix.
type fusedRecord struct {
	Set     int               `json:"set"`
	Rule    string            `json:"rule"`
	Weights []float64         `json:"weights"`
	Parts   []json.RawMessage `json:"parts"`
}

// regionPrefix prefixes the arrays of region k of a layout in a fused
// method's saved state.
func regionPrefix(k int) string { return fmt.Sprintf("region-%02d-", k) }

func (f *fusedFit) Save(ctx context.Context) (*State, error) {
	rec := fusedRecord{Set: f.choice.Set, Rule: f.choice.Rule.String(), Weights: f.choice.Weights}
	st := &State{}
	for k, p := range f.parts {
		sub, err := p.Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("region %d: %w", k, err)
		}
		rec.Parts = append(rec.Parts, st.Nest(regionPrefix(k), sub))
	}
	return st, st.SetRecord(rec)
}

// Load restores a fused method on t, whose Data has the regions' parts.
func (f *Fused) Load(ctx context.Context, st *State, t *Train) (Fitted, error) {
	if t.Data.Parts == nil {
		return f.Method.Load(ctx, st, t)
	}
	var rec fusedRecord
	if err := st.DecodeRecord(&rec); err != nil {
		return nil, err
	}
	rule, ok := FusionRules.Parse(rec.Rule)
	switch {
	case !ok:
		return nil, fmt.Errorf("state record: fusion rule %q: want one of %v", rec.Rule, []string(FusionRules))
	case rec.Set < 0 || rec.Set >= len(f.Fusing.Sets):
		return nil, fmt.Errorf("state record: layout %d of %d", rec.Set, len(f.Fusing.Sets))
	case len(rec.Parts) != len(f.Fusing.Sets[rec.Set]) || len(rec.Weights) != len(rec.Parts):
		return nil, fmt.Errorf("state record: %d regions' states and %d weights for a layout of %d regions", len(rec.Parts), len(rec.Weights), len(f.Fusing.Sets[rec.Set]))
	}
	out := &fusedFit{f: f, choice: FusionChoice{Set: rec.Set, Rule: rule, Weights: slices.Clone(rec.Weights)}}
	s := splitOf(t)
	for k, r := range f.Fusing.Sets[rec.Set] {
		if r < 0 || r >= len(t.Data.Parts) {
			return nil, fmt.Errorf("region %d of %d", r, len(t.Data.Parts))
		}
		fit, err := f.Method.Load(ctx, st.Sub(regionPrefix(k), rec.Parts[k]), partSplit(s, r, t.Items, nil).Fitting())
		if err != nil {
			return nil, fmt.Errorf("region %d: %w", r, err)
		}
		out.parts = append(out.parts, fit)
	}
	return out, nil
}
