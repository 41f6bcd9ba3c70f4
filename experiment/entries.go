package experiment

import (
	"errors"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/internal/hashkey"
	"go.yaml.in/yaml/v3"
)

// MethodEntry returns the type of the plan's method named name and its
// parameters as the file gives them (the method's mapping without name
// and type), for fitting the method outside a run (package model, covpipe
// fit --config). It returns an error listing the plan's methods when it
// has none of that name.
func (p *Plan) MethodEntry(name string) (typ string, params *yaml.Node, err error) {
	var names []string
	for _, m := range p.Config.Methods {
		if m.Name == name {
			return m.Type, m.ParamsNode(), nil
		}
		names = append(names, m.Name)
	}
	return "", nil, fmt.Errorf("%s has no method %q (it has %v)", p.Config.Name, name, names)
}

// BestOf returns the names of the methods that the plan's best method
// name chooses among, in the order of preference of its rule, and
// whether its rule is the one-standard-error rule; nil for a method that
// is not a best one.
func (p *Plan) BestOf(name string) (of []string, oneSE bool) {
	for _, m := range p.methods {
		if m.name == name && m.best != nil {
			for _, c := range m.best.cands {
				of = append(of, c.name)
			}
			return of, m.best.oneSE
		}
	}
	return nil, false
}

// FoldSeed returns the seed of the validation folds on a training set,
// train its items' indices in the run's data (a dataset's images in
// their listing order), for a run of seed seed: tasks that share a
// training set share the folds, and a model fitted on the same images
// (covpipe fit --config) draws the same folds.
func FoldSeed(seed uint64, train []int) uint64 { return deriveSeed(seed, hashkey.Ints(train)) }

// DescribeOptions returns the extraction options of the plan's data
// section, one per ridge candidate, as a run extracts its dataset's
// descriptors (without its workers, progress and memory bound). It
// returns an error for a plan without a data section.
func (p *Plan) DescribeOptions() ([]describe.Options, error) {
	if p.data == nil {
		return nil, errors.New(p.Config.Name + " has no data section")
	}
	e := &engine{plan: p, cfg: p.Config}
	var out []describe.Options
	for _, reg := range p.data.regs {
		out = append(out, e.describeOptions(reg))
	}
	return slices.Clip(out), nil
}

// Fusion returns the fusion rules of the plan's data.parts, for fitting a
// model of several regions per image (model.Options.Fusion): nil without
// data.parts. A model holds one layout, so it returns an error for
// data.parts listing several candidate layouts, naming them.
func (p *Plan) Fusion() ([]string, error) {
	if p.data == nil || p.data.fusion == nil {
		return nil, nil
	}
	if len(p.data.layouts) > 1 {
		return nil, fmt.Errorf("%s: data.parts lists %d candidate layouts %v; a model holds one: keep the one a run chooses (its results.json's parts.layout)", p.Config.Name, len(p.data.layouts), p.data.layouts)
	}
	var out []string
	for _, r := range p.data.fusion {
		out = append(out, r.String())
	}
	return out, nil
}
