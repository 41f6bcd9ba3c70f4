package experiment

import (
	"context"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/experiment/results"
)

// TestBestMethod runs best over two methods on gratings and checks that
// each repeat reports a candidate's name and exactly that candidate's
// accuracy in the repeat (the winner's outcome, not a new one), and that
// configs best cannot run are refused, naming why.
func TestBestMethod(t *testing.T) {
	const config = `
name: best
seed: 5
repeats: 3
folds: 2
data:
  dataset: g
  features: I,Ix,Iy
tasks:
  - {name: r, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
  - {name: nn-stein, type: nn, metric: stein}
  - {name: best}
`
	res := runGratings(t, config)
	runs := map[string][]float64{}
	var best results.Result
	for _, x := range res.Results {
		runs[x.Method] = x.Runs
		if x.Method == "best" {
			best = x
		}
	}
	if len(best.Chosen) != 3 {
		t.Fatalf("best chose %v, want one method per repeat", best.Chosen)
	}
	// best records the cross-validated accuracy of each repeat's choice;
	// the methods that choose nothing record none.
	if len(best.CVEstimate) != 3 || slices.ContainsFunc(best.CVEstimate, func(a float64) bool { return a < 0 || a > 100 }) {
		t.Errorf("best's estimates %v, want one accuracy per repeat", best.CVEstimate)
	}
	for _, x := range res.Results {
		if x.Method != "best" && x.CVEstimate != nil {
			t.Errorf("%s chose nothing but records estimates %v", x.Method, x.CVEstimate)
		}
	}
	for r, name := range best.Chosen {
		if !slices.Contains([]string{"rsr", "nn-stein"}, name) {
			t.Fatalf("repeat %d: chose %q", r, name)
		}
		if best.Runs[r] != runs[name][r] {
			t.Errorf("repeat %d: best %v, its choice %s %v", r, best.Runs[r], name, runs[name][r])
		}
	}
	// Only best kept: its candidates still run inside it.
	plan, err := Parse([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.KeepMethods([]string{"best"}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeGratings(t, root, "g", 4, 6)
	alone, err := Run(context.Background(), plan, Options{DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	if got := alone.Results[0]; !slices.Equal(got.Runs, best.Runs) || !slices.Equal(got.Chosen, best.Chosen) {
		t.Errorf("best alone: %v %v, with the others %v %v", got.Runs, got.Chosen, best.Runs, best.Chosen)
	}
	const line = "  - {name: best}"
	checkRefusals(t, config, []refusal{
		{line, "  - {name: best, of: [rsr, svm]}", `of: no method "svm"`},
		{line, "  - {name: best, of: [rsr]}", "at least two methods"},
		{line, "  - {name: best, of: [rsr, rsr]}", "listed twice"},
		{line, "  - {name: best, of: [rsr, nn-stein], c: 1}", `unknown key "c"`},
		{line, "  - {name: best, rule: min}", `rule "min": want max or one-se`},
		{line, "  - {name: best}\n  - {name: b2, type: best, of: [rsr, best]}", "is itself a best method"},
		{"folds: 2", "folds: 1", "chooses by cross-validation"},
		{"  - {name: r, split: {train_per_class: 4}}", "  - {name: o, split: {train_per_class: 4}, open_set: {unknown: 0.5}}", "best applies to"},
	})
}
