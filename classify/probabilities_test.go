package classify

import (
	"context"
	"math"
	"testing"
)

// TestFusedProbabilities checks the fused class probabilities of items
// of three parts against the linear pool in closed form: the mean of the
// parts' rows under the sum rule, and under the weighted rule their mean
// weighted by the parts' accuracies (0, 1, 1, as TestChooseFusion's);
// none when the query does not ask or the method gives none.
func TestFusedProbabilities(t *testing.T) {
	labels := []int{0, 0, 0, 0, 1, 1, 1, 1}
	d := &Data{Labels: labels}
	f := &fakeCosts{scale: []float64{1000, 1, 1}, right: []bool{false, true, true},
		probs: [][]float64{{0.2, 0.8}, {0.9, 0.1}, {0.6, 0.4}}}
	for range 3 {
		part := &Data{Labels: labels}
		d.Parts = append(d.Parts, part)
		f.parts = append(f.parts, part)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		rule FusionRule
		want float64 // the probability of an item's own class
	}{
		{FuseSum, (0.2 + 0.9 + 0.6) / 3},
		{FuseWeighted, (0.9 + 0.6) / 2},
	} {
		fused := &Fused{Method: f, Fusing: Fusing{Sets: [][]int{{0, 1, 2}}, Layouts: []string{"l"}, Rules: []FusionRule{tc.rule}, Regions: []string{"a", "b", "c"}}}
		fit, err := fused.Fit(ctx, &Train{Data: d, Items: Seq(0, 8), Folds: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		out, err := fit.Predict(ctx, &Query{Data: d, Items: Seq(0, 8), Probabilities: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Probabilities) != 8 || len(out.CostClasses) != 2 {
			t.Fatalf("%v: %d rows over classes %v", tc.rule, len(out.Probabilities), out.CostClasses)
		}
		for q, p := range out.Probabilities {
			own := labels[q]
			if math.Abs(p[own]-tc.want) > 1e-15 || math.Abs(p[1-own]-(1-tc.want)) > 1e-15 {
				t.Errorf("%v: item %d (class %d): probabilities %v, want %v for its class", tc.rule, q, own, p, tc.want)
			}
		}
		out, err = fit.Predict(ctx, &Query{Data: d, Items: Seq(0, 8)})
		if err != nil || out.Probabilities != nil {
			t.Errorf("%v: not asked, %d rows, %v", tc.rule, len(out.Probabilities), err)
		}
	}
	noProbs := &fakeCosts{parts: f.parts, scale: f.scale, right: f.right}
	fused := &Fused{Method: noProbs, Fusing: Fusing{Sets: [][]int{{0, 1, 2}}, Layouts: []string{"l"}, Rules: []FusionRule{FuseSum}, Regions: []string{"a", "b", "c"}}}
	fit, err := fused.Fit(ctx, &Train{Data: d, Items: Seq(0, 8), Folds: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := fit.Predict(ctx, &Query{Data: d, Items: Seq(0, 8), Probabilities: true}); err != nil || out.Probabilities != nil {
		t.Errorf("a method without probabilities fused: %d rows, %v", len(out.Probabilities), err)
	}
	if fused.Spec().Probabilities {
		t.Error("a fused method without probabilities declares them")
	}
}

// TestBestProbabilities checks that a best method declares class
// probabilities exactly when every candidate does.
func TestBestProbabilities(t *testing.T) {
	with, without := &fakeCosts{probs: [][]float64{{1, 0}}}, &fakeCosts{}
	for _, tc := range []struct {
		methods []Method
		want    bool
	}{
		{[]Method{with, with}, true},
		{[]Method{with, without}, false},
		{[]Method{without, with}, false},
	} {
		b := &Best{Names: []string{"a", "b"}, Methods: tc.methods}
		if got := b.Spec().Probabilities; got != tc.want {
			t.Errorf("candidates giving probabilities %v, %v: Spec.Probabilities %v", tc.methods[0].Spec().Probabilities, tc.methods[1].Spec().Probabilities, got)
		}
	}
}
