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
	res.Runs = repeatMeans(parts, func(q results.Result) []float64 { return q.Runs })
	for _, q := range parts {
		res.Seconds += q.Seconds
	}
	// The estimates average as the accuracies do; tasks sharing a
	// training set (FERET's poses) share their choice and its estimate.
	if !slices.ContainsFunc(parts, func(q results.Result) bool { return len(q.CVEstimate) != len(q.Runs) }) {
		res.CVEstimate = repeatMeans(parts, func(q results.Result) []float64 { return q.CVEstimate })
	}
	res.AccuracyMean, res.AccuracyStd = results.MeanStd(res.Runs)
	return res, nil
}

// repeatMeans returns, repeat by repeat, the mean over parts of the
// values that get reads, one per repeat of parts[0].Runs.
func repeatMeans(parts []results.Result, get func(results.Result) []float64) []float64 {
	out := make([]float64, len(parts[0].Runs))
	for r := range out {
		for _, q := range parts {
			out[r] += get(q)[r]
		}
		out[r] /= float64(len(parts))
	}
	return out
}
