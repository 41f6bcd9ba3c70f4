package model_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"github.com/covpipe/covpipe/synth"
)

// synthOutput returns n synthetic labelled d×d descriptors of 4 classes
// (the paper's Table 1 data) as the descriptors of a folder.
func synthOutput(t *testing.T, n, d int) *store.Output {
	t.Helper()
	train, _, err := synth.Classes(synth.Options{Classes: 4, Dim: d, Samples: 2 * n, Train: 0.5, Spread: 1, Variance: 0.1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := &store.Output{Meta: store.Meta{Dim: d}}
	for i, x := range train.X {
		out.Rows = append(out.Rows, store.Row{Index: i, Label: fmt.Sprint("c", train.Labels[i])})
		for r := range d {
			for c := range d {
				out.Data = append(out.Data, x.At(r, c))
			}
		}
	}
	return out
}

// TestCancel checks that fitting and predicting stop with an error
// wrapping context.Canceled, cancelled before the call on a tiny problem
// and while it runs on one far too large to finish first.
func TestCancel(t *testing.T) {
	tiny, mid, big := synthOutput(t, 16, 3), synthOutput(t, 200, 12), synthOutput(t, 3000, 12)
	queries, err := spd.NewSetFromData(12, synthOutput(t, 8000, 12).Data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range methodCases {
		t.Run(tc.method, func(t *testing.T) {
			o := model.Options{Method: tc.method, Params: tc.params}
			if tc.method == "stein-svm" || tc.method == "rsr" {
				o.Params = map[string]any{"sigma": 0.5, "lambda_ratio": []float64{0.05, 0.2}}
				if tc.method == "stein-svm" {
					o.Params = map[string]any{"sigma": 0.5, "c": []float64{1, 100}}
				}
			}
			_, err := model.FitOutput(canceltest.Cancelled(t), tiny, o)
			canceltest.Check(t, "fit, cancelled before, tiny problem", err)
			// nn keeps its training descriptors: its fit computes nothing.
			if tc.method != "nn" {
				_, err = model.FitOutput(canceltest.Soon(t), big, o)
				canceltest.Check(t, "fit, cancelled while running, large problem", err)
			}

			m, err := model.FitOutput(context.Background(), mid, o)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.PredictSet(canceltest.Cancelled(t), queries.Subset([]int{0}), model.PredictOptions{})
			canceltest.Check(t, "predict, cancelled before, tiny problem", err)
			_, err = m.PredictSet(canceltest.Soon(t), queries, model.PredictOptions{})
			canceltest.Check(t, "predict, cancelled while running, large problem", err)
		})
	}
}
