package model_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/internal/shareddata"
	"github.com/covpipe/covpipe/model"
)

// feretPoses opens FERET-32 (skipping when it is absent) and returns
// its images of the given poses.
func feretPoses(tb testing.TB, poses ...string) []*datasets.List {
	tb.Helper()
	l, err := datasets.Open("feret:" + shareddata.Dir(tb, "feret-b-32"))
	if err != nil {
		tb.Fatal(err)
	}
	return []*datasets.List{l.Filter(datasets.MetaIs("pose", poses...))}
}

// feretOptions returns the model options that covpipe fit --config
// configs/feret.yaml --method name --where pose=ba,bj,bk makes: the
// method's type and parameters (a best method's candidates), the
// extraction options, and the seed of the folds that a run draws on the
// same training images.
func feretOptions(tb testing.TB, plan *experiment.Plan, name string) model.Options {
	tb.Helper()
	entry := func(name string) (string, map[string]any) {
		typ, node, err := plan.MethodEntry(name)
		if err != nil {
			tb.Fatal(err)
		}
		var params map[string]any
		if err := node.Decode(&params); err != nil {
			tb.Fatal(err)
		}
		return typ, params
	}
	o := model.Options{Folds: plan.Config.Folds}
	if of, oneSE := plan.BestOf(name); of != nil {
		o.Method, o.Params = "best", map[string]any{"rule": map[bool]string{true: "one-se", false: "max"}[oneSE]}
		for _, c := range of {
			typ, params := entry(c)
			o.Candidates = append(o.Candidates, model.Candidate{Name: c, Method: typ, Params: params})
		}
	} else {
		o.Method, o.Params = entry(name)
	}
	ds, err := plan.DescribeOptions()
	if err != nil || len(ds) != 1 {
		tb.Fatalf("%d extraction options: %v", len(ds), err)
	}
	o.Describe = ds[0]
	all, err := datasets.Open("feret:" + shareddata.Dir(tb, "feret-b-32"))
	if err != nil {
		tb.Fatal(err)
	}
	var train []int
	for i, it := range all.Items {
		if p := it.Meta["pose"]; p == "ba" || p == "bj" || p == "bk" {
			train = append(train, i)
		}
	}
	o.Seed = experiment.FoldSeed(plan.Config.Seed, train)
	return o
}

func feretModel(tb testing.TB) *model.Model {
	tb.Helper()
	plan, err := experiment.Load("../configs/feret.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	m, err := model.Fit(context.Background(), feretPoses(tb, "ba", "bj", "bk"), feretOptions(tb, plan, "rsr"))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestFERETEveryMethod fits a model of every method of configs/feret.yaml's
// quick run, as covpipe fit --config does, on the training poses, and
// checks that it labels each test pose with the accuracy that the run
// recorded (docs/runs/feret-quick.json), to the last digit: the methods'
// fit and predict, their saved state and the folds are the run's.
func TestFERETEveryMethod(t *testing.T) {
	if testing.Short() {
		t.Skip("fits eight FERET models")
	}
	plan, err := experiment.Load("../configs/feret.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../docs/runs/feret-quick.json")
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Results []struct {
			Task, Method string
			Accuracy     float64 `json:"accuracy_mean"`
		}
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	train := feretPoses(t, "ba", "bj", "bk")
	for _, name := range plan.Config.Quick.Methods {
		t.Run(name, func(t *testing.T) {
			m, err := model.Fit(context.Background(), train, feretOptions(t, plan, name))
			if err != nil {
				t.Fatal(err)
			}
			m = saveLoad(t, m)
			seen := 0
			for _, r := range run.Results {
				if r.Method != name || r.Task == "average" {
					continue
				}
				seen++
				ps, err := m.Predict(context.Background(), feretPoses(t, r.Task), model.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				right := 0
				for _, p := range ps {
					// FERET names its images SUBJECTpose.png; the subject is the class.
					if p.Path[:5] == p.Label {
						right++
					}
				}
				if got := 100 * float64(right) / float64(len(ps)); len(ps) != 200 || got != r.Accuracy {
					t.Errorf("pose %s: %d images, accuracy %v, the run's %v", r.Task, len(ps), got, r.Accuracy)
				}
			}
			if seen != 4 {
				t.Errorf("the run recorded %d test poses of %s, want 4", seen, name)
			}
		})
	}
}

// BenchmarkPredictFERET labels FERET-32's 800 non-frontal images with the
// rsr model of TestFERET, extraction included; ns/op is per image.
func BenchmarkPredictFERET(b *testing.B) {
	m := feretModel(b)
	test := feretPoses(b, "bg", "bf", "be", "bd")
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Predict(context.Background(), test, model.PredictOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*test[0].Len())/1e6, "ms/image")
}
