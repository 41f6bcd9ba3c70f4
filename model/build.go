package model

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// typeSpec is a method type's Spec.
type typeSpec struct {
	typ  string
	spec classify.Spec
}

// newMethods constructs the method that r records for the training items
// of data (their matrix size, their regions): its type with its
// parameters (a best model's candidates each with theirs), fused by the
// rules of r.Parts for items of several regions, and checks the
// parameters against the items' matrices (Spec.CheckDim) and the
// vectors the method reads against data's. It records the parameters as
// resolved in r. It returns the method, its Spec, and the Spec of each
// method it is made of: the method's own, or a best model's candidates'.
func (r *record) newMethods(data *classify.Data) (classify.Method, classify.Spec, []typeSpec, error) {
	if r.Method != bestType {
		if len(r.Candidates) > 0 {
			return nil, classify.Spec{}, nil, fmt.Errorf("model: method %s takes no candidates (method best does)", r.Method)
		}
		m, spec, params, err := r.one(r.Method, r.Params, data)
		if err != nil {
			return nil, spec, nil, err
		}
		r.Params = params
		return m, spec, []typeSpec{{r.Method, spec}}, nil
	}
	b := &classify.Best{OneSE: true}
	rule, ok := r.Params["rule"]
	switch {
	case len(r.Params) > 1 || len(r.Params) == 1 && !ok:
		return nil, classify.Spec{}, nil, fmt.Errorf("model: method best takes only the parameter rule, not %v", r.Params)
	case ok && rule != "one-se" && rule != "max":
		return nil, classify.Spec{}, nil, fmt.Errorf("model: method best: rule %v: want one-se or max", rule)
	case len(r.Candidates) < 2:
		return nil, classify.Spec{}, nil, fmt.Errorf("model: method best chooses among two or more candidates, got %d", len(r.Candidates))
	}
	b.OneSE = rule != "max"
	var specs []typeSpec
	for k := range r.Candidates {
		c := &r.Candidates[k]
		switch {
		case c.Method == bestType:
			return nil, classify.Spec{}, nil, fmt.Errorf("model: candidate %q is itself a best method", c.Name)
		case c.Name == "" || slices.Contains(b.Names, c.Name):
			return nil, classify.Spec{}, nil, fmt.Errorf("model: candidate %d is named %q: want a name of its own", k, c.Name)
		}
		m, spec, params, err := r.one(c.Method, c.Params, data)
		if err != nil {
			return nil, classify.Spec{}, nil, fmt.Errorf("candidate %q: %w", c.Name, err)
		}
		c.Params = params
		b.Names, b.Methods = append(b.Names, c.Name), append(b.Methods, m)
		specs = append(specs, typeSpec{c.Method, spec})
	}
	return b, b.Spec(), specs, nil
}

// one constructs method type typ with params for data's items, as newMethod
// does, and returns its resolved parameters.
func (r *record) one(typ string, params map[string]any, data *classify.Data) (classify.Method, classify.Spec, map[string]any, error) {
	m, err := construct(typ, params)
	if err != nil {
		return nil, classify.Spec{}, nil, err
	}
	spec := m.Spec()
	if spec.CheckDim != nil {
		if err := spec.CheckDim(r.Dim); err != nil {
			return nil, spec, nil, fmt.Errorf("model: method %s on %d×%d descriptors: %w", typ, r.Dim, r.Dim, err)
		}
	}
	switch {
	case spec.Dictionary && r.Atoms < 1:
		return nil, spec, nil, fmt.Errorf("model: method %s makes a dictionary from the training items: give its number of atoms (covpipe fit --atoms N, Options.Atoms), or learn one from a set of its own with covpipe learn and encode", typ)
	case spec.Dictionary && r.Trained > 0 && r.Atoms > r.Trained:
		return nil, spec, nil, fmt.Errorf("model: method %s: %d atoms from %d training items, want at most %d", typ, r.Atoms, r.Trained, r.Trained)
	case !spec.Dictionary && r.Atoms != 0 && r.Method != bestType:
		return nil, spec, nil, fmt.Errorf("model: method %s makes no dictionary, so it takes no atoms (%d given)", typ, r.Atoms)
	}
	if r.Parts != nil && !spec.Costs {
		return nil, spec, nil, fmt.Errorf("model: method %s gives no class costs to fuse regions with (rsr, logE-SR, stein-svm and nn with the Stein or log-Euclidean metric do)", typ)
	}
	b, err := json.Marshal(spec.Params)
	if err != nil {
		return nil, spec, nil, err
	}
	var resolved map[string]any
	if err := json.Unmarshal(b, &resolved); err != nil {
		return nil, spec, nil, err
	}
	if r.Parts != nil {
		rules, err := classify.ParseFusionRules(r.Parts.Rules)
		if err != nil {
			return nil, spec, nil, fmt.Errorf("model: %w", err)
		}
		regions := len(data.Parts)
		m = &classify.Fused{Method: m, Fusing: classify.Fusing{Sets: [][]int{classify.Seq(0, regions)}, Layouts: []string{r.layout()}, Rules: rules, Regions: r.Parts.Regions}}
	}
	return m, spec, resolved, nil
}

// layout names the layout of the training descriptors' regions.
func (r *record) layout() string {
	if r.Extraction == nil {
		return ""
	}
	return r.Extraction.Regions
}

// sameVectors reports whether the request asks for the vectors v
// describes: the same features (however spelt) and step.
func sameVectors(req classify.VectorRequest, v store.Vectors) bool {
	a, err := features.Parse(req.Features)
	if err != nil {
		return false
	}
	b, err := features.Parse(v.FeatureSpec)
	return err == nil && a.String() == b.String() && req.Step == v.Step
}

// vectorRequest is the request of the vectors r records.
func (r *record) vectorRequest() classify.VectorRequest {
	if r.Vectors == nil {
		return classify.VectorRequest{}
	}
	return classify.VectorRequest{Features: r.Vectors.FeatureSpec, Step: r.Vectors.Step}
}

// vectors checks that data holds the vectors that the method of spec
// reads, typ, taking those of out (the training descriptors') under the
// method's spelling of their features.
func vectors(typ string, spec classify.Spec, data *classify.Data, out *store.Output) error {
	req := spec.Vectors
	if req.IsZero() || data.Vectors[req] != nil {
		return nil
	}
	if v := out.Meta.Vectors; v != nil && sameVectors(req, *v) && out.VectorLen > 0 && len(out.Vectors) == len(data.Labels)*out.VectorLen {
		if data.Vectors == nil {
			data.Vectors = map[classify.VectorRequest]*classify.Vectors{}
		}
		data.Vectors[req] = classify.NewVectors(mat.NewDense(len(data.Labels), out.VectorLen, out.Vectors))
		return nil
	}
	return fmt.Errorf("model: method %s reads vectors of the images (%v), which the training descriptors lack: describe them with --vectors-features %s --vectors-step %d, or give the images", typ, req, req.Features, req.Step)
}

// trainingData returns the training items of out, whose descriptors set
// holds, labelled: each descriptor an item, or for a model of several
// regions per image (r.Parts), each image an item of its regions, the
// names of whose regions it records in r.Parts. It records the classes,
// labels in r.
func trainingData(out *store.Output, set *spd.Set, r *record, workers int) (*classify.Data, error) {
	rows := out.Rows
	regions := 1
	if r.Parts != nil {
		n, k, err := imagesOf(rows)
		if err != nil {
			return nil, err
		}
		regions = k
		firsts := make([]store.Row, n)
		for i := range firsts {
			firsts[i] = rows[i*regions]
		}
		rows = firsts
		r.Parts.Regions = nil
		for _, row := range out.Rows[:regions] {
			r.Parts.Regions = append(r.Parts.Regions, row.Region.String())
		}
		r.Parts.Uniform = true
		for i, row := range out.Rows {
			if row.Region != out.Rows[i%regions].Region {
				r.Parts.Uniform = false
				break
			}
		}
	}
	classes, labels, err := classesOf(rows)
	if err != nil {
		return nil, err
	}
	r.Classes, r.Labels, r.Trained = classes, labels, len(labels)
	d := &classify.Data{Labels: labels, Classes: classes, Ridge: out.Meta.Ridge.Eps, Workers: workers}
	if err := setItems(d, set, regions); err != nil {
		return nil, err
	}
	return d, nil
}

// setItems sets the descriptors of d's items, set's matrices, regions
// per item (Data.Parts when more than one), item after item.
func setItems(d *classify.Data, set *spd.Set, regions int) error {
	if regions == 1 {
		d.Set = set
		return nil
	}
	sets, err := classify.PartSets(set, regions)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	d.Parts = nil
	for _, s := range sets {
		d.Parts = append(d.Parts, &classify.Data{Set: s, Labels: d.Labels, Classes: d.Classes, Ridge: d.Ridge, Workers: d.Workers})
	}
	d.Set = d.Parts[0].Set
	return nil
}

// construct constructs method type typ with params, as a config's method
// entry gives them (the YAML mapping of its keys).
func construct(typ string, params map[string]any) (classify.Method, error) {
	t, ok := method.Types()[typ]
	if !ok {
		return nil, fmt.Errorf("model: method %q: want one of %v", typ, Methods())
	}
	var node yaml.Node
	if err := node.Encode(params); err != nil {
		return nil, fmt.Errorf("model: parameters: %w", err)
	}
	if node.Kind != yaml.MappingNode {
		node = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	m, err := t.New(&node)
	if err != nil {
		return nil, fmt.Errorf("model: method %s: %w", typ, err)
	}
	return m, nil
}

// vectorSpecs returns the vectors that o's method reads (each distinct
// request of a best model's candidates), for Fit to extract them beside
// the descriptors; none for a method that reads none or whose parameters
// are refused (FitOutput says why).
func (o Options) vectorSpecs() []describe.VectorSpec {
	var out []describe.VectorSpec
	var seen []classify.VectorRequest
	methods := []Candidate{{Method: o.Method, Params: o.Params}}
	for _, c := range append(methods, o.Candidates...) {
		m, err := construct(c.Method, c.Params)
		if err != nil {
			continue
		}
		req := m.Spec().Vectors
		if req.IsZero() || slices.Contains(seen, req) {
			continue
		}
		if set, err := features.Parse(req.Features); err == nil {
			seen = append(seen, req)
			out = append(out, describe.VectorSpec{Features: set, Step: req.Step})
		}
	}
	return out
}
