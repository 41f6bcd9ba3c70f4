package report_test

import (
	"testing"

	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
)

// TestTables pins the terminal's tables: each kind under its own heading,
// the accuracy table alone when there are no energy curves and the
// reverse.
func TestTables(t *testing.T) {
	for _, tc := range []struct{ fixture, want string }{
		{"testdata/accuracy.json", "tiny: accuracy % (mean ± std over 3 repeats)\n\n" +
			"| task | rsr | nn |\n|---|---:|---:|\n" +
			"| easy | 83.33 ± 3.3 | 70.00 ± 0.0 |\n| hard | 33.33 ± 5.8 | 55.56 ± 1.9 |\n| avg | 58.33 ± 1.7 | – |\n" +
			"| run time (s) | 1.8 | 0.1 |\n"},
		{"testdata/energy.json", "dictionary-synthetic: representation energy J (Eqn. 10) after the last iteration, mean ± std over 2 repeats\n\n" +
			"| task | learned | kmeans | sources |\n|---|---:|---:|---:|\n" +
			"| fig7 | 61.5 ± 0.71 | 64.62 ± 0.18 | 313.5 ± 0.71 |\n" +
			"| run time (s) | 0.2 | 0.8 | 0.0 |\n"},
		{"testdata/mixed.json", "mixed: accuracy % (mean ± std over 2 repeats)\n\n" +
			"| task | learned |\n|---|---:|\n| easy | 83.33 ± 3.3 |\n| run time (s) | 0.5 |\n" +
			"\nmixed: representation energy J (Eqn. 10) after the last iteration, mean ± std over 2 repeats\n\n" +
			"| task | learned | sources |\n|---|---:|---:|\n| fig7 | 61.5 ± 0.71 | 313.5 ± 0.71 |\n| run time (s) | 0.2 | 0.0 |\n"},
	} {
		r, err := results.Read(tc.fixture)
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Tables(r); got != tc.want {
			t.Errorf("%s: Tables =\n%s\nwant\n%s", tc.fixture, got, tc.want)
		}
	}
	if got := report.EnergyTable(&results.Results{Results: []results.Result{{Task: "t", Method: "m"}}}); got != "" {
		t.Errorf("energy table of accuracies: %q", got)
	}
}
