package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/classify"
)

// TestFuse checks every rule against costs fused by hand: two parts, three
// classes.
func TestFuse(t *testing.T) {
	costs := [][]float64{{2, 1, 4}, {3, 6, 3}}
	for _, tc := range []struct {
		rule    fusionRule
		weights []float64
		want    []float64
	}{
		{fuseSum, nil, []float64{5, 7, 7}},
		// Part 0 divided by 1, part 1 by 3.
		{fuseNormalized, nil, []float64{2 + 1, 1 + 2, 4 + 1}},
		// Votes: part 0 for class 1, part 1 for class 0 (the first of its
		// two cheapest); ties broken by the normalized sums 3, 3, 5 over
		// 1 + 5.
		{fuseVote, nil, []float64{1 + 3.0/6, 1 + 3.0/6, 2 + 5.0/6}},
		{fuseWeighted, []float64{0.5, 1.5}, []float64{0.5*2 + 1.5*1, 0.5*1 + 1.5*2, 0.5*4 + 1.5*1}},
	} {
		got := make([]float64, 3)
		fuse(got, make([]int, 3), costs, tc.rule, tc.weights)
		for c := range got {
			if math.Abs(got[c]-tc.want[c]) > 1e-12 {
				t.Errorf("%v: %v, want %v", tc.rule, got, tc.want)
				break
			}
		}
	}
	// A part whose cheapest class costs 0 is divided by its mean instead.
	got := make([]float64, 2)
	fuse(got, make([]int, 2), [][]float64{{0, 4}}, fuseNormalized, nil)
	if got[0] != 0 || got[1] != 2 {
		t.Errorf("normalized with a zero cost: %v, want [0 2]", got)
	}
	if p := fusedPred([][][]float64{{{2, 1, 4}}, {{3, 6, 3}}}, []int{7, 8, 9}, fuseSum, nil); !slices.Equal(p, []int{7}) {
		t.Errorf("fusedPred: %v, want [7]", p)
	}
}

func TestParseFusion(t *testing.T) {
	if r, err := parseFusion(nil); err != nil || !slices.Equal(r, []fusionRule{fuseSum}) {
		t.Errorf("default: %v, %v", r, err)
	}
	if r, err := parseFusion([]string{"vote", "weighted"}); err != nil || !slices.Equal(r, []fusionRule{fuseVote, fuseWeighted}) {
		t.Errorf("vote, weighted: %v, %v", r, err)
	}
	for _, bad := range [][]string{{"mean"}, {"sum", "sum"}} {
		if _, err := parseFusion(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestPartsRun runs a split task whose items are five regions each on
// oriented gratings, end to end, and checks what results.json records,
// and that configs which cannot use parts are refused, naming why.
func TestPartsRun(t *testing.T) {
	const parts = "  parts: {regions: whole+grid:2x2, fusion: [sum, normalized, vote, weighted]}\n"
	const config = `
name: parts
seed: 3
repeats: 2
folds: 2
data:
  dataset: g
  features: I,Ix,Iy
` + parts + `tasks:
  - {name: r, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
  - {name: nn-stein, type: nn, metric: stein}
  - {name: nn-airm, type: nn, metric: airm}
  - {name: stein-svm, type: stein-svm, sigma: 1, c: 10}
`
	res := runGratings(t, config)
	wantRegions := []string{"16x16+0+0", "8x8+0+0", "8x8+8+0", "8x8+0+8", "8x8+8+8"}
	for _, x := range res.Results {
		if x.TestItems[0] != 8 {
			t.Errorf("%s: %d test items, want 8 images (not their regions)", x.Method, x.TestItems[0])
		}
		if x.Method == "nn-airm" {
			if x.Parts != nil {
				t.Errorf("nn-airm gives no class costs but was fused: %+v", x.Parts)
			}
			continue
		}
		if len(x.Parts) != 2 {
			t.Fatalf("%s: %d fusion records, want one per repeat", x.Method, len(x.Parts))
		}
		for _, f := range x.Parts {
			if f.Layout != "whole+grid:2x2" || !slices.Contains(fusionNames, f.Rule) || !slices.Equal(f.Regions, wantRegions) || len(f.Weights) != 5 || len(f.PartAccuracy) != 5 {
				t.Errorf("%s: %+v", x.Method, f)
			}
			var sum float64
			for _, w := range f.Weights {
				sum += w
			}
			if math.Abs(sum-5) > 1e-9 {
				t.Errorf("%s: weights %v sum to %v, want 5", x.Method, f.Weights, sum)
			}
		}
	}
	checkRefusals(t, config, []refusal{
		{parts, "  parts: {regions: whole}\n", "at least two regions"},
		{parts, "  parts: {regions: grid:2x2, fusion: [mean]}\n", `fusion rule "mean"`},
		{parts, "  regions: grid:2x2\n  parts: {regions: grid:2x2}\n", "exclude each other"},
		{parts, "  parts: {regions: [grid:2x2, grid:2x2]}\n", "listed twice"},
		{parts, "  parts: {regions: [grid:2x2, blocks:3:4]}\n", "same place in every image"},
		{"folds: 2", "folds: 1", "data.parts' layout and fusion rule"},
		{"  - {name: r, split: {train_per_class: 4}}", "  - {name: o, split: {train_per_class: 4}, open_set: {unknown: 0.5}}", "open set tasks classify one descriptor per item"},
	})
}

// TestPartsLayouts runs a split task choosing between two layouts and
// checks that every repeat records one of them with its own regions, in
// the order the layout places them.
func TestPartsLayouts(t *testing.T) {
	const config = `
name: layouts
seed: 3
repeats: 3
folds: 2
data:
  dataset: g
  features: I,Ix,Iy
  parts: {regions: [whole, grid:2x2:12], fusion: [sum, vote]}
tasks:
  - {name: r, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
`
	res := runGratings(t, config)
	want := map[string][]string{
		"whole":       {"16x16+0+0"},
		"grid:2x2:12": {"12x12+0+0", "12x12+4+0", "12x12+0+4", "12x12+4+4"},
	}
	for _, f := range res.Results[0].Parts {
		if w, ok := want[f.Layout]; !ok || !slices.Equal(f.Regions, w) || len(f.PartAccuracy) != len(w) || len(f.Weights) != len(w) {
			t.Errorf("%+v", f)
		}
	}
}

// fakeCosts is a method whose class costs are fixed per part: on its part
// p (Data) an item of class c costs scale[p]·(1 if right[p] else 2) for c
// and scale[p]·(2 if right[p] else 1) for the other class.
type fakeCosts struct {
	parts []*classify.Data
	scale []float64
	right []bool
}

func (f *fakeCosts) Spec() classify.Spec { return classify.Spec{Costs: true} }

func (f *fakeCosts) Classify(_ context.Context, s *classify.Split) (*classify.Outcome, error) {
	p := slices.Index(f.parts, s.Data)
	out := &classify.Outcome{CostClasses: []int{0, 1}}
	for _, i := range s.Test {
		good, bad := 1.0, 2.0
		if !f.right[p] {
			good, bad = bad, good
		}
		c := []float64{bad, bad}
		c[s.Data.Labels[i]] = good
		for k := range c {
			c[k] *= f.scale[p]
		}
		out.Costs = append(out.Costs, c)
		out.Pred = append(out.Pred, argmin(c))
	}
	return out, nil
}

// TestChooseFusion checks the choice by cross-validation on parts built so
// that the sum is wrong (a large-scale part that is always wrong) and the
// other rules right: it must pick the first right rule listed, and the
// weights must follow the parts' accuracies.
func TestChooseFusion(t *testing.T) {
	labels := []int{0, 0, 0, 0, 1, 1, 1, 1}
	d := &classify.Data{Labels: labels}
	f := &fakeCosts{scale: []float64{1000, 1, 1}, right: []bool{false, true, true}}
	for range 3 {
		part := &classify.Data{Labels: labels}
		d.Parts = append(d.Parts, part)
		f.parts = append(f.parts, part)
	}
	s := &classify.Split{Data: d, Train: classify.Seq(0, 8), Folds: 2, Seed: 1}
	for _, tc := range []struct {
		rules []fusionRule
		want  fusionRule
	}{
		{[]fusionRule{fuseSum, fuseNormalized}, fuseNormalized},
		{[]fusionRule{fuseSum, fuseVote, fuseNormalized}, fuseVote},
		{[]fusionRule{fuseSum}, fuseSum},
	} {
		got, err := chooseFusion(context.Background(), f, s, fusing{sets: [][]int{{0, 1, 2}}, layouts: []string{"l"}, rules: tc.rules})
		if err != nil {
			t.Fatal(err)
		}
		if got.rule != tc.want {
			t.Errorf("rules %v: chose %v, want %v", tc.rules, got.rule, tc.want)
		}
	}
	got, err := chooseFusion(context.Background(), f, s, fusing{sets: [][]int{{0}, {1, 2}}, layouts: []string{"a", "b"}, rules: []fusionRule{fuseWeighted}})
	if err != nil {
		t.Fatal(err)
	}
	if got.set != 1 || !slices.Equal(got.weights, []float64{1, 1}) {
		t.Errorf("layouts {0} and {1, 2}: chose %+v, want the second at equal weights", got)
	}
	got, _ = chooseFusion(context.Background(), f, s, fusing{sets: [][]int{{0, 1, 2}}, layouts: []string{"l"}, rules: []fusionRule{fuseWeighted}})
	if !slices.Equal(got.weights, []float64{0, 1.5, 1.5}) {
		t.Errorf("weights %v, want [0 1.5 1.5] (accuracies 0, 1, 1 scaled to sum to 3)", got.weights)
	}
}

// runGratings runs config on 4 classes of 6 gratings in folder g.
func runGratings(t *testing.T, config string) *Results {
	t.Helper()
	root := t.TempDir()
	writeGratings(t, root, "g", 4, 6)
	plan, err := Parse([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), plan, Options{DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// refusal is a config edit (old replaced by new) that Parse must refuse
// with an error containing msg.
type refusal struct{ old, new, msg string }

// checkRefusals checks that Parse refuses every edit of config.
func checkRefusals(t *testing.T, config string, edits []refusal) {
	t.Helper()
	for _, e := range edits {
		_, err := Parse([]byte(strings.Replace(config, e.old, e.new, 1)))
		if err == nil || !strings.Contains(err.Error(), e.msg) {
			t.Errorf("%q: %v, want an error saying %q", e.new, err, e.msg)
		}
	}
}
