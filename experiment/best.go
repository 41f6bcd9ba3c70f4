package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
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
	// of the most accurate's, max the most accurate (see pickBest).
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
func planBest(m *MethodSpec) (plannedMethod, error) {
	var p bestParams
	if m.params != nil {
		if err := strictyaml.Decode(m.params, &p, "method type best"); err != nil {
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
func (c *Config) resolveBest(p *Plan, fail failFunc) error {
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

// classifyBest runs the candidate of best method m that classifies s's
// training set best under cross-validation: on s.Folds stratified folds
// of the training items (never the test items), each candidate, run as
// the engine runs it (classifyMethod: its own parameter selection inside
// each fold's training part, regions fused), scores its accuracy on the
// held-out fold, and pickBest chooses by the accuracies over all folds. The outcome is the winner's on s, with Chosen naming it.
func (e *engine) classifyBest(m plannedMethod, s *classify.Split) (*classify.Outcome, error) {
	cands := m.best.cands
	chosen, err := e.bests.Do(choiceKeyOf(m.name, s), func() (int, error) {
		correct := make([]int, len(cands))
		// Folds outermost: the candidates share each fold's pairwise
		// quantities, which a Data keeps for its latest training set.
		for _, val := range classify.Folds(s.Data.Labels, s.Train, s.Folds, s.Seed) {
			sub := &classify.Split{Data: s.Data, Variants: s.Variants, Train: classify.Without(s.Train, val), Test: val, Workers: s.Workers, Seed: s.Seed, Folds: s.Folds}
			truth := classify.Pick(s.Data.Labels, val)
			for k, c := range cands {
				out, err := e.classifyMethod(c, sub)
				if err != nil {
					return 0, fmt.Errorf("choosing among %d methods, %q: %w", len(cands), c.name, err)
				}
				correct[k] += classify.Correct(out.Pred, truth)
			}
		}
		return pickBest(correct, len(s.Train), m.best.oneSE), nil
	})
	if err != nil {
		return nil, err
	}
	out, err := e.classifyMethod(cands[chosen], s)
	if err != nil {
		return nil, fmt.Errorf("%q, chosen: %w", cands[chosen].name, err)
	}
	out.Chosen = cands[chosen].name
	return out, nil
}

// pickBest returns the candidate that correct, each candidate's count of
// right answers on n cross-validated items, chooses: the most accurate,
// ties to the first listed; or with oneSE the first listed whose
// accuracy is at least a − SE, a the most accurate's and SE =
// √(a(1 − a)/n) its binomial standard error, the one-standard-error rule
// of Hastie, Tibshirani and Friedman (The Elements of Statistical
// Learning, 2nd ed., Sec. 7.10), with the order of `of` as the order of
// preference.
func pickBest(correct []int, n int, oneSE bool) int {
	best := 0
	for k := range correct {
		if correct[k] > correct[best] {
			best = k
		}
	}
	if !oneSE || n == 0 {
		return best
	}
	a := float64(correct[best]) / float64(n)
	floor := a - math.Sqrt(a*(1-a)/float64(n))
	for k, c := range correct {
		if float64(c)/float64(n) >= floor {
			return k
		}
	}
	return best
}

// classifyMethod runs m on s as the engine runs every method: a best
// method by its choice (classifyBest), a method that gives class costs on
// items of several regions region by region, fused (classifyParts), any
// other on s itself.
func (e *engine) classifyMethod(m plannedMethod, s *classify.Split) (*classify.Outcome, error) {
	switch {
	case m.best != nil:
		return e.classifyBest(m, s)
	case s.Data.Parts != nil && m.spec.Costs:
		dp := e.plan.data
		f := classify.Fusing{Sets: dp.partSets, Layouts: dp.layouts, Rules: dp.fusion, Regions: e.partRegions}
		return classifyParts(e.ctx, m.name, m.Method, s, f, &e.fusions)
	}
	return classify.Run(e.ctx, m, s)
}

// isBest reports whether a method spec is of type best, read before the
// method types are (the type defaults to the name).
func isBest(m *MethodSpec) bool {
	return m.Type == bestType || (m.Type == "" && m.Name == bestType)
}
