package classify

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestFuse checks every rule against costs fused by hand: two parts, three
// classes.
func TestFuse(t *testing.T) {
	costs := [][]float64{{2, 1, 4}, {3, 6, 3}}
	for _, tc := range []struct {
		rule    FusionRule
		weights []float64
		want    []float64
	}{
		{FuseSum, nil, []float64{5, 7, 7}},
		// Part 0 divided by 1, part 1 by 3.
		{FuseNormalized, nil, []float64{2 + 1, 1 + 2, 4 + 1}},
		// Votes: part 0 for class 1, part 1 for class 0 (the first of its
		// two cheapest); ties broken by the normalized sums 3, 3, 5 over
		// 1 + 5.
		{FuseVote, nil, []float64{1 + 3.0/6, 1 + 3.0/6, 2 + 5.0/6}},
		{FuseWeighted, []float64{0.5, 1.5}, []float64{0.5*2 + 1.5*1, 0.5*1 + 1.5*2, 0.5*4 + 1.5*1}},
	} {
		got := make([]float64, 3)
		Fuse(got, make([]int, 3), costs, tc.rule, tc.weights)
		for c := range got {
			if math.Abs(got[c]-tc.want[c]) > 1e-12 {
				t.Errorf("%v: %v, want %v", tc.rule, got, tc.want)
				break
			}
		}
	}
	// A part whose cheapest class costs 0 is divided by its mean instead.
	got := make([]float64, 2)
	Fuse(got, make([]int, 2), [][]float64{{0, 4}}, FuseNormalized, nil)
	if got[0] != 0 || got[1] != 2 {
		t.Errorf("normalized with a zero cost: %v, want [0 2]", got)
	}
	if p := fusedPred([][][]float64{{{2, 1, 4}}, {{3, 6, 3}}}, []int{7, 8, 9}, FuseSum, nil); !slices.Equal(p, []int{7}) {
		t.Errorf("fusedPred: %v, want [7]", p)
	}
}

func TestParseFusionRules(t *testing.T) {
	if r, err := ParseFusionRules(nil); err != nil || !slices.Equal(r, []FusionRule{FuseSum}) {
		t.Errorf("default: %v, %v", r, err)
	}
	if r, err := ParseFusionRules([]string{"vote", "weighted"}); err != nil || !slices.Equal(r, []FusionRule{FuseVote, FuseWeighted}) {
		t.Errorf("vote, weighted: %v, %v", r, err)
	}
	for _, bad := range [][]string{{"mean"}, {"sum", "sum"}} {
		if _, err := ParseFusionRules(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// fakeCosts is a method whose class costs are fixed per part: on its part
// p (Data) an item of class c costs scale[p]·(1 if right[p] else 2) for c
// and scale[p]·(2 if right[p] else 1) for the other class. With probs, it
// gives class probabilities too: probs[p] for an item of class 0 on part
// p, reversed for class 1.
type fakeCosts struct {
	parts []*Data
	scale []float64
	right []bool
	probs [][]float64
}

func (f *fakeCosts) Spec() Spec { return Spec{Costs: true, Probabilities: f.probs != nil} }

func (f *fakeCosts) Fit(_ context.Context, t *Train) (Fitted, error) {
	return fakeCostsFit{f, slices.Index(f.parts, t.Data)}, nil
}

func (f *fakeCosts) Load(_ context.Context, _ *State, t *Train) (Fitted, error) {
	return fakeCostsFit{f, slices.Index(f.parts, t.Data)}, nil
}

// fakeCostsFit is fakeCosts fitted on its part p, which it reports as its
// parameter "part", as a method choosing its parameters per region would.
type fakeCostsFit struct {
	f *fakeCosts
	p int
}

func (ff fakeCostsFit) Chosen() map[string]float64 { return map[string]float64{"part": float64(ff.p)} }

func (fakeCostsFit) Save(context.Context) (*State, error) { return &State{}, nil }

func (ff fakeCostsFit) Predict(_ context.Context, q *Query) (*Outcome, error) {
	f := ff.f
	p := slices.Index(f.parts, q.Data)
	out := &Outcome{CostClasses: []int{0, 1}}
	for _, i := range q.Items {
		good, bad := 1.0, 2.0
		if !f.right[p] {
			good, bad = bad, good
		}
		c := []float64{bad, bad}
		c[q.Data.Labels[i]] = good
		for k := range c {
			c[k] *= f.scale[p]
		}
		out.Costs = append(out.Costs, c)
		out.Pred = append(out.Pred, argmin(c))
		if q.Probabilities && f.probs != nil {
			pr := slices.Clone(f.probs[p])
			if q.Data.Labels[i] == 1 {
				slices.Reverse(pr)
			}
			out.Probabilities = append(out.Probabilities, pr)
		}
	}
	return out, nil
}

// sumWrongParts returns 8 items of 2 classes in 3 parts and a method on
// them whose first part, of costs a thousand times the others', is
// always wrong and the others always right: the sum of the costs is
// wrong, the normalised sum and the vote right.
func sumWrongParts() (*Data, *fakeCosts) {
	labels := []int{0, 0, 0, 0, 1, 1, 1, 1}
	d := &Data{Labels: labels}
	f := &fakeCosts{scale: []float64{1000, 1, 1}, right: []bool{false, true, true}}
	for range 3 {
		part := &Data{Labels: labels}
		d.Parts = append(d.Parts, part)
		f.parts = append(f.parts, part)
	}
	return d, f
}

// TestChooseFusion checks the choice by cross-validation on parts built so
// that the sum is wrong (a large-scale part that is always wrong) and the
// other rules right: it must pick the first right rule listed, and the
// weights must follow the parts' accuracies.
func TestChooseFusion(t *testing.T) {
	d, f := sumWrongParts()
	s := &Split{Data: d, Train: Seq(0, 8), Folds: 2, Seed: 1}
	for _, tc := range []struct {
		rules []FusionRule
		want  FusionRule
	}{
		{[]FusionRule{FuseSum, FuseNormalized}, FuseNormalized},
		{[]FusionRule{FuseSum, FuseVote, FuseNormalized}, FuseVote},
		{[]FusionRule{FuseSum}, FuseSum},
	} {
		got, err := ChooseFusion(context.Background(), f, s, Fusing{Sets: [][]int{{0, 1, 2}}, Layouts: []string{"l"}, Rules: tc.rules})
		if err != nil {
			t.Fatal(err)
		}
		if got.Rule != tc.want {
			t.Errorf("rules %v: chose %v, want %v", tc.rules, got.Rule, tc.want)
		}
	}
	got, err := ChooseFusion(context.Background(), f, s, Fusing{Sets: [][]int{{0}, {1, 2}}, Layouts: []string{"a", "b"}, Rules: []FusionRule{FuseWeighted}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Set != 1 || !slices.Equal(got.Weights, []float64{1, 1}) {
		t.Errorf("layouts {0} and {1, 2}: chose %+v, want the second at equal weights", got)
	}
	got, _ = ChooseFusion(context.Background(), f, s, Fusing{Sets: [][]int{{0, 1, 2}}, Layouts: []string{"l"}, Rules: []FusionRule{FuseWeighted}})
	if !slices.Equal(got.Weights, []float64{0, 1.5, 1.5}) {
		t.Errorf("weights %v, want [0 1.5 1.5] (accuracies 0, 1, 1 scaled to sum to 3)", got.Weights)
	}
}
