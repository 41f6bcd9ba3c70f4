package experiment

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/foldertest"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"go.yaml.in/yaml/v3"
)

func tinyConfig(t *testing.T) *Plan {
	t.Helper()
	plan, err := Parse([]byte(validYAML))
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestRunIndependentOfWorkers(t *testing.T) {
	plan := tinyConfig(t)
	plan.Config.Workers = 1
	ref, err := Run(context.Background(), plan, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3} {
		plan.Config.Workers = w
		got, err := Run(context.Background(), plan, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Results[0].Runs, ref.Results[0].Runs) {
			t.Errorf("workers=%d: runs %v, workers=1: %v", w, got.Results[0].Runs, ref.Results[0].Runs)
		}
	}
	plan.Config.Seed++
	other, _ := Run(context.Background(), plan, Options{})
	if reflect.DeepEqual(other.Results[0].Runs, ref.Results[0].Runs) {
		t.Error("a different seed gave identical runs")
	}
}

func TestRunStatistics(t *testing.T) {
	cfg := tinyConfig(t)
	res, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if len(r.Runs) != 3 || len(r.Degenerate) != 3 || len(r.Params) != 3 {
		t.Fatalf("per-repeat records: %+v", r)
	}
	// The summary against a two-pass mean and sample deviation written out
	// here, not results.MeanStd.
	mean := (r.Runs[0] + r.Runs[1] + r.Runs[2]) / 3
	var ss float64
	for _, a := range r.Runs {
		ss += (a - mean) * (a - mean)
	}
	if std := math.Sqrt(ss / 2); math.Abs(r.AccuracyMean-mean) > 1e-12 || math.Abs(r.AccuracyStd-std) > 1e-12 {
		t.Errorf("summary %v ± %v, recomputed %v ± %v", r.AccuracyMean, r.AccuracyStd, mean, std)
	}
	if r.Runs[0] == r.Runs[1] && r.Runs[1] == r.Runs[2] {
		t.Errorf("three repeats with fresh samples gave the same accuracy %v", r.Runs)
	}
	// Each repeat's accuracy is the share of its test items predicted
	// right: a multiple of 100/30 on 30 test items.
	for _, a := range r.Runs {
		if k := a * 30 / 100; math.Abs(k-math.Round(k)) > 1e-9 {
			t.Errorf("accuracy %v is not k/30", a)
		}
	}
	for _, a := range r.Runs {
		if a < 0 || a > 100 {
			t.Errorf("accuracy %v out of [0, 100]", a)
		}
	}
	if r.Params[0]["sigma"] != 1 || r.Params[0]["lambda"] != 0.05 {
		t.Errorf("params %v", r.Params[0])
	}
}

func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, tinyConfig(t), Options{}); err == nil {
		t.Error("canceled run succeeded")
	}
}

// TestRunCancelledWhileRunning checks that a run cancelled while it
// works, on tasks far too large to finish before the cancel (the pairwise
// stage and methods of a classification task; an energy curve), returns
// an error wrapping context.Canceled and no results.
func TestRunCancelledWhileRunning(t *testing.T) {
	for _, cfg := range []string{`
name: large
repeats: 1
workers: 1
tasks:
  - name: big
    synthetic: {classes: 10, dim: 16, samples: 3000, train: 0.5, spread: 1, variance: 2}
methods:
  - {name: rsr, sigma: 8, lambda_ratio: 0.01}
  - {name: svm, type: stein-svm, sigma: 8, c: [1, 10]}
  - {name: rlpp, type: rlpp, sigma: 8}
`, `
name: large-curve
repeats: 1
workers: 1
tasks:
  - {name: fig7, energy_curve: {sources: 8, dim: 8, points: 200, samples: 3000, mix: 3, atoms: 64, iters: 10}}
methods:
  - {name: learned, type: codes, dictionary: learned, sigma: 4, lambda_ratio: 0.1}
`} {
		plan, err := Parse([]byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(canceltest.Soon(t), plan, Options{})
		canceltest.Check(t, plan.Config.Name, err)
		if res != nil {
			t.Errorf("%s: results came with the error", plan.Config.Name)
		}
	}
}

// TestResultsFiles checks results.json: its keys, and that results.Read
// gives back the results written.
func TestResultsFiles(t *testing.T) {
	res, err := Run(context.Background(), tinyConfig(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	b, err := res.Encode()
	if err != nil {
		t.Fatal(err)
	}
	foldertest.WriteFile(t, filepath.Join(dir, "results.json"), b)
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "version", "seed", "repeats", "cores", "config", "results", "seconds"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("results.json lacks %q", k)
		}
	}
	first := raw["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"task", "method", "accuracy_mean", "accuracy_std", "seconds", "runs"} {
		if _, ok := first[k]; !ok {
			t.Errorf("result entry lacks %q", k)
		}
	}
	if _, ok := first["kind"]; ok {
		t.Error("an accuracy result records its kind")
	}
	back, err := results.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(back.Results)
	want, _ := json.Marshal(res.Results)
	if string(got) != string(want) {
		t.Errorf("results read back:\n%s\nwritten:\n%s", got, want)
	}
}

// TestSteinDivergencesComputedOnce proves that methods and cross-validation
// folds on a split share its Stein divergences, and that only the blocks
// the split needs are computed: the training set against itself (one
// triangle) and the test items against it, never all n² pairs.
func TestSteinDivergencesComputedOnce(t *testing.T) {
	train, test, err := synth.Classes(synth.Paper(1, 0.5), 3)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := spd.NewSet(append(train.X, test.X...))
	data := classify.NewData(set, append(train.Labels, test.Labels...), 2)
	var methods []classify.Method
	for _, sigma := range []string{"0.5", "1", "2"} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte("{sigma: "+sigma+", lambda: 0.05}"), &n); err != nil {
			t.Fatal(err)
		}
		m, err := method.Types()["rsr"].New(n.Content[0])
		if err != nil {
			t.Fatal(err)
		}
		methods = append(methods, m)
	}
	var want int64
	for r := range 3 {
		m := int64(256 - r)
		split := &classify.Split{Data: data, Train: classify.Seq(0, 256-r), Test: classify.Seq(256, 512), Workers: 2}
		for _, m := range methods {
			if _, err := classify.Run(context.Background(), m, split); err != nil {
				t.Fatal(err)
			}
		}
		want += m*(m-1)/2 + 256*m
	}
	if n := data.SteinComputations(); n != want {
		t.Errorf("%d Stein divergences computed, want %d (each split's blocks once)", n, want)
	}
}

func TestAccuracyAndSeeds(t *testing.T) {
	if a := classify.Accuracy([]int{1, 2, 3, 4}, []int{1, 2, 0, 0}); a != 50 {
		t.Errorf("accuracy %v", a)
	}
	if deriveSeed(1, 0, 0) == deriveSeed(1, 0, 1) || deriveSeed(1, 0, 1) == deriveSeed(1, 1, 0) {
		t.Error("derived seeds collide")
	}
}

// TestLambdaRatioRun checks that lambda_ratio codes each query at its own
// λ = ratio·λ_max(x), recorded in results, and that an absolute λ at or
// above every query's λ_max (= 2·max_j k(X, D_j) <= 2 for the normalised
// Stein kernel) gives all-zero codes, counted in the results (the report
// warns of them).
func TestLambdaRatioRun(t *testing.T) {
	ratio, err := Parse([]byte(strings.Replace(validYAML, "lambda: 0.05", "lambda_ratio: 0.2", 1)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), ratio, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if r.Lambda == nil || !(r.Lambda.Min > 0) || !(r.Lambda.Min < r.Lambda.Max) || r.Lambda.Max > 0.2*2 {
		t.Errorf("lambda spread %+v, want per-query values in (0, 0.4]", r.Lambda)
	}
	if !(r.Lambda.Min <= r.Lambda.Median && r.Lambda.Median <= r.Lambda.Max) {
		t.Errorf("lambda spread %+v out of order", r.Lambda)
	}
	if r.Params[0]["lambda_ratio"] != 0.2 || sum(r.Degenerate) != 0 {
		t.Errorf("params %v, %d all-zero codes", r.Params[0], sum(r.Degenerate))
	}

	big, err := Parse([]byte(strings.Replace(validYAML, "lambda: 0.05", "lambda: 2", 1)))
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(context.Background(), big, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = res.Results[0]
	if sum(r.Degenerate) != sum(r.TestItems) || r.Lambda.Min != 2 || r.Lambda.Max != 2 {
		t.Errorf("λ = 2: %d of %d codes all zero, spread %+v", sum(r.Degenerate), sum(r.TestItems), r.Lambda)
	}
	if r.Params[0]["lambda"] != 2 || r.Params[0]["sigma"] != 1 {
		t.Errorf("λ = 2: params %v", r.Params[0])
	}
}

// BenchmarkSyntheticProtocol runs configs/synthetic.yaml with 10 repeats
// per task (the full protocol has 100).
func BenchmarkSyntheticProtocol(b *testing.B) {
	plan, err := Load("../configs/synthetic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	plan.Config.Repeats = 10
	for b.Loop() {
		if _, err := Run(context.Background(), plan, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
