package experiment

import (
	"fmt"
	"math"
	"slices"
)

// bestTask reports, for each method, the earlier task on which its mean
// accuracy was highest (the paper's Table 3 gives each dictionary at its
// best size).
type bestTask struct {
	Name string   `yaml:"name" json:"name"`
	Best []string `yaml:"best" json:"best"`
}

func newBest(t *TaskSpec, _ *dataPlan, earlier map[string]bool) (protocol, error) {
	p := &bestTask{}
	if err := decodeTask(t, p); err != nil {
		return nil, err
	}
	if len(p.Best) == 0 {
		return nil, fmt.Errorf("best lists no tasks")
	}
	for _, n := range p.Best {
		if !earlier[n] {
			return nil, fmt.Errorf("best names %q, which is not a task listed before it", n)
		}
	}
	return p, nil
}

func (p *bestTask) offer() offer { return offer{} }

func (p *bestTask) sources() []string { return p.Best }

func (p *bestTask) combine(done []Result, methods []MethodSpec) ([]Result, error) {
	var out []Result
	for _, m := range methods {
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
			return nil, fmt.Errorf("best: method %q has no results for %v", m.Name, p.Best)
		}
		res := done[best]
		res.Notes = append([]string{fmt.Sprintf("best of %v: %s", p.Best, res.Task)}, res.Notes...)
		res.Task = p.Name
		res.Seconds = 0
		out = append(out, res)
	}
	return out, nil
}

// keepOnly drops the tasks a quick subset leaves out.
func (p *bestTask) keepOnly(kept []string) {
	p.Best = slices.DeleteFunc(p.Best, func(n string) bool { return !slices.Contains(kept, n) })
}
