package main

/*
#include <stdint.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
)

// methodInfo is a method type as covpipe_registry lists it: its name,
// description and example parameters (method.Type), its declared
// parameters (method.Type.Parameters), and what its Spec declares with
// the example's parameters (specInfo).
type methodInfo struct {
	Name    string      `json:"name"`
	Doc     string      `json:"doc"`
	Example string      `json:"example"`
	Params  []paramInfo `json:"params"`
	specInfo
}

// specInfo is what a method's Spec declares (classify.Spec): scored
// answers, class costs, class probabilities, the per-image vectors it
// reads beside the descriptors (their features and step, which
// covpipe_describe's option vectors asks for; null for none), and a
// dictionary made from the training items (model.Options.Atoms).
type specInfo struct {
	Scores        bool           `json:"scores"`
	Costs         bool           `json:"costs"`
	Probabilities bool           `json:"probabilities"`
	Vectors       *store.Vectors `json:"vectors"`
	Dictionary    bool           `json:"dictionary"`
}

// specOf returns what method type typ declares with params, the
// mapping of an experiment file's method entry, constructed as model
// constructs it; it returns the type's refusal of the parameters.
func specOf(typ string, params map[string]any) (specInfo, error) {
	t, ok := method.Types()[typ]
	if !ok {
		return specInfo{}, fmt.Errorf("method type %q: want one of %v", typ, method.Names())
	}
	node := yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if len(params) > 0 {
		if err := node.Encode(params); err != nil {
			return specInfo{}, fmt.Errorf("method %s: parameters: %w", typ, err)
		}
	}
	m, err := t.New(&node)
	if err != nil {
		return specInfo{}, fmt.Errorf("method %s: %w", typ, err)
	}
	spec := m.Spec()
	info := specInfo{Scores: spec.Scores, Costs: spec.Costs, Probabilities: spec.Probabilities, Dictionary: spec.Dictionary}
	if v := spec.Vectors; !v.IsZero() {
		info.Vectors = &store.Vectors{FeatureSpec: v.Features, Step: v.Step}
	}
	return info, nil
}

// paramInfo is a declared parameter (param.Decl): its key, help, kind
// (number, list, int, string, bool) and the text of its default.
type paramInfo struct {
	Key     string `json:"key"`
	Help    string `json:"help"`
	Kind    string `json:"kind"`
	Default string `json:"default"`
}

// registry returns every method type of package method, sorted by name,
// its Spec read from the type constructed with its Example.
func registry() ([]methodInfo, error) {
	types := method.Types()
	var out []methodInfo
	for _, name := range method.Names() {
		t := types[name]
		var example map[string]any
		if err := yaml.Unmarshal([]byte(t.Example), &example); err != nil {
			return nil, fmt.Errorf("registry: method %s: example %q: %w", name, t.Example, err)
		}
		spec, err := specOf(name, example)
		if err != nil {
			return nil, fmt.Errorf("registry: example %q: %w", t.Example, err)
		}
		info := methodInfo{Name: name, Doc: t.Doc, Example: t.Example, Params: []paramInfo{}, specInfo: spec}
		for _, d := range t.Parameters() {
			info.Params = append(info.Params, paramInfo{Key: d.Key, Help: d.Help, Kind: d.Kind.String(), Default: d.Default})
		}
		out = append(out, info)
	}
	return out, nil
}

// covpipe_registry sets *out to JSON {"version", "metrics", "methods":
// [methodInfo...]}: covpipe's version, the metric names of
// spd.ParseMetric (canonical ones) and every method type a model fits,
// which the caller frees.
//
//export covpipe_registry
func covpipe_registry(out **C.char) *C.char {
	return call(func() error {
		methods, err := registry()
		if err != nil {
			return err
		}
		var metrics []string
		for _, m := range spd.Metrics() {
			metrics = append(metrics, m.String())
		}
		b, err := json.Marshal(map[string]any{"version": version.String(), "metrics": metrics, "methods": methods})
		if err != nil {
			return err
		}
		return setText(out, string(b))
	})
}

// covpipe_method_spec sets *out to the JSON specInfo of method type typ
// with params (a JSON object, an experiment file's method entry; NULL
// for the type's defaults): what its answers carry and the vectors it
// reads, which the caller frees. It returns the type's refusal of the
// parameters, naming the key.
//
//export covpipe_method_spec
func covpipe_method_spec(typ *C.char, params *C.char, out **C.char) *C.char {
	return call(func() error {
		var p map[string]any
		if err := decodeJSON(params, "parameters", &p); err != nil {
			return err
		}
		info, err := specOf(goString(typ), p)
		if err != nil {
			return err
		}
		b, err := json.Marshal(info)
		if err != nil {
			return err
		}
		return setText(out, string(b))
	})
}

// covpipe_fold_seed sets *out to the seed of the cross-validation folds
// that a run of seed draws on the training set whose images are at the n
// positions train of its dataset's listing (experiment.FoldSeed), which
// covpipe fit --config gives its model: a model fitted through covpipe_fit
// with it chooses its parameters on the same folds as covpipe run and
// covpipe fit --config on the same images.
//
//export covpipe_fold_seed
func covpipe_fold_seed(seed uint64, train *int64, n int64, out *uint64) *C.char {
	return call(func() error {
		switch {
		case n < 0 || n > maxValues:
			return fmt.Errorf("fold seed: %d training positions", n)
		case n > 0 && train == nil:
			return errors.New("fold seed: a NULL pointer for the training positions")
		case out == nil:
			return errors.New("fold seed: a NULL pointer for the seed")
		}
		pos := make([]int, n)
		if n > 0 {
			for i, p := range unsafe.Slice(train, n) {
				if p < 0 {
					return fmt.Errorf("fold seed: position %d is %d, want >= 0", i, p)
				}
				pos[i] = int(p)
			}
		}
		*out = experiment.FoldSeed(seed, pos)
		return nil
	})
}
