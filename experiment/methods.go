package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
)

// plannedMethod is a constructed method and the Spec it declared, read
// once when the plan was built.
type plannedMethod struct {
	classify.Method
	spec classify.Spec
	name string
	// best holds the candidates of a best method (whose Method is nil).
	best *bestPlan
}

// planMethods constructs the config's methods into p, reads each one's
// Spec once and checks it against every task the method runs on (all but
// combiners): its parameters against the task's matrix sizes
// (Spec.CheckDim) and its requests against what the task offers
// (offer.unmet), so that a method that cannot run on a task fails here,
// naming both and what is missing, rather than when it runs. It parses
// the features of the vector requests, collects the methods' warnings
// and reports whether any method has several parameter candidates.
func planMethods(c *config.Config, p *Plan, root *yaml.Node, fail failFunc) (lists bool, err error) {
	if len(c.Methods) == 0 {
		return false, fail(nil, "no methods")
	}
	types := method.Types()
	names := map[string]bool{}
	for i := range c.Methods {
		m := &c.Methods[i]
		if m.Type == "" {
			m.Type = m.Name
		}
		if m.Name == "" {
			m.Name = m.Type
		}
		path := []any{"methods", i}
		if m.Type == "" {
			return false, fail(path, "method %d has neither name nor type (types: %s)", i+1, strings.Join(method.Names(), ", "))
		}
		if names[m.Name] {
			return false, fail(path, "duplicate method name %q", m.Name)
		}
		names[m.Name] = true
		if isBest(m) {
			pm, err := planBest(m)
			if err != nil {
				return false, fmt.Errorf("%w: method %q: %v", config.ErrConfig, m.Name, err)
			}
			m.Type = bestType
			p.methods = append(p.methods, pm)
			continue
		}
		typ, ok := types[m.Type]
		if !ok {
			return false, fail(path, "unknown method type %q (known: %s)", m.Type, strings.Join(method.Names(), ", "))
		}
		mm, err := typ.New(m.ParamsNode())
		if err != nil {
			if strings.HasPrefix(err.Error(), "line ") {
				return false, fmt.Errorf("%w: method %q: %v", config.ErrConfig, m.Name, err)
			}
			return false, fail(path, "method %q: %v", m.Name, err)
		}
		spec := mm.Spec()
		m.Params = spec.Params
		lists = lists || spec.Candidates > 1
		for _, w := range spec.Warnings {
			p.warnings = append(p.warnings, fmt.Sprintf("%smethod %q: %s", config.At(root, path...), m.Name, w))
		}
		for _, w := range sigmaWarnings(m.ParamsNode()) {
			p.warnings = append(p.warnings, fmt.Sprintf("%smethod %q: %s", config.At(root, append(path, "sigma")...), m.Name, w))
		}
		if err := checkSpec(c, p, m.Name, spec, path, fail); err != nil {
			return false, err
		}
		if r := spec.Vectors; !r.IsZero() && p.vectors[r] == nil {
			set, err := features.Parse(r.Features)
			if err != nil {
				return false, fail(path, "method %q: vectors of %v: %v", m.Name, r, err)
			}
			if p.vectors == nil {
				p.vectors = map[classify.VectorRequest]*features.Set{}
			}
			p.vectors[r] = set
		}
		p.methods = append(p.methods, plannedMethod{Method: mm, spec: spec, name: m.Name})
	}
	return lists, resolveBest(c, p, fail)
}

// checkSpec checks a method's Spec against every task it runs on.
func checkSpec(c *config.Config, p *Plan, name string, spec classify.Spec, path []any, fail failFunc) error {
	for ti, t := range p.tasks {
		if _, ok := t.(combiner); ok {
			continue
		}
		task := c.Tasks[ti]
		o := t.offer()
		if spec.CheckDim != nil {
			for _, d := range o.dims {
				if err := spec.CheckDim(d); err != nil {
					return fail(append(path, "sigma"), "method %q on task %q (%d×%d matrices): %v", name, task.Name, d, d, err)
				}
			}
		}
		if miss := o.unmet(spec); len(miss) > 0 {
			return fail(path, "method %q cannot run on task %q (%s): it needs %s", name, task.Name, task.Kind, strings.Join(miss, ", and "))
		}
	}
	return nil
}

// sigmaWarnings warns of the kernel σ of a method's parameters (the key
// sigma, one value or a list of candidates, of every kernel method) that
// the method accepted but above spd.MaxUsefulSigma, where its kernel is
// degenerate: legal by Theorem 1, yet every off-diagonal kernel value
// underflows.
func sigmaWarnings(params *yaml.Node) []string {
	var out []string
	for i := 0; i+1 < len(params.Content); i += 2 {
		if params.Content[i].Value != "sigma" {
			continue
		}
		var sigmas param.Floats
		if params.Content[i+1].Decode(&sigmas) != nil {
			return nil // the method decoded it, or refused it
		}
		for _, s := range sigmas {
			if s > spd.MaxUsefulSigma && !math.IsInf(s, 0) {
				out = append(out, fmt.Sprintf("sigma = %g, above %g, makes a degenerate kernel: exp(−σ·q) is 0 for every pair whose divergence q exceeds %.2g (%.0f/σ), so the off-diagonal kernel values vanish and sparse codes are all zero",
					s, float64(spd.MaxUsefulSigma), spd.KernelUnderflow/s, spd.KernelUnderflow))
			}
		}
	}
	return out
}
