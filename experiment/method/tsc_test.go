package method

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/classify"
	"go.yaml.in/yaml/v3"
)

// newTSCMethod builds a tsc method from its parameters in YAML, calling
// the constructor directly.
func newTSCMethod(t testing.TB, params string) (classify.Method, error) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(params), &n); err != nil {
		t.Fatal(err)
	}
	return newTSC(n.Content[0])
}

// TestTSCSynthetic checks that tensor sparse coding classifies
// well-separated synthetic classes far above chance (25%), ranks every
// class, and gives the same outcome whatever the worker count.
func TestTSCSynthetic(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 200, 0.2, 21)
	m, err := newTSCMethod(t, "{lambda: 0.01}")
	if err != nil {
		t.Fatal(err)
	}
	var outs []*classify.Outcome
	for _, w := range []int{1, 3} {
		out, err := m.Classify(context.Background(), &classify.Split{Data: data, Train: train, Test: test, Workers: w, Ranks: 4})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	out := outs[0]
	if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 80 {
		t.Errorf("accuracy %.1f%% on well-separated classes", acc)
	}
	for q, r := range out.Ranking {
		if len(r) != 4 || r[0] != out.Pred[q] {
			t.Fatalf("ranking %v vs prediction %d", r, out.Pred[q])
		}
	}
	if out.Unconverged != 0 || out.Degenerate != 0 {
		t.Errorf("%d unconverged, %d degenerate codes", out.Unconverged, out.Degenerate)
	}
	if !reflect.DeepEqual(out.Params, map[string]float64{"lambda": 0.01, "ridge": 0}) {
		t.Errorf("params %v", out.Params)
	}
	if !reflect.DeepEqual(outs[0], outs[1]) {
		t.Error("outcome depends on the worker count")
	}
}

// TestTSCSelect checks that a λ list is chosen by cross-validation among
// the candidates, and that candidates without folds are refused.
func TestTSCSelect(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 120, 0.2, 22)
	m, err := newTSCMethod(t, "{lambda: [0, 0.1], tolerance: 1e-6}")
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Spec().Candidates; c != 2 {
		t.Errorf("%d candidates, want 2", c)
	}
	out, err := m.Classify(context.Background(), &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if l := out.Params["lambda"]; l != 0 && l != 0.1 {
		t.Errorf("chose λ = %v", l)
	}
	if _, err := m.Classify(context.Background(), &classify.Split{Data: data, Train: train, Test: test, Folds: 1}); err == nil {
		t.Error("candidates without folds accepted")
	}
}

func TestTSCParamErrors(t *testing.T) {
	for _, tc := range []struct{ params, err string }{
		{"{tolerance: 1e-6}", "lambda is required"},
		{"{lambda: -1}", "lambda"},
		{"{lambda: [0.1, 0.1]}", "twice"},
		{"{lambda: 0.1, tolerance: 2}", "tolerance"},
		{"{lambda: 0.1, sigma: 1}", "sigma"},
	} {
		_, err := newTSCMethod(t, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.params, err, tc.err)
		}
	}
}

// BenchmarkTSCSynthetic is BenchmarkRSRSynthetic for tsc: one repeat of
// the hard synthetic task, 256 MAXDET codes over 256 atoms.
func BenchmarkTSCSynthetic(b *testing.B) {
	data, train, test := syntheticData(b, 4, 3, 512, 2.0, 77)
	m, err := newTSCMethod(b, "lambda: 0.05")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Classify(context.Background(), &classify.Split{Data: data, Train: train, Test: test, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
