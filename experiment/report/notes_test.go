package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
)

// TestWarnings checks when all-zero sparse codes warrant a warning (more
// than 1% of the test queries) and what it suggests: lambda_ratio for an
// absolute λ, a lower ratio for a relative one.
func TestWarnings(t *testing.T) {
	absolute := []map[string]float64{{"lambda": 2, "sigma": 1}, {"lambda": 2, "sigma": 1}}
	relative := []map[string]float64{{"lambda_ratio": 0.5, "sigma": 1}, {"lambda_ratio": 0.5, "sigma": 2}}
	for _, tc := range []struct {
		name   string
		result results.Result
		want   []string // substrings of the one warning; nil: no warning
	}{
		{"all zero", results.Result{Degenerate: []int{30, 30}, TestItems: []int{30, 30}, Params: absolute},
			[]string{"t / m: 60 of 60 sparse codes (100.0%) are all zero", "(lambda = 2; sigma = 1)", "try lambda_ratio"}},
		{"relative", results.Result{Degenerate: []int{2, 0}, TestItems: []int{50, 50}, Params: relative,
			Lambda: &results.Spread{Min: 0.01, Median: 0.02, Max: 0.04, Mean: 0.02}},
			[]string{"2 of 100 sparse codes (2.0%)", "(lambda_ratio = 0.5; sigma = 1, 2); λ per query 0.01 to 0.04", "Lower lambda_ratio."}},
		{"1% is tolerated", results.Result{Degenerate: []int{1, 0}, TestItems: []int{50, 50}, Params: absolute}, nil},
		{"none", results.Result{Degenerate: []int{0}, TestItems: []int{50}, Params: absolute}, nil},
		{"not tested", results.Result{}, nil},
	} {
		tc.result.Task, tc.result.Method = "t", "m"
		got := report.Warnings(&results.Results{Results: []results.Result{tc.result}})
		if tc.want == nil {
			if len(got) != 0 {
				t.Errorf("%s: warnings %q, want none", tc.name, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: warnings %q, want one", tc.name, got)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%s: warning %q lacks %q", tc.name, got[0], w)
			}
		}
	}
}

// TestNotes checks that protocol notes come back once per task, prefixed
// by the task, for the terminal.
func TestNotes(t *testing.T) {
	r := &results.Results{Results: []results.Result{
		{Task: "a", Method: "rsr", Notes: []string{`class "x" has 3 items: 2 for training`}},
		{Task: "a", Method: "nn", Notes: []string{`class "x" has 3 items: 2 for training`}},
		{Task: "b", Method: "rsr"},
		{Task: "c", Method: "sources", Kind: results.KindEnergy, Notes: []string{"the true sources"}},
		{Task: "d", Method: "learned", Kind: results.KindEnergy},
		{Task: "d", Method: "sources", Kind: results.KindEnergy, Notes: []string{"the true sources"}},
		// A best: task chooses per method; two methods at the same task.
		{Task: "best", Method: "random", Notes: []string{"best of [k8 k16]: k16"}},
		{Task: "best", Method: "kmeans", Notes: []string{"best of [k8 k16]: k16"}},
		{Task: "best", Method: "learned", Notes: []string{"best of [k8 k16]: k8"}},
	}}
	want := []string{`a: class "x" has 3 items: 2 for training`, "c: the true sources", "d / sources: the true sources",
		"best / random, kmeans: best of [k8 k16]: k16", "best / learned: best of [k8 k16]: k8"}
	if got := report.Notes(r); !slices.Equal(got, want) {
		t.Errorf("Notes = %q, want %q", got, want)
	}
}
