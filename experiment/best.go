package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/internal/strictyaml"
)

// bestType is the method type of the pseudo-method that chooses, on each
// training set, the best of other listed methods by cross-validation.
const bestType = "best"

// bestParams are the parameters of method type best.
type bestParams struct {
	// Of names the methods to choose among (default: every other method
	// of the config but best ones).
	Of []string `yaml:"of,omitempty" json:"of,omitempty"`
	// Rule is how the cross-validated accuracies choose: one-se (default)
	// takes the first listed whose accuracy is within one standard error
	// of the most accurate's, max the most accurate (see classify.Best).
	Rule string `yaml:"rule,omitempty" json:"rule,omitempty"`
}

// bestPlan is what a best method chooses among: the names its `of`
// lists, resolved into cands.
type bestPlan struct {
	of    []string
	oneSE bool
	cands []plannedMethod
}

// planBest decodes a best method's parameters; its candidates are
// resolved once every method is planned (resolveBest).
func planBest(m *config.MethodSpec) (plannedMethod, error) {
	var p bestParams
	if m.ParamsNode() != nil {
		if err := strictyaml.Decode(m.ParamsNode(), &p, "method type best"); err != nil {
			return plannedMethod{}, err
		}
	}
	if p.Rule != "" && p.Rule != "max" && p.Rule != "one-se" {
		return plannedMethod{}, fmt.Errorf("method type best: rule %q: want max or one-se", p.Rule)
	}
	m.Params = p
	return plannedMethod{name: m.Name, best: &bestPlan{of: p.Of, oneSE: p.Rule != "max"}}, nil
}

// resolveBest fills in the candidates of every best method of p: the
// methods its `of` names, or every method but best ones. Its Spec asks
// for what the candidates ask for (resolveBest keeps the candidates'
// quantities and vectors in allSpecs). A best method runs on the tasks
// whose items the engine can split into folds of its own: selectors and
// split tasks.
func resolveBest(c *config.Config, p *Plan, fail failFunc) error {
	for i, pm := range p.methods {
		if pm.best == nil {
			continue
		}
		path := []any{"methods", i}
		names := pm.best.of
		if len(names) == 0 {
			for _, o := range p.methods {
				if o.best == nil {
					names = append(names, o.name)
				}
			}
		}
		for _, n := range names {
			k := slices.IndexFunc(p.methods, func(o plannedMethod) bool { return o.name == n })
			switch {
			case k < 0:
				return fail(path, "method %q: of: no method %q in the config", pm.name, n)
			case p.methods[k].best != nil:
				return fail(path, "method %q: of: %q is itself a best method", pm.name, n)
			case slices.ContainsFunc(pm.best.cands, func(o plannedMethod) bool { return o.name == n }):
				return fail(path, "method %q: of: %q listed twice", pm.name, n)
			}
			pm.best.cands = append(pm.best.cands, p.methods[k])
		}
		if len(pm.best.cands) < 2 {
			return fail(path, "method %q: of: choosing needs at least two methods, got %d", pm.name, len(pm.best.cands))
		}
		for ti, t := range p.tasks {
			kind := c.Tasks[ti].Kind
			if _, ok := t.(combiner); ok || slices.Contains(partsProtocols, kind) {
				continue
			}
			return fail(path, "method %q cannot run on task %q (%s): best applies to %s tasks", pm.name, c.Tasks[ti].Name, kind, strings.Join(partsProtocols, ", "))
		}
		if c.Folds < 2 {
			return fail([]any{"folds"}, "folds = %d: method %q chooses by cross-validation, which needs folds >= 2", c.Folds, pm.name)
		}
	}
	return nil
}

// allSpecs returns the Specs of every method the plan runs, with the
// candidates of best methods that are not in the plan themselves (after
// KeepMethods), so that the data stage makes what they need.
func (p *Plan) allSpecs() []classify.Spec {
	var out []classify.Spec
	seen := map[string]bool{}
	add := func(m plannedMethod) {
		if m.best == nil && !seen[m.name] {
			seen[m.name] = true
			out = append(out, m.spec)
		}
	}
	for _, m := range p.methods {
		add(m)
		if m.best != nil {
			for _, c := range m.best.cands {
				add(c)
			}
		}
	}
	return out
}

// classifyMethod runs m on s as the engine runs every method
// (classify.Run of methodOf's method).
func (e *engine) classifyMethod(m plannedMethod, s *classify.Split) (*classify.Outcome, error) {
	out, err := classify.Run(e.ctx, e.methodOf(m, s.Data.Parts != nil), s)
	if err != nil {
		return nil, err
	}
	trimRankings(out, s.Ranks)
	return out, nil
}

// trimRankings cuts each ranking of out to its first ranks classes (at
// least two, the class ranked second being an item score's), in one
// array for all of them, in place: a run scores a ranking's first ranks
// classes only (the CMC), and it keeps the outcomes of a best method's
// candidates, whose chosen one answers with its own, until the best
// method has run, so that whole rankings of many classes would be most
// of their memory. With ranks 0 (no CMC), or rankings that short
// already, it changes nothing.
func trimRankings(out *classify.Outcome, ranks int) {
	if ranks <= 0 || out == nil {
		return
	}
	keep := max(ranks, 2)
	total, long := 0, false
	for _, r := range out.Ranking {
		total += min(len(r), keep)
		long = long || len(r) > keep
	}
	if !long {
		return
	}
	all := make([]int, 0, total)
	for q, r := range out.Ranking {
		start := len(all)
		all = append(all, r[:min(len(r), keep)]...)
		out.Ranking[q] = all[start:len(all):len(all)]
	}
}

// shared returns the methods whose outcomes on a split its best methods'
// chosen candidates answer with (classify.Split.Share): every candidate
// of a best method, as the engine runs it on items of several regions
// (parts) or not.
func (e *engine) shared(parts bool) []classify.Method {
	var out []classify.Method
	for _, m := range e.plan.methods {
		if m.best == nil {
			continue
		}
		for _, c := range m.best.cands {
			out = append(out, e.methodOf(c, parts))
		}
	}
	return out
}

// methodKey names the method the engine runs for a planned method, on
// items of several regions (parts) or not.
type methodKey struct {
	name  string
	parts bool
}

// methodOf returns the method the engine runs for m, made once per run:
// a best method's choice among its candidates as the engine runs them
// (classify.Best); on items of several regions, a method that gives class
// costs fitted region by region, fused (classify.Fused, under the data
// section's layouts and rules); any other method as planned.
func (e *engine) methodOf(m plannedMethod, parts bool) classify.Method {
	out, _ := e.methods.Do(methodKey{m.name, parts}, func() (classify.Method, error) {
		switch {
		case m.best != nil:
			b := &classify.Best{OneSE: m.best.oneSE}
			for _, c := range m.best.cands {
				b.Names = append(b.Names, c.name)
				b.Methods = append(b.Methods, e.methodOf(c, parts))
			}
			return b, nil
		case parts && m.spec.Costs:
			dp := e.plan.data
			return &classify.Fused{Method: m.Method, Fusing: classify.Fusing{Sets: dp.partSets, Layouts: dp.layouts, Rules: dp.fusion, Regions: e.partRegions}}, nil
		}
		return m.Method, nil
	})
	return out
}

// isBest reports whether a method spec is of type best, read before the
// method types are (the type defaults to the name).
func isBest(m *config.MethodSpec) bool {
	return m.Type == bestType || (m.Type == "" && m.Name == bestType)
}
