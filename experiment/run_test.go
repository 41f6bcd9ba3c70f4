package experiment

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/spd"
)

func tinyConfig(t *testing.T) *Config {
	t.Helper()
	cfg, err := Parse([]byte(validYAML))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestRunIndependentOfWorkers(t *testing.T) {
	cfg := tinyConfig(t)
	ref, err := Run(context.Background(), cfg, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3} {
		got, err := Run(context.Background(), cfg, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Results[0].Runs, ref.Results[0].Runs) {
			t.Errorf("workers=%d: runs %v, workers=1: %v", w, got.Results[0].Runs, ref.Results[0].Runs)
		}
	}
	cfg.Seed++
	other, _ := Run(context.Background(), cfg, Options{Workers: 2})
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
	mean, std := meanStd(r.Runs)
	if r.AccuracyMean != mean || r.AccuracyStd != std {
		t.Errorf("summary %v ± %v, recomputed %v ± %v", r.AccuracyMean, r.AccuracyStd, mean, std)
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

func TestResultsFiles(t *testing.T) {
	res, err := Run(context.Background(), tinyConfig(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := res.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
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
	back, err := ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if back.Summary() != res.Summary() {
		t.Error("summary from the re-read results differs")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "| easy |") || !strings.Contains(string(md), "±") {
		t.Errorf("summary.md:\n%s", md)
	}
}

// TestSteinDivergencesComputedOnce proves that methods and splits share
// one Stein divergence matrix per Data.
func TestSteinDivergencesComputedOnce(t *testing.T) {
	train, test, err := datasets.Synthetic(datasets.PaperSynthetic(1, 0.5), 3)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := spd.NewSet(append(train.X, test.X...))
	data := NewData(set, append(train.Labels, test.Labels...), 2)
	var methods []Method
	for _, sigma := range []float64{0.5, 1, 2} {
		m, err := NewMethod(MethodConfig{Name: "rsr", Type: "rsr", Sigma: Floats{sigma}, Lambda: Floats{0.05}})
		if err != nil {
			t.Fatal(err)
		}
		methods = append(methods, m)
	}
	for r := range 3 {
		split := &Split{Data: data, Train: seq(0, 256-r), Test: seq(256, 512), Workers: 2}
		for _, m := range methods {
			if _, err := m.Classify(split); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := data.SteinComputations(); n != 1 {
		t.Errorf("Stein divergence matrix computed %d times, want 1", n)
	}
}

func TestMeanStdAndAccuracy(t *testing.T) {
	m, s := meanStd([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(s-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("meanStd = %v, %v", m, s)
	}
	if _, s := meanStd([]float64{7}); s != 0 {
		t.Errorf("single run std %v", s)
	}
	if a := accuracy([]int{1, 2, 3, 4}, []int{1, 2, 0, 0}); a != 50 {
		t.Errorf("accuracy %v", a)
	}
	if deriveSeed(1, 0, 0) == deriveSeed(1, 0, 1) || deriveSeed(1, 0, 1) == deriveSeed(1, 1, 0) {
		t.Error("derived seeds collide")
	}
}

// TestLambdaRatioRun checks that lambda_ratio codes each query at its own
// λ = ratio·λ_max(x), recorded in results, and that an absolute λ at or
// above every query's λ_max (= 2·max_j k(X, D_j) <= 2 for the normalised
// Stein kernel) gives all-zero codes that the warnings report.
func TestLambdaRatioRun(t *testing.T) {
	ratio := tinyConfig(t)
	ratio.Methods[0].Lambda, ratio.Methods[0].LambdaRatio = nil, Floats{0.2}
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
	if r.Params[0]["lambda_ratio"] != 0.2 || sum(r.Degenerate) != 0 || len(res.Warnings()) != 0 {
		t.Errorf("params %v, %d all-zero codes, warnings %q", r.Params[0], sum(r.Degenerate), res.Warnings())
	}

	big := tinyConfig(t)
	big.Methods[0].Lambda = Floats{2}
	res, err = Run(context.Background(), big, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = res.Results[0]
	if sum(r.Degenerate) != sum(r.TestItems) || r.Lambda.Min != 2 || r.Lambda.Max != 2 {
		t.Errorf("λ = 2: %d of %d codes all zero, spread %+v", sum(r.Degenerate), sum(r.TestItems), r.Lambda)
	}
	w := res.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "(100.0%) are all zero") || !strings.Contains(w[0], "lambda = 2; sigma = 1") ||
		!strings.Contains(w[0], "try lambda_ratio") {
		t.Errorf("warnings %q", w)
	}
	if s := res.Summary(); !strings.Contains(s, "try lambda_ratio") {
		t.Errorf("summary lacks the warning:\n%s", s)
	}
}

func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Spread
	}{
		{[]float64{3}, Spread{3, 3, 3, 3}},
		{[]float64{4, 1, 3}, Spread{1, 3, 4, 8.0 / 3}},
		{[]float64{4, 1, 3, 2}, Spread{1, 2.5, 4, 2.5}},
	} {
		got := spreadOf(tc.in)
		if got.Min != tc.want.Min || got.Median != tc.want.Median || got.Max != tc.want.Max || math.Abs(got.Mean-tc.want.Mean) > 1e-15 {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tc.in, *got, tc.want)
		}
	}
	if spreadOf(nil) != nil {
		t.Error("spreadOf(nil) != nil")
	}
}
