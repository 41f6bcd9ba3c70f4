package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
)

// bestTask reports, for each method, the earlier task on which its mean
// accuracy was highest (the paper's Table 3 gives each dictionary at its
// best size).
type bestTask struct {
	combinerTask `yaml:",inline"`
	Best         []string `yaml:"best" json:"best"`
}

func (p *bestTask) sources() *[]string { return &p.Best }

func (p *bestTask) combine(done []results.Result, m config.MethodSpec) (results.Result, error) {
	best := -1
	for i, r := range done {
		if r.Method != m.Name || !slices.Contains(p.Best, r.Task) {
			continue
		}
		if best < 0 || r.AccuracyMean > done[best].AccuracyMean || math.IsNaN(done[best].AccuracyMean) {
			best = i
		}
	}
	if best < 0 {
		return results.Result{}, fmt.Errorf("best: method %q has no results for %v", m.Name, p.Best)
	}
	res := done[best]
	res.Notes = append([]string{fmt.Sprintf("best of %v: %s", p.Best, res.Task)}, res.Notes...)
	res.Task = p.Name
	res.Seconds = 0
	return res, nil
}
