package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
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
		fuse(got, costs, tc.rule, tc.weights)
		for c := range got {
			if math.Abs(got[c]-tc.want[c]) > 1e-12 {
				t.Errorf("%v: %v, want %v", tc.rule, got, tc.want)
				break
			}
		}
	}
	// A part whose cheapest class costs 0 is divided by its mean instead.
	got := make([]float64, 2)
	fuse(got, [][]float64{{0, 4}}, fuseNormalized, nil)
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
	root := t.TempDir()
	writeGratings(t, root, "g", 4, 6)
	const config = `
name: parts
seed: 3
repeats: 2
folds: 2
data:
  dataset: g
  features: I,Ix,Iy
  parts: {regions: whole+grid:2x2, fusion: [sum, normalized, vote, weighted]}
tasks:
  - {name: r, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
  - {name: nn-stein, type: nn, metric: stein}
  - {name: nn-airm, type: nn, metric: airm}
`
	plan, err := Parse([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), plan, Options{DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
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
			if !slices.Contains(fusionNames, f.Rule) || !slices.Equal(f.Regions, wantRegions) || len(f.Weights) != 5 || len(f.PartAccuracy) != 5 {
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
	for _, tc := range []struct{ edit, msg string }{
		{"  parts: {regions: whole+grid:2x2, fusion: [sum, normalized, vote, weighted]}\n", ""},
		{"  parts: {regions: whole}\n", "at least two regions"},
		{"  parts: {regions: grid:2x2, fusion: [mean]}\n", `fusion rule "mean"`},
		{"  regions: grid:2x2\n  parts: {regions: grid:2x2}\n", "exclude each other"},
	} {
		c := strings.Replace(config, "  parts: {regions: whole+grid:2x2, fusion: [sum, normalized, vote, weighted]}\n", tc.edit, 1)
		_, err := Parse([]byte(c))
		if tc.msg == "" {
			if err != nil {
				t.Errorf("unchanged config: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want an error saying %q", tc.edit, err, tc.msg)
		}
	}
	if _, err := Parse([]byte(strings.Replace(config, "folds: 2", "folds: 1", 1))); err == nil || !strings.Contains(err.Error(), "data.parts.fusion") {
		t.Errorf("fusion by cross-validation with one fold: %v", err)
	}
	open := strings.Replace(config, "  - {name: r, split: {train_per_class: 4}}", "  - {name: o, split: {train_per_class: 4}, open_set: {unknown: 0.5}}", 1)
	if _, err := Parse([]byte(open)); err == nil || !strings.Contains(err.Error(), "open set tasks classify one descriptor per item") {
		t.Errorf("parts on an open-set task: %v", err)
	}
}
