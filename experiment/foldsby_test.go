package experiment_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment"
)

// TestFoldsBy runs FERET's protocol on the miniature faces with folds by
// training pose: the λ choice is made, its cross-validated accuracy
// recorded beside the test accuracy (and averaged with it), and a key the
// items lack is refused naming it.
func TestFoldsBy(t *testing.T) {
	root := tinyDataRoot(t)
	const config = `
name: folds-by
seed: 1
repeats: 1
folds: 3
folds_by: pose
data:
  dataset: feret:feret-b-32
  features: I,x,y
tasks:
  - {name: bg, train: {pose: [ba, bj, bk]}, test: {pose: [bg]}}
  - {name: bf, train: {pose: [ba, bj, bk]}, test: {pose: [bf]}}
  - {name: average, average: [bg, bf]}
methods:
  - {name: rsr, sigma: 0.5, lambda_ratio: [0.05, 0.4]}
  - {name: nn-stein, type: nn, metric: stein}
`
	run := func(config string) (*experiment.Plan, error) {
		plan, err := experiment.Parse([]byte(config))
		if err != nil {
			return nil, err
		}
		_, err = experiment.Run(context.Background(), plan, experiment.Options{DataRoot: root})
		return plan, err
	}
	plan, err := experiment.Parse([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Config.FoldsBy != "pose" {
		t.Fatalf("folds_by read as %q", plan.Config.FoldsBy)
	}
	res, err := experiment.Run(context.Background(), plan, experiment.Options{DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	est := map[string][]float64{}
	for _, r := range res.Results {
		if r.Method == "rsr" {
			est[r.Task] = r.CVEstimate
		}
		switch {
		case r.Method == "rsr" && (len(r.CVEstimate) != 1 || r.CVEstimate[0] < 0 || r.CVEstimate[0] > 100):
			t.Errorf("rsr's estimate %v, want one accuracy", r.CVEstimate)
		case r.Method == "nn-stein" && r.CVEstimate != nil:
			t.Errorf("nn-stein chose nothing but records %v", r.CVEstimate)
		}
	}
	// The poses share their training set, so their choice and its
	// estimate, which the average keeps.
	if !slices.Equal(est["bg"], est["bf"]) || !slices.Equal(est["average"], est["bg"]) {
		t.Errorf("estimates by task %v, want bg's in bf and average", est)
	}
	if _, err := run(strings.Replace(config, "folds_by: pose", "folds_by: camera", 1)); err == nil || !strings.Contains(err.Error(), `folds_by: camera: item`) {
		t.Errorf("folds_by camera on faces: %v, want an error naming the key", err)
	}
}
