package experiment

import (
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
)

// averageTask reports, for each method, the mean of earlier tasks'
// accuracies repeat by repeat (FERET's "average" column), and of their
// cross-validated estimates when every task has them.
type averageTask struct {
	combinerTask `yaml:",inline"`
	Average      []string `yaml:"average" json:"average"`
}

func (p *averageTask) sources() *[]string { return &p.Average }

func (p *averageTask) combine(done []results.Result, m config.MethodSpec) (results.Result, error) {
	var parts []results.Result
	for _, name := range p.Average {
		for _, r := range done {
			if r.Task == name && r.Method == m.Name {
				parts = append(parts, r)
			}
		}
	}
	if len(parts) != len(p.Average) {
		return results.Result{}, fmt.Errorf("average: method %q lacks results for some of %v", m.Name, p.Average)
	}
	res := results.Result{Task: p.Name, Method: m.Name, Notes: []string{fmt.Sprintf("mean of %v", p.Average)}}
	for r := range parts[0].Runs {
		var s float64
		for _, q := range parts {
			s += q.Runs[r]
		}
		res.Runs = append(res.Runs, s/float64(len(parts)))
	}
	for _, q := range parts {
		res.Seconds += q.Seconds
	}
	// The estimates average as the accuracies do; tasks sharing a
	// training set (FERET's poses) share their choice and its estimate.
	if !slices.ContainsFunc(parts, func(q results.Result) bool { return len(q.CVEstimate) != len(q.Runs) }) {
		for r := range parts[0].Runs {
			var s float64
			for _, q := range parts {
				s += q.CVEstimate[r]
			}
			res.CVEstimate = append(res.CVEstimate, s/float64(len(parts)))
		}
	}
	res.AccuracyMean, res.AccuracyStd = results.MeanStd(res.Runs)
	return res, nil
}
