package experiment

import (
	"fmt"
	"time"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
)

// EnergyCurveConfig is the paper's Fig. 7 experiment: synthetic mixtures
// of source points (synth.Mixture) and the energy J of Eqn. 10 of
// dictionaries of Atoms atoms over Iters iterations.
type EnergyCurveConfig struct {
	synth.MixtureOptions `yaml:",inline"`
	Atoms                int `yaml:"atoms" json:"atoms"`
	Iters                int `yaml:"iters" json:"iters"`
}

// energyCurveTask traces, for every method (each must declare an energy
// tracer, Spec.Energy: type codes), the energy of its dictionary against
// the iteration, averaged over repeats, and adds the energy of the true
// sources as a reference ("sources", with the first method's σ and λ).
type energyCurveTask struct {
	Name   string            `yaml:"name" json:"name"`
	Energy EnergyCurveConfig `yaml:"energy_curve" json:"energy_curve"`
}

func newEnergyCurve(t *config.TaskSpec, _ *dataPlan, _ map[string]bool) (protocol, error) {
	p := &energyCurveTask{}
	if err := decodeTask(t, p); err != nil {
		return nil, err
	}
	c := p.Energy
	one := c.MixtureOptions
	one.Samples = 1 // samples: checked below, with atoms and iters
	if err := one.Validate(); err != nil {
		return nil, err
	}
	if c.Samples < 1 || c.Atoms < 1 || c.Atoms > c.Samples || c.Iters < 1 {
		return nil, fmt.Errorf("energy_curve: samples %d, atoms %d (1..samples) and iters %d must be >= 1", c.Samples, c.Atoms, c.Iters)
	}
	return p, nil
}

func (p *energyCurveTask) offer() offer { return offer{dims: []int{p.Energy.Dim}, energy: true} }

func (p *energyCurveTask) gives() string { return "energy curves" }

func (p *energyCurveTask) run(e *engine, ti int) ([]results.Result, error) {
	c := p.Energy
	n := e.cfg.Repeats
	type curves struct {
		runs [][]float64
		secs float64
	}
	byMethod := make([]curves, len(e.plan.methods)+1) // the last: the sources
	e.rep.Begin(fmt.Sprintf("%s: %s × %s", p.Name, plural.Of(n, "repeat"), plural.Of(len(e.plan.methods), "method")), n*len(e.plan.methods))
	defer e.rep.End()
	ref := e.plan.methods[0].spec.Energy
	for r := range n {
		if err := e.ctx.Err(); err != nil {
			return nil, err
		}
		seed := e.seed(ti, r)
		t0 := time.Now()
		sources, samples, err := synth.MixtureContext(e.ctx, c.MixtureOptions, seed)
		if err != nil {
			return nil, err
		}
		train, err := spd.NewSet(samples)
		if err != nil {
			return nil, err
		}
		truth, err := spd.NewSet(sources)
		if err != nil {
			return nil, err
		}
		e.addTime("data", t0)
		for mi, m := range e.plan.methods {
			t0 := time.Now()
			curve, err := m.spec.Energy.Curve(e.ctx, train, c.Atoms, c.Iters, seed, e.workers)
			if err != nil {
				return nil, fmt.Errorf("repeat %d, method %q: %w", r, e.cfg.Methods[mi].Name, err)
			}
			byMethod[mi].runs = append(byMethod[mi].runs, curve)
			byMethod[mi].secs += time.Since(t0).Seconds()
			e.rep.Advance(1)
		}
		j, err := ref.Energy(e.ctx, train, truth, e.workers)
		if err != nil {
			return nil, fmt.Errorf("repeat %d, the sources' energy: %w", r, err)
		}
		flat := make([]float64, c.Iters+1)
		for i := range flat {
			flat[i] = j
		}
		byMethod[len(e.plan.methods)].runs = append(byMethod[len(e.plan.methods)].runs, flat)
	}
	var out []results.Result
	for mi, cm := range byMethod {
		name := "sources"
		note := fmt.Sprintf("the %d true sources as the dictionary (σ and λ of method %q)", c.Sources, e.cfg.Methods[0].Name)
		if mi < len(e.plan.methods) {
			name, note = e.cfg.Methods[mi].Name, ""
		}
		res := results.Result{Task: p.Name, Method: name, Kind: results.KindEnergy, Seconds: cm.secs}
		if note != "" {
			res.Notes = []string{note}
		}
		res.Energy, res.EnergyStd = results.MeanStdColumns(cm.runs)
		res.EnergyRuns = cm.runs
		res.FinalEnergy, res.FinalEnergyStd = res.Energy[len(res.Energy)-1], res.EnergyStd[len(res.EnergyStd)-1]
		out = append(out, res)
	}
	e.timings["methods"] += sumSecs(out)
	return out, nil
}

// sizes estimates what each repeat holds (repeats run one after the
// other): the normal draws of a source, the sources and samples, and the
// codes and kernel values of the samples against the atoms.
func (p *energyCurveTask) sizes(index int, _ sizing) []estimate {
	c := p.Energy
	d := c.Dim
	est := func(key, what string, bytes float64) estimate {
		path, k := taskPath(index, "energy_curve", key)
		return estimate{k, path, what, bytes}
	}
	return []estimate{
		est("points", fmt.Sprintf("%d points of dimension %d make a source", c.Points, d), 8*float64(c.Points)*float64(d)),
		est("sources", fmt.Sprintf("%d sources of %d×%d", c.Sources, d, d), matrices(c.Sources, d)),
		est("samples", fmt.Sprintf("%d samples of %d×%d", c.Samples, d, d), matrices(c.Samples, d)),
		est("atoms", fmt.Sprintf("%d atoms code %d samples", c.Atoms, c.Samples), 8*float64(c.Atoms)*(3*float64(c.Samples)+2*float64(c.Atoms))),
	}
}
