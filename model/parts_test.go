package model_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
)

// partsOptions are textureOptions with five regions per image: the whole
// image and its four quarters.
func partsOptions(t testing.TB) describe.Options {
	t.Helper()
	o := textureOptions(t)
	var err error
	if o.Regions, err = covariance.ParseLayout("whole+grid:2x2"); err != nil {
		t.Fatal(err)
	}
	return o
}

var allRules = []string{"sum", "normalized", "vote", "weighted"}

// TestPartsAsRun checks that a model of several regions per image answers
// for each test image as covpipe run's data.parts does on a split whose
// training items are the model's images: the same fusion rule and
// weights chosen by cross-validation, the same labels and scores bit for
// bit, and the same pooled class probabilities when asked; and that the
// saved model answers as the fitted one.
func TestPartsAsRun(t *testing.T) {
	trainDir, testDir := gratingFolders(t, 6, 4)
	ctx := context.Background()
	o := partsOptions(t)
	train, test := collect(t, trainDir, o), collect(t, testDir, o)
	const regions = 5
	for _, tc := range methodCases {
		if tc.params["metric"] == "airm" {
			continue // no class costs
		}
		t.Run(tc.method, func(t *testing.T) {
			m, err := model.FitOutput(ctx, train, model.Options{Method: tc.method, Params: tc.params, Seed: 11, Fusion: allRules})
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.PredictOutput(ctx, test, model.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(test.Rows)/regions {
				t.Fatalf("%d answers for %d images", len(got), len(test.Rows)/regions)
			}
			// The run's split: every image an item of five parts, the
			// training images first.
			classes := m.Classes()
			rows := slices.Concat(train.Rows, test.Rows)
			all, err := spd.NewSetFromData(5, slices.Concat(train.Data, test.Data))
			if err != nil {
				t.Fatal(err)
			}
			var labels []int
			for i := 0; i < len(rows); i += regions {
				c, _ := slices.BinarySearch(classes, rows[i].Label)
				labels = append(labels, c)
			}
			data := &classify.Data{Labels: labels, Classes: classes}
			for r := range regions {
				var idx []int
				for i := range labels {
					idx = append(idx, i*regions+r)
				}
				data.Parts = append(data.Parts, &classify.Data{Set: all.Subset(idx), Labels: labels, Classes: classes})
			}
			data.Set = data.Parts[0].Set
			n := len(train.Rows) / regions
			split := &classify.Split{Data: data, Train: classify.Seq(0, n), Test: classify.Seq(n, len(labels)), Seed: 11, Folds: model.DefaultFolds}
			meth := newMethod(t, tc.method, tc.params)
			rules, _ := classify.ParseFusionRules(allRules)
			f := classify.Fusing{Sets: [][]int{classify.Seq(0, regions)}, Layouts: []string{"whole+grid:2x2"}, Rules: rules, Regions: make([]string, regions)}
			choice, err := classify.ChooseFusion(ctx, meth, split, f)
			if err != nil {
				t.Fatal(err)
			}
			p := m.Parts()
			if p == nil || p.Rule != choice.Rule.String() || !slices.Equal(p.Weights, choice.Weights) || len(p.Chosen) != regions {
				t.Fatalf("model's parts %+v, the run's choice %+v", p, choice)
			}
			if p.Regions[0] != "16x16+0+0" || p.Regions[4] != "8x8+8+8" {
				t.Errorf("regions %v, want the whole 16×16 image first and the last quarter last", p.Regions)
			}
			out, err := classify.Run(ctx, &classify.Fused{Method: meth, Fusing: f}, split)
			if err != nil {
				t.Fatal(err)
			}
			right := 0
			for i, s := range out.Scores {
				a := got[i]
				bits := math.Float64bits
				if a.Label != classes[s.Label] || bits(a.Score) != bits(s.Score) || bits(a.SecondScore) != bits(s.SecondScore) || !math.IsNaN(a.SCI) {
					t.Errorf("image %d: model %s %v (second %v, SCI %v), run %s %v (second %v)", i, a.Label, a.Score, a.SecondScore, a.SCI, classes[s.Label], s.Score, s.SecondScore)
				}
				if a.Region != covariance.Whole(16, 16) || a.Path != test.Rows[i*regions].Path {
					t.Errorf("image %d: %s region %v, want %s of the whole 16×16 image", i, a.Path, a.Region, test.Rows[i*regions].Path)
				}
				if filepath.Dir(a.Path) == a.Label {
					right++
				}
			}
			if right < len(got)*3/4 {
				t.Errorf("%d of %d gratings recognised, want at least 3/4", right, len(got))
			}
			back := saveLoad(t, m)
			again, err := back.Predict(ctx, open(t, testDir), model.PredictOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if !same(again[i], got[i]) {
					t.Errorf("image %d: loaded model on images %+v, fitted on descriptors %+v", i, again[i], got[i])
				}
			}
			set, err := spd.NewSetFromData(5, test.Data)
			if err != nil {
				t.Fatal(err)
			}
			bySet, err := back.PredictSet(ctx, set, model.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if bySet[i].Label != got[i].Label || bySet[i].Index != i {
					t.Errorf("PredictSet image %d: %+v, PredictOutput %+v", i, bySet[i], got[i])
				}
			}
			withProbs, err := back.PredictSet(ctx, set, model.PredictOptions{Probabilities: true})
			if err != nil {
				t.Fatal(err)
			}
			sameByClass(t, withProbs, &classify.Fused{Method: meth, Fusing: f}, split, false)
			if _, err := back.PredictSet(ctx, set, model.PredictOptions{Costs: true}); back.Costs() || err == nil || !strings.Contains(err.Error(), "a model of several regions per image gives no class costs") {
				t.Errorf("class costs of a fused model (Costs %v): %v, want a refusal", back.Costs(), err)
			}
			if _, err := back.PredictSet(ctx, set.Subset(classify.Seq(0, 7)), model.PredictOptions{}); err == nil || !strings.Contains(err.Error(), "whole number") && !strings.Contains(err.Error(), "not whole images") {
				t.Errorf("7 matrices for a model of 5 regions: %v", err)
			}
		})
	}
}

// TestPartsErrors checks that fusing regions is refused, with the reason,
// for a method without class costs, descriptors of one region per image,
// an unknown rule, and images described otherwise than the model's.
func TestPartsErrors(t *testing.T) {
	trainDir, testDir := gratingFolders(t, 3, 1)
	ctx := context.Background()
	parts, one := collect(t, trainDir, partsOptions(t)), collect(t, trainDir, textureOptions(t))
	rsr := map[string]any{"sigma": 0.5, "lambda_ratio": 0.1}
	for _, tc := range []struct {
		name   string
		method string
		params map[string]any
		fusion []string
		want   string
	}{
		{"airm", "nn", map[string]any{"metric": "airm"}, []string{"sum"}, "no class costs"},
		{"unknown rule", "rsr", rsr, []string{"mean"}, "fusion rule"},
		{"one region", "rsr", rsr, []string{"sum"}, "several regions"},
	} {
		out := parts
		if tc.name == "one region" {
			out = one
		}
		if _, err := model.FitOutput(ctx, out, model.Options{Method: tc.method, Params: tc.params, Fusion: tc.fusion}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	m, err := model.FitOutput(ctx, parts, model.Options{Method: "rsr", Params: rsr, Fusion: []string{"sum"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(ctx, open(t, testDir), model.PredictOptions{}); err != nil {
		t.Errorf("images described as the model's: %v", err)
	}
	if _, err := m.PredictOutput(ctx, collect(t, testDir, textureOptions(t)), model.PredictOptions{}); err == nil || !strings.Contains(err.Error(), "made otherwise") {
		t.Errorf("descriptors of one region per image: %v", err)
	}
}
