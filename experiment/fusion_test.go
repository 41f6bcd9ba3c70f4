package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/results"
)

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
			if f.Layout != "whole+grid:2x2" || !slices.Contains(classify.FusionRules, f.Rule) || !slices.Equal(f.Regions, wantRegions) || len(f.Weights) != 5 || len(f.PartAccuracy) != 5 {
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
		{parts, "  parts: {regions: \"grid:2x2,blocks:3:4\"}\n", "same place in every image"},
		{"folds: 2", "folds: 1", "data.parts' layout and fusion rule"},
		{"  - {name: r, split: {train_per_class: 4}}", "  - {name: o, split: {train_per_class: 4}, open_set: {unknown: 0.5}}", "open set tasks classify one descriptor per item"},
	})
}

// TestPartsLayouts runs a split task choosing among three layouts, one
// the other two joined, and the joined one alone, and checks that
// every repeat records one of them with its own regions, in the order the
// layout places them.
func TestPartsLayouts(t *testing.T) {
	const config = `
name: layouts
seed: 3
repeats: 3
folds: 2
data:
  dataset: g
  features: I,Ix,Iy
  parts: {regions: [whole, "whole,grid:2x2:12", grid:2x2:12], fusion: [sum, vote]}
tasks:
  - {name: r, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
`
	// A candidate joined by commas, alone, so that it is the one chosen.
	joined := strings.Replace(config, `[whole, "whole,grid:2x2:12", grid:2x2:12]`, `"whole,grid:2x2:12"`, 1)
	checkLayouts(t, runGratings(t, config))
	res := runGratings(t, joined)
	checkLayouts(t, res)
	if got := res.Results[0].Parts[0].Layout; got != "whole,grid:2x2:12" {
		t.Errorf("layout %q, want the joined candidate", got)
	}
}

// checkLayouts checks that each repeat of res's first result records one
// of TestPartsLayouts' candidates with its regions in order.
func checkLayouts(t *testing.T, res *results.Results) {
	t.Helper()
	want := map[string][]string{
		"whole":       {"16x16+0+0"},
		"grid:2x2:12": {"12x12+0+0", "12x12+4+0", "12x12+0+4", "12x12+4+4"},
		// a candidate joined by commas: the regions of both in turn
		"whole,grid:2x2:12": {"16x16+0+0", "12x12+0+0", "12x12+4+0", "12x12+0+4", "12x12+4+4"},
	}
	for _, f := range res.Results[0].Parts {
		if w, ok := want[f.Layout]; !ok || !slices.Equal(f.Regions, w) || len(f.PartAccuracy) != len(w) || len(f.Weights) != len(w) {
			t.Errorf("%+v", f)
		}
	}
}

// runGratings runs config on 4 classes of 6 gratings in folder g.
func runGratings(t *testing.T, config string) *results.Results {
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
