package report_test

import (
	"fmt"

	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
)

// An experiment's results laid out as the paper's Table 1: a row per
// task, a column per method, mean ± standard deviation over repeats.
func ExampleAccuracyTable() {
	r := &results.Results{Results: []results.Result{
		{Task: "easy", Method: "rsr", AccuracyMean: 93.75, AccuracyStd: 1.25, Seconds: 2.5},
		{Task: "easy", Method: "nn", AccuracyMean: 80, AccuracyStd: 2, Seconds: 0.5},
		{Task: "hard", Method: "rsr", AccuracyMean: 71.5, AccuracyStd: 3.5, Seconds: 2.5},
	}}
	fmt.Print(report.AccuracyTable(r))
	// Output:
	// | task | rsr | nn |
	// |---|---:|---:|
	// | easy | 93.75 ± 1.2 | 80.00 ± 2.0 |
	// | hard | 71.50 ± 3.5 | – |
	// | run time (s) | 5.0 | 0.5 |
}
