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

// feretModel fits rsr as configs/feret.yaml does on the frontal poses.
func feretModel(tb testing.TB) *model.Model {
	tb.Helper()
	train := feretPoses(tb, "ba", "bj", "bk")
	plan, err := experiment.Load("../configs/feret.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	typ, node, err := plan.MethodEntry("rsr")
	if err != nil {
		tb.Fatal(err)
	}
	o := model.Options{Method: typ, Seed: plan.Config.Seed, Folds: plan.Config.Folds}
	if err := node.Decode(&o.Params); err != nil {
		tb.Fatal(err)
	}
	ds, err := plan.DescribeOptions()
	if err != nil || len(ds) != 1 {
		tb.Fatalf("%d extraction options: %v", len(ds), err)
	}
	o.Describe = ds[0]
	m, err := model.Fit(context.Background(), train, o)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestFERET fits rsr on FERET-32's frontal poses as configs/feret.yaml
// does and checks that its accuracy on each other pose is the run's, as
// docs/runs/feret.json records it.
func TestFERET(t *testing.T) {
	m := feretModel(t)
	b, err := os.ReadFile("../docs/runs/feret.json")
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
	for _, r := range run.Results {
		if r.Method != "rsr" || r.Task == "average" {
			continue
		}
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
